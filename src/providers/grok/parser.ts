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
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { noteFirstPrompt } from '../title.js';
import type { CarryReader } from '../types.js';
import { type CallsCarry, emptyCallsCarry, readCallsCarry, UnbilledCalls } from '../unbilled-calls.js';
import type { GrokLine } from './record.js';

/** What a Grok parser carries between passes: its calls (`../unbilled-calls.ts`), a turn's billed by its end. */
export type GrokCarry = CallsCarry;

export const emptyGrokCarry = emptyCallsCarry;

export const readGrokCarry: CarryReader<GrokCarry> = readCallsCarry;

/** The model the price catalogue knows: the CLI's `-build` ids serve the base model. */
export const pricedModel = (model: string): string => model.replace(/-build$/, '');

export class GrokParser {
  private readonly calls: UnbilledCalls;

  constructor(
    readonly facts: FileFacts,
    carry: GrokCarry,
    private readonly ledger: LedgerBuilder,
    /** The model `summary.json` names, for turns that do not name theirs. */
    private readonly defaultModel: string | null,
  ) {
    this.calls = new UnbilledCalls(carry);
  }

  carry(): GrokCarry {
    return this.calls.carry();
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
        this.calls.open(l.id, l.name);
        f.live = isAskUserTool(l.name)
          ? { state: 'waiting', atMs: l.ms, detail: l.name }
          : { state: 'working', atMs: l.ms, detail: null };
        return;
      case 'failed': {
        const name = this.calls.settle(l.id) ?? '(unknown)';
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
    const tools = this.calls.bill();
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
        tools,
      });
    }
    // A turn's figures are sums over its requests: they say nothing of the newest prompt's size.
    f.live = { state: 'idle', atMs: l.ms, detail: 'reply' };
  }
}
