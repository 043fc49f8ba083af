/**
 * Grok Build CLI updates → session facts and ledger records, one line at a time, resumable.
 *
 * A `turn_completed` update bills the turn, once per model it used. Its identity is its event id
 * with the model, so an update written twice counts once; one without an event id is counted as it
 * stands. The CLI serves a model under a `-build` id (`grok-4.3-build`): the price and the name the
 * catalogue knows are the base model's, so the ledger records the model without the suffix. The
 * reasoning is inside the output, as the CLI counts it.
 */
import { type FileFacts, noteModel, noteTime, tallyFailure, tallyTool } from '../../model/facts.js';
import { obj } from '../../model/json.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { carriedCalls, stringOf } from '../carry.js';
import { type CarriedCall, PendingCalls } from '../pending.js';
import { noteFirstPrompt } from '../title.js';
import type { CarryReader } from '../types.js';
import type { GrokLine } from './record.js';

export interface GrokCarry {
  /** Tool calls not yet settled, to name the tool a failure belongs to. */
  pending: CarriedCall<string>[];
  /** Calls of the turn under way: its `turn_completed` bills them. */
  turn: string[];
}

export const emptyGrokCarry = (): GrokCarry => ({ pending: [], turn: [] });

export const readGrokCarry: CarryReader<GrokCarry> = (stored) => {
  const o = obj(stored);
  if (o === null) return undefined;
  const pending = carriedCalls(o.pending, stringOf);
  const turn =
    Array.isArray(o.turn) && o.turn.every((s) => typeof s === 'string') ? (o.turn as string[]) : undefined;
  return pending === undefined || turn === undefined ? undefined : { pending, turn };
};

/** Calls remembered for the turn under way; a turn that makes more is still billed, its list cut. */
const MAX_TURN_CALLS = 256;

/** The model the price catalogue knows: the CLI's `-build` ids serve the base model. */
export const pricedModel = (model: string): string => model.replace(/-build$/, '');

export class GrokParser {
  private pending: PendingCalls<string>;
  private turn: string[];

  constructor(
    readonly facts: FileFacts,
    carry: GrokCarry,
    private readonly ledger: LedgerBuilder,
    /** The model `summary.json` names, for turns that do not name theirs. */
    private readonly defaultModel: string | null,
  ) {
    this.pending = new PendingCalls(carry.pending);
    this.turn = [...carry.turn];
  }

  carry(): GrokCarry {
    return { pending: this.pending.carry(), turn: [...this.turn] };
  }

  line(l: GrokLine): void {
    const f = this.facts;
    if (l.kind !== 'other') noteTime(f, l.ms);
    switch (l.kind) {
      case 'prompt':
        noteFirstPrompt(f, l.text);
        f.live = { state: 'working', atMs: l.ms, detail: null };
        return;
      case 'call':
        tallyTool(f, l.name);
        if (l.id !== null) this.pending.open(l.id, l.name);
        if (this.turn.length < MAX_TURN_CALLS) this.turn.push(l.name);
        f.live = isAskUserTool(l.name)
          ? { state: 'waiting', atMs: l.ms, detail: l.name }
          : { state: 'working', atMs: l.ms, detail: null };
        return;
      case 'failed': {
        const name = (l.id !== null ? this.pending.settle(l.id) : undefined) ?? '(unknown)';
        tallyFailure(f, name);
        return;
      }
      case 'turn':
        this.bill(l);
        return;
      case 'other':
        return;
    }
  }

  private bill(l: Extract<GrokLine, { kind: 'turn' }>): void {
    const f = this.facts;
    for (const u of l.usages) {
      const model = pricedModel(u.model ?? this.defaultModel ?? 'unknown');
      noteModel(f, model);
      f.mainModel = model;
      this.ledger.push({
        key: l.event === null ? null : hashString(`grok\u0000${l.event}\u0000${model}`),
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
          reasoning: u.reasoning,
        },
        reportedCostUsd: u.costUsd,
        tools: this.turn,
      });
    }
    this.turn = [];
    // A turn's figures are sums over its requests: they say nothing of the newest prompt's size.
    f.live = { state: 'idle', atMs: l.ms, detail: 'reply' };
  }
}
