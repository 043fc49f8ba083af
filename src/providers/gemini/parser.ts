/**
 * Gemini CLI chat records → session facts and ledger records.
 *
 * A Gemini chat is not a plain append-only log even in its JSONL form: a message is written again
 * whole when its tokens or tool results arrive (the newest copy wins, in the place of the first), and
 * `$rewindTo` drops a message and everything after it. So messages are first collected by id, in
 * order, and only folded into facts once nothing can change them any more.
 *
 * What a rewind drops: the rewound messages, entirely. Their tokens, tool calls and prompts no
 * longer count toward the session, which then reads as Gemini CLI itself shows it after `/rewind`
 * (a rewound request was still billed by the API; cctop follows the chat, as specified).
 * known limit: a `$set` that replaces the whole message list (a history rewrite on resume, or after
 * masking or compression) adds the messages it names that are not held yet, and leaves the held ones
 * as they were: a rewrite changes what the model sees next, not what was spent. It is the model's
 * view of the chat: Gemini CLI 0.61 writes it on every `--resume` with no `tokens` and no
 * `toolCalls`, so taking its copies would forget every request and call before the resume.
 *
 * Tailing (the index reads only the bytes a `.jsonl` gained): the newest `WINDOW_MESSAGES`
 * messages stay open in the carried state and everything older is settled into facts and ledger
 * records. A later re-write or rewind of an open message is applied in place; a rewind to an older
 * one, or a wholesale `$set` of messages, cannot be undone incrementally, and the reader starts the
 * file over from its first byte. Gemini CLI re-writes only its newest message and rewinds rarely, so
 * a growing chat is almost always tailed.
 *
 * Tokens: `input` holds the cached part, so the ledger's input is `input − cached` (plus the
 * built-in tools' own prompt, `tool`, billed as input); `thoughts` are billed as output and
 * reported as reasoning. A request's tokens then add up to the record's own `total`.
 */
import {
  type FileFacts,
  isFileFacts,
  noteModel,
  noteTime,
  oneLine,
  tallyFailure,
  tallyTool,
} from '../../model/facts.js';
import { obj } from '../../model/json.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { listOf, nullableString, numberOf, stringOf } from '../carry.js';
import { noteFirstPrompt } from '../title.js';
import type { CarryReader } from '../types.js';
import {
  callFailed,
  type GeminiCall,
  type GeminiLine,
  type GeminiMessage,
  type GeminiMetadata,
  type GeminiTokens,
} from './record.js';

/**
 * Messages kept open for re-writes and rewinds while tailing. Gemini CLI re-writes its newest
 * message only; a rewind is to a recent prompt. Sixty-four covers both with room to spare and keeps
 * the carried state small: at most 64 × (1 KiB of text + 512 calls) per chat, a few kilobytes in
 * practice.
 */
export const WINDOW_MESSAGES = 64;

export interface GeminiCarry {
  /** Facts of everything outside the window: metadata, line counts, settled messages. */
  settled: FileFacts;
  /** How many leading ledger records belong to settled messages. */
  settledRecords: number;
  /** The open messages, oldest first. */
  window: GeminiMessage[];
}

const callOf = (v: unknown): GeminiCall | undefined => {
  const o = obj(v);
  if (o === null) return undefined;
  const name = stringOf(o.name);
  const status = nullableString(o.status);
  const exitCode = o.exitCode === null ? null : numberOf(o.exitCode);
  return name === undefined || status === undefined || exitCode === undefined
    ? undefined
    : { name, status, exitCode };
};

const tokensOf = (v: unknown): GeminiTokens | null | undefined => {
  if (v === null) return null;
  const o = obj(v);
  if (o === null) return undefined;
  const [input, output, cached, thoughts, tool] = [o.input, o.output, o.cached, o.thoughts, o.tool].map(
    numberOf,
  );
  const total = o.total === null ? null : numberOf(o.total);
  if (input === undefined || output === undefined || cached === undefined) return undefined;
  if (thoughts === undefined || tool === undefined || total === undefined) return undefined;
  return { input, output, cached, thoughts, tool, total };
};

const messageOf = (v: unknown): GeminiMessage | undefined => {
  const o = obj(v);
  if (o === null) return undefined;
  const m = {
    id: stringOf(o.id),
    ms: o.ms === null ? null : numberOf(o.ms),
    type: stringOf(o.type),
    model: nullableString(o.model),
    tokens: tokensOf(o.tokens),
    calls: listOf(o.calls, callOf),
    text: nullableString(o.text),
  };
  const { id, ms, type, model, tokens, calls, text } = m;
  if (id === undefined || ms === undefined || type === undefined || model === undefined) return undefined;
  if (tokens === undefined || calls === undefined || text === undefined) return undefined;
  return { id, ms, type, model, tokens, calls, text };
};

/**
 * A `GeminiCarry` (or the null a whole-file chat carries) as the index hands it back, checked: the
 * open messages field by field, the settled facts by `isFileFacts`.
 */
export const readGeminiCarry: CarryReader<GeminiCarry | null> = (stored) => {
  if (stored === null) return null;
  const o = obj(stored);
  if (o === null || !isFileFacts(o.settled)) return undefined;
  const settledRecords = numberOf(o.settledRecords);
  const window = listOf(o.window, messageOf);
  if (settledRecords === undefined || window === undefined) return undefined;
  return { settled: o.settled, settledRecords, window };
};

/** Tool statuses of a call not finished yet (Gemini CLI's scheduler states). */
const IN_FLIGHT = new Set(['validating', 'scheduled', 'executing']);

/** The ledger's tokens of one request (see the module comment). */
export function requestTokens(t: GeminiTokens): {
  input: number;
  cacheRead: number;
  output: number;
  reasoning: number;
  consistent: boolean;
} {
  // Thoughts are counted apart from `output` by Gemini (total = input + output + thoughts + tool);
  // a record whose total says otherwise already has them inside.
  const inside = t.total !== null && t.thoughts > 0 && t.total === t.input + t.output + t.tool;
  const cached = Math.min(t.cached, t.input);
  return {
    input: t.input - cached + t.tool,
    cacheRead: cached,
    output: inside ? t.output : t.output + t.thoughts,
    reasoning: t.thoughts,
    consistent: t.cached <= t.input,
  };
}

/** The note Gemini CLI writes in the chat when the person stops a turn. */
const CANCELLED_NOTE = 'Request cancelled.';

/** Fold one message into facts and the ledger. */
export function applyMessage(f: FileFacts, ledger: LedgerBuilder, m: GeminiMessage): void {
  noteTime(f, m.ms);
  switch (m.type) {
    case 'user':
      noteFirstPrompt(f, m.text);
      f.live = { state: 'working', atMs: m.ms, detail: null };
      return;
    case 'gemini': {
      const model = m.model ?? f.mainModel;
      if (m.model !== null) {
        noteModel(f, m.model);
        f.mainModel = m.model;
      }
      if (m.tokens !== null) {
        const r = requestTokens(m.tokens);
        if (!r.consistent) f.inconsistentUsage++;
        const name = model ?? 'unknown';
        noteModel(f, name);
        ledger.push({
          key: f.sessionId === null ? null : hashString(`gemini\u0000${f.sessionId}\u0000${m.id}`),
          request: 0,
          tsMs: m.ms ?? f.lastMs ?? 0,
          model: name,
          sidechain: false,
          tokens: {
            input: r.input,
            output: r.output,
            cacheRead: r.cacheRead,
            cacheWrite5m: null,
            cacheWrite1h: null,
            reasoning: r.reasoning,
          },
          // The message is the response: its calls are the ones it made.
          tools: m.calls.map((c) => c.name),
        });
        f.context = { prompt: m.tokens.input + m.tokens.tool, model: name, atMs: m.ms };
      }
      for (const c of m.calls) {
        tallyTool(f, c.name);
        if (callFailed(c.status, c.exitCode)) tallyFailure(f, c.name);
      }
      const asking = m.calls.find(
        (c) => c.status === 'awaiting_approval' || (isAskUserTool(c.name) && IN_FLIGHT.has(c.status ?? '')),
      );
      if (asking) f.live = { state: 'waiting', atMs: m.ms, detail: asking.name };
      else if (m.calls.length > 0) f.live = { state: 'working', atMs: m.ms, detail: null };
      else f.live = { state: 'idle', atMs: m.ms, detail: 'reply' };
      return;
    }
    case 'error':
      f.live = { state: 'error', atMs: m.ms, detail: m.text === null ? 'error' : oneLine(m.text) };
      return;
    case 'info':
      // Escape in the TUI ends the turn and writes this note (0.61.0, in the lab): the prompt
      // before it will get no answer, and the session waits for the person again.
      if (m.text === CANCELLED_NOTE && f.live?.state === 'working')
        f.live = { state: 'idle', atMs: m.ms, detail: 'interrupted' };
      return;
    default:
      return;
  }
}

/**
 * One file's chat, being read: metadata straight into the settled facts, messages into an ordered
 * map until `finish` settles them.
 */
export class GeminiChat {
  private readonly messages = new Map<string, GeminiMessage>();
  /** Set when the carried window cannot absorb a record: read the file again from the start. */
  restart = false;

  /**
   * @param settled facts outside the window, updated in place (the caller counts lines into it too)
   * @param tail whether this pass continues from a carried window rather than the first byte
   */
  constructor(
    private readonly settled: FileFacts,
    window: readonly GeminiMessage[],
    private readonly tail: boolean,
  ) {
    for (const m of window) this.messages.set(m.id, m);
  }

  line(l: GeminiLine): void {
    switch (l.kind) {
      case 'header':
        this.meta(l.meta);
        return;
      case 'message':
        // A later copy replaces the earlier one in its original place, as Gemini's loader does.
        this.messages.set(l.message.id, l.message);
        return;
      case 'set':
        this.meta(l.meta);
        if (l.messages !== null) {
          if (this.tail) this.restart = true;
          else for (const m of l.messages) if (!this.messages.has(m.id)) this.messages.set(m.id, m);
        }
        return;
      case 'rewind':
        this.rewind(l.to);
        return;
      case 'other':
        return;
    }
  }

  private meta(m: GeminiMetadata): void {
    const f = this.settled;
    f.sessionId ??= m.sessionId;
    noteTime(f, m.startMs);
    noteTime(f, m.lastMs);
    if (m.summary !== null) f.titles.ai = oneLine(m.summary);
    if (f.cwd === null && m.directories.length > 0) f.cwd = m.directories[0]!;
  }

  private rewind(to: string): void {
    if (!this.messages.has(to)) {
      // Older than the window (or unknown): only a read from the start can drop it. Gemini CLI never
      // writes a rewind to an id it does not have, so on a full read an unknown id changes nothing.
      if (this.tail) this.restart = true;
      return;
    }
    let dropping = false;
    for (const id of [...this.messages.keys()]) {
      if (id === to) dropping = true;
      if (dropping) this.messages.delete(id);
    }
  }

  /**
   * Settle all but the newest `WINDOW_MESSAGES` messages into the settled facts and the ledger, then
   * fold the open ones on top: the file's facts now, and the state to continue from.
   */
  finish(ledger: LedgerBuilder): { facts: FileFacts; carry: GeminiCarry } {
    const all = [...this.messages.values()];
    const open = all.slice(Math.max(0, all.length - WINDOW_MESSAGES));
    for (const m of all.slice(0, all.length - open.length)) applyMessage(this.settled, ledger, m);
    const carry: GeminiCarry = {
      settled: structuredClone(this.settled),
      settledRecords: ledger.length,
      window: open,
    };
    for (const m of open) applyMessage(this.settled, ledger, m);
    return { facts: this.settled, carry };
  }
}
