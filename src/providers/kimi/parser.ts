/**
 * Kimi CLI wire lines → session facts and ledger records, one line at a time, resumable.
 *
 * Every `StatusUpdate` with token usage is one billed step. Its identity is its `message_id` and
 * its time together: the wire repeats neither, so a key is there only to keep a line written twice
 * (a copied session folder) from counting twice within this file. The model is the one the config
 * names, which the caller reads; Kimi CLI's wire never says. Kimi Code's lines (`code-record.ts`)
 * name theirs, and are billed the same way.
 */
import { type FileFacts, noteModel, noteTime, tallyFailure, tallyTool } from '../../model/facts.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { noteFirstPrompt } from '../title.js';
import type { CarryReader } from '../types.js';
import { type CallsCarry, emptyCallsCarry, readCallsCarry, UnbilledCalls } from '../unbilled-calls.js';
import type { KimiLine } from './record.js';

/** What a Kimi parser carries between passes: its calls (`../unbilled-calls.ts`). */
export type KimiCarry = CallsCarry;

export const emptyKimiCarry = emptyCallsCarry;

/** A `KimiCarry` as the index hands it back, checked (`providers/carry.ts`). */
export const readKimiCarry: CarryReader<KimiCarry> = readCallsCarry;

export class KimiParser {
  private readonly calls: UnbilledCalls;

  constructor(
    readonly facts: FileFacts,
    carry: KimiCarry,
    private readonly ledger: LedgerBuilder,
    /** The session, for the identity of its steps. */
    private readonly session: string,
    /** The model for lines that name none: the config's (Kimi's default when it names none). */
    private readonly model: string,
  ) {
    this.calls = new UnbilledCalls(carry);
  }

  carry(): KimiCarry {
    return this.calls.carry();
  }

  line(l: KimiLine): void {
    const f = this.facts;
    if (l.kind !== 'other') noteTime(f, l.ms);
    switch (l.kind) {
      case 'turn':
        noteFirstPrompt(f, l.text);
        f.live = { state: 'working', atMs: l.ms, detail: null };
        return;
      case 'usage':
        this.usage(l);
        return;
      case 'call':
        tallyTool(f, l.name);
        this.calls.open(l.id, l.name);
        f.live = isAskUserTool(l.name)
          ? { state: 'waiting', atMs: l.ms, detail: l.name }
          : { state: 'working', atMs: l.ms, detail: null };
        return;
      case 'result': {
        const name = this.calls.settle(l.id) ?? '(unknown)';
        if (l.failed) tallyFailure(f, name);
        f.live = { state: 'working', atMs: l.ms, detail: null };
        return;
      }
      case 'interrupted':
        f.aborts++;
        f.live = { state: 'idle', atMs: l.ms, detail: 'interrupted' };
        return;
      case 'compaction':
        f.compactions++;
        return;
      case 'turn-end':
        f.live = { state: 'idle', atMs: l.ms, detail: 'reply' };
        return;
      case 'other':
        return;
    }
  }

  private usage(l: Extract<KimiLine, { kind: 'usage' }>): void {
    const f = this.facts;
    const model = l.model ?? this.model;
    noteModel(f, model);
    f.mainModel = model;
    const u = l.usage;
    const identity = `kimi\u0000${this.session}\u0000${l.messageId ?? ''}\u0000${l.ms ?? ''}`;
    this.ledger.push({
      key: hashString(identity),
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
      // The update follows the step's calls: those are the calls it billed.
      tools: this.calls.bill(),
    });
    // A bare total says nothing of the prompt: the context stays what the last full update said.
    if (!u.totalOnly) f.context = { prompt: u.input + u.cacheRead + u.cacheWrite, model, atMs: l.ms };
  }
}
