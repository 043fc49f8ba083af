/**
 * Pi session lines → session facts and ledger records, one line at a time, resumable.
 *
 * Every assistant message is one billed response. Pi's `input` is already the uncached part; its
 * cost is the harness's own and is kept as reported when it is above zero (a zero is a model Pi had
 * no price for, so the catalogue prices it instead). The tree of entries is read in file order:
 * a branch the user abandoned was still paid for, so it counts. What every harness writing Pi's
 * format reads alike (the header, a prompt, a response's calls and state, a tool result, the carried
 * state) is `PiFormatParser`'s (`../pi-format.ts`); this parser bills Pi's responses and reads its own
 * entries (thinking level, title).
 */
import { type FileFacts, noteModel, noteTime, oneLine } from '../../model/facts.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { emptyPiFormatCarry, type PiFormatCarry, PiFormatParser, readPiFormatCarry } from '../pi-format.js';
import type { CarryReader } from '../types.js';
import type { PiLine, PiUsage } from './record.js';

/** What a Pi parser carries between passes: the format's (its open calls and the model named last). */
export type PiCarry = PiFormatCarry;

export const emptyPiCarry = emptyPiFormatCarry;

export const readPiCarry: CarryReader<PiCarry> = readPiFormatCarry;

/** Output including reasoning: pi-ai reports reasoning inside `output` unless its total says apart. */
export function outputOf(u: PiUsage): number {
  const r = u.reasoning ?? 0;
  const apart = r > 0 && u.total !== null && u.total === u.input + u.output + u.cacheRead + u.cacheWrite + r;
  return apart ? u.output + r : u.output;
}

export class PiParser extends PiFormatParser {
  constructor(
    facts: FileFacts,
    carry: PiCarry,
    private readonly ledger: LedgerBuilder,
  ) {
    super(facts, carry);
  }

  line(l: PiLine): void {
    const f = this.facts;
    if (l.kind !== 'other') noteTime(f, l.ms);
    switch (l.kind) {
      case 'thinking':
        f.reasoningEffort = l.level;
        return;
      case 'title':
        f.titles.custom = oneLine(l.name);
        return;
      case 'assistant':
        this.assistant(l);
        return;
      default:
        // What every harness writing the format writes alike.
        this.entry(l);
    }
  }

  private assistant(l: Extract<PiLine, { kind: 'assistant' }>): void {
    const f = this.facts;
    const model = l.model ?? this.model;
    if (model !== null) {
      noteModel(f, model);
      f.mainModel = model;
    }
    const u = l.usage;
    if (u !== null) {
      const name = model ?? 'unknown';
      noteModel(f, name);
      const identity = l.entry === null ? null : `pi\u0000${l.entry}\u0000${l.stamp ?? l.ms ?? ''}`;
      this.ledger.push({
        key: identity === null ? null : hashString(identity),
        request: 0,
        tsMs: l.ms ?? l.stamp ?? f.lastMs ?? 0,
        model: name,
        sidechain: false,
        tokens: {
          input: u.input,
          output: outputOf(u),
          cacheRead: u.cacheRead,
          cacheWrite5m: u.cacheWrite,
          cacheWrite1h: null,
          reasoning: u.reasoning,
        },
        reportedCostUsd: u.costUsd !== null && u.costUsd > 0 ? u.costUsd : null,
        // The assistant message is the response: its calls are the ones it made.
        tools: l.calls.map(([, name]) => name),
      });
      f.context = { prompt: u.input + u.cacheRead + u.cacheWrite, model: name, atMs: l.ms };
    }
    this.response(l);
  }
}
