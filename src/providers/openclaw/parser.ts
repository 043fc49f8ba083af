/**
 * OpenClaw session lines → session facts and ledger records, one line at a time, resumable.
 *
 * Every assistant message with usage is one billed response, identified by its entry id and time.
 * OpenClaw's own price (`cost.total`) is kept when it is above zero; a zero is a model it had no
 * price for, so the catalogue prices it instead. Every entry is counted in file order, an abandoned
 * branch included: it was paid for.
 */
import { type FileFacts, noteModel, noteTime } from '../../model/facts.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { PendingCalls } from '../pending.js';
import {
  emptyPiFormatCarry,
  notePrompt,
  noteResponse,
  noteResult,
  type PiFormatCarry,
  readPiFormatCarry,
} from '../pi-format.js';
import type { CarryReader } from '../types.js';
import type { ClawLine } from './record.js';

/**
 * What an OpenClaw parser carries between passes: the format's (its open calls, and the model the
 * newest change or snapshot named).
 */
export type ClawCarry = PiFormatCarry;

export const emptyClawCarry = emptyPiFormatCarry;

export const readClawCarry: CarryReader<ClawCarry> = readPiFormatCarry;

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
        notePrompt(f, l.ms, l.text);
        return;
      case 'assistant':
        this.assistant(l);
        return;
      case 'result':
        noteResult(f, this.pending, l);
        return;
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
    // OpenClaw records no error message of its own: a failed response says only that it failed.
    noteResponse(f, this.pending, { ...l, error: null });
  }
}
