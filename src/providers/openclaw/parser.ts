/**
 * OpenClaw session lines → session facts and ledger records, one line at a time, resumable.
 *
 * Every assistant message with usage is one billed response, identified by its entry id and time.
 * OpenClaw's own price (`cost.total`) is kept when it is above zero; a zero is a model it had no
 * price for, so the catalogue prices it instead. Every entry is counted in file order, an abandoned
 * branch included: it was paid for.
 */
import { type FileFacts, noteModel, noteTime, tallyFailure, tallyTool } from '../../model/facts.js';
import { obj } from '../../model/json.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { carriedCalls, nullableString, stringOf } from '../carry.js';
import { type CarriedCall, PendingCalls } from '../pending.js';
import { noteFirstPrompt } from '../title.js';
import type { CarryReader } from '../types.js';
import type { ClawLine } from './record.js';

export interface ClawCarry {
  pending: CarriedCall<string>[];
  /** The model the newest change or snapshot named. */
  model: string | null;
}

export const emptyClawCarry = (): ClawCarry => ({ pending: [], model: null });

export const readClawCarry: CarryReader<ClawCarry> = (stored) => {
  const o = obj(stored);
  const pending = o === null ? undefined : carriedCalls(o.pending, stringOf);
  const model = o === null ? undefined : nullableString(o.model);
  return pending === undefined || model === undefined ? undefined : { pending, model };
};

export class ClawParser {
  private pending: PendingCalls<string>;
  private model: string | null;

  constructor(
    readonly facts: FileFacts,
    carry: ClawCarry,
    private readonly ledger: LedgerBuilder,
  ) {
    this.pending = new PendingCalls(carry.pending);
    this.model = carry.model;
  }

  carry(): ClawCarry {
    return { pending: this.pending.carry(), model: this.model };
  }

  line(l: ClawLine): void {
    const f = this.facts;
    if (l.kind !== 'other') noteTime(f, l.ms);
    switch (l.kind) {
      case 'session':
        f.sessionId ??= l.id;
        f.cwd ??= l.cwd;
        return;
      case 'model':
        this.model = l.model;
        return;
      case 'user':
        noteFirstPrompt(f, l.text);
        f.live = { state: 'working', atMs: l.ms, detail: null };
        return;
      case 'assistant':
        this.assistant(l);
        return;
      case 'result': {
        const name = (l.callId !== null ? this.pending.settle(l.callId) : undefined) ?? l.name ?? '(unknown)';
        if (l.failed) tallyFailure(f, name);
        f.live = { state: 'working', atMs: l.ms, detail: null };
        return;
      }
      case 'compaction':
        f.compactions++;
        return;
      case 'other':
        return;
    }
  }

  private assistant(l: Extract<ClawLine, { kind: 'assistant' }>): void {
    const f = this.facts;
    const model = l.model ?? this.model ?? 'unknown';
    const u = l.usage;
    if (u !== null && u.input + u.output + u.cacheRead + u.cacheWrite > 0) {
      noteModel(f, model);
      f.mainModel = model;
      this.ledger.push({
        key: l.entry === null ? null : hashString(`openclaw\u0000${l.entry}\u0000${l.ms ?? ''}`),
        request: 0,
        tsMs: l.ms ?? f.lastMs ?? 0,
        model,
        sidechain: false,
        tokens: {
          input: u.input,
          output: u.output,
          cacheRead: u.cacheRead,
          cacheWrite5m: u.cacheWrite,
          cacheWrite1h: null,
          reasoning: null,
        },
        reportedCostUsd: u.costUsd !== null && u.costUsd > 0 ? u.costUsd : null,
        tools: l.calls.map(([, name]) => name),
      });
      f.context = { prompt: u.input + u.cacheRead + u.cacheWrite, model, atMs: l.ms };
    }
    for (const [id, name] of l.calls) {
      tallyTool(f, name);
      if (id !== null) this.pending.open(id, name);
    }
    const ask = l.calls.find(([, name]) => isAskUserTool(name));
    if (ask) f.live = { state: 'waiting', atMs: l.ms, detail: ask[1] };
    else if (l.stop === 'error') f.live = { state: 'error', atMs: l.ms, detail: 'error' };
    else if (l.stop === 'aborted') {
      f.aborts++;
      f.live = { state: 'idle', atMs: l.ms, detail: 'aborted' };
    } else if (l.calls.length > 0 || l.stop === 'toolUse')
      f.live = { state: 'working', atMs: l.ms, detail: null };
    else f.live = { state: 'idle', atMs: l.ms, detail: l.stop ?? 'reply' };
  }
}
