/**
 * OpenClaw session lines → session facts and ledger records, one line at a time, resumable.
 *
 * Every assistant message with usage is one billed response, identified by its entry id and time.
 * OpenClaw's own price (`cost.total`) is kept when it is above zero; a zero is a model it had no
 * price for, so the catalogue prices it instead. Every entry is counted in file order, an abandoned
 * branch included: it was paid for. What it writes as Pi does (the header, a prompt, a response's
 * calls and state, a tool result, the carried state) is `PiFormatParser`'s (`../pi-format.ts`); this
 * parser bills OpenClaw's responses.
 */
import { type FileFacts, noteModel, noteTime } from '../../model/facts.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { emptyPiFormatCarry, type PiFormatCarry, PiFormatParser, readPiFormatCarry } from '../pi-format.js';
import type { CarryReader } from '../types.js';
import type { ClawLine } from './record.js';

/**
 * What an OpenClaw parser carries between passes: the format's (its open calls, and the model the
 * newest change or snapshot named).
 */
export type ClawCarry = PiFormatCarry;

export const emptyClawCarry = emptyPiFormatCarry;

export const readClawCarry: CarryReader<ClawCarry> = readPiFormatCarry;

export class ClawParser extends PiFormatParser {
  constructor(
    facts: FileFacts,
    carry: ClawCarry,
    private readonly ledger: LedgerBuilder,
  ) {
    super(facts, carry);
  }

  line(l: ClawLine): void {
    const f = this.facts;
    if (l.kind !== 'other') noteTime(f, l.ms);
    switch (l.kind) {
      case 'thinking':
        f.reasoningEffort = l.level;
        return;
      case 'assistant':
        this.assistant(l);
        return;
      default:
        // What every harness writing the format writes alike.
        this.entry(l);
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
          reasoning: u.reasoning,
        },
        reportedCostUsd: u.costUsd !== null && u.costUsd > 0 ? u.costUsd : null,
        tools: l.calls.map(([, name]) => name),
      });
      f.context = { prompt: u.input + u.cacheRead + u.cacheWrite, model, atMs: l.ms };
    }
    // OpenClaw records no error message of its own: a failed response says only that it failed.
    this.response({ ...l, error: null });
  }
}
