/**
 * A session's conversation, normalised: who said what, what the agent called and what came back.
 *
 * This is not the scan. The session table is built from facts that drop every word on purpose
 * (keeping them would make the index as large as every conversation on disk); the conversation is a
 * separate read of one transcript, on request, and keeps nothing afterwards.
 *
 * A transcript is unbounded and whoever reads this (a terminal panel, a browser tab) is not, so every
 * axis has a bound: the newest `MAX_TURNS` turns (the older ones are counted, not sent), a message's
 * text, a tool result's head, the calls of one turn, the lines of one diff. The tail rather than the
 * head, because a conversation is read from where it has got to.
 *
 * Turns are numbered in the whole transcript (`seq`), not in the window, so paging backwards
 * (`before`) and links to a turn keep meaning the same turn however the window moves.
 *
 * A reader that keeps every turn (the search index) passes a `TurnFeed`: the same turns, each handed
 * over as it leaves the window and the rest at the end, so what is searched is what `chat` shows.
 *
 * Every turn is sealed before anyone sees it (`seal`, in `seal.ts`): its text, calls, results and diffs go through
 * the one redaction (`secrets/redact.ts`), so chat, export, handoff, the search index, the dashboard
 * and MCP, which all read turns from here, never hold a secret in full. A feed that asks (`secret`)
 * is told each one found, with its turn, which is how `cctop secrets` lists them.
 *
 * A clip (`MAX_TEXT_CHARS`, `MAX_RESULT_CHARS`) never cuts a secret in two: one the bound falls inside
 * is kept whole, to be redacted whole (`secrets/cut.ts`, which says how far a clip may move).
 *
 * known limit: a subagent's records that share the parent's file are left out rather than nested under
 * the call that started them; its own conversation can be asked for by its agent id.
 */

/** Turns sent: several screens past what anyone reads in one sitting, and few enough for a tab. */
export const MAX_TURNS = 200;

/** Characters one message keeps: a pasted stack trace or a plan is what someone re-reads. */
export const MAX_TEXT_CHARS = 6000;

/** Characters of one tool result: enough to confirm what came back; the transcript has the rest. */
export const MAX_RESULT_CHARS = 800;

/** Tool calls kept per turn: past this a turn is a fan-out whose tail says nothing new. */
export const MAX_TOOLS_PER_TURN = 64;

/** Diff lines kept per edit. */
export const MAX_DIFF_LINES = 200;

/** Ids longer than this are not ids; a call or result carrying one is kept without correlation. */
export const MAX_ID_CHARS = 4096;

import { cutOutside } from '../secrets/cut.js';
import type { Secret } from '../secrets/redact.js';
import { seal } from './seal.js';

export type TurnRole = 'user' | 'assistant' | 'system';
export type TurnKind = 'message' | 'reasoning' | 'compaction';

export interface ToolUse {
  /** As the transcript spelled it, an MCP server's prefix made readable. */
  name: string;
  /** One line: the path, the command, the pattern. */
  detail: string;
  /** The argument in full, when it says more than `detail`. */
  full: string | null;
  /** The head of what came back; null while the call is still running. */
  result: string | null;
  failed: boolean;
  added: number;
  removed: number;
  /** Diff lines, when the harness recorded the patch it applied. */
  diff: string[];
}

export interface Turn {
  /** Place in the whole transcript, from zero; survives windowing. */
  seq: number;
  role: TurnRole;
  kind: TurnKind;
  /** As the transcript wrote it (ISO), or '' when it did not. */
  ts: string;
  text: string;
  /** The text was cut to `MAX_TEXT_CHARS`. */
  clipped: boolean;
  tools: ToolUse[];
}

export interface Conversation {
  /** False when cctop has no reader for this harness; `note` says why. Not an error. */
  supported: boolean;
  turns: Turn[];
  /** Turns before the ones sent. */
  earlier: number;
  note: string | null;
}

/** Where a read of a transcript may start again: a record's byte offset, and the number its first turn takes. */
export interface ReadPoint {
  offset: number;
  seq: number;
}

/**
 * Every turn of a transcript, for a reader that keeps them all (the search index) rather than a
 * window. A read that starts mid-file (`from`) gives the turns from that point on, numbered as a read
 * from the start numbers them; a reader that cannot start mid-file starts at the top and says so
 * (`begin`).
 */
export interface TurnFeed {
  /** Where the caller would have the read start; null: the start of the file. */
  readonly from: ReadPoint | null;
  /** Said once, before any turn: where this read really starts. */
  begin(at: ReadPoint): void;
  /** Each turn, once the window has let it go or the read ended; never an empty one. */
  turn(t: Turn): void;
  /** Said last: the newest point a later read of the grown file may start from. */
  end(resume: ReadPoint): void;
  /** Each secret found in a turn, in full, before the turn is handed over redacted (`cctop secrets`). */
  secret?(seq: number, s: Secret): void;
}

const TOP: ReadPoint = { offset: 0, seq: 0 };

export function unsupported(note: string): Conversation {
  return { supported: false, turns: [], earlier: 0, note };
}

export function newTool(name: string, detail: string, full: string | null): ToolUse {
  return { name, detail, full, result: null, failed: false, added: 0, removed: 0, diff: [] };
}

/** What an edit changed, where the harness recorded it. */
export interface Delta {
  added: number;
  removed: number;
  lines: string[];
}

function clip(text: string, max: number): { text: string; clipped: boolean } {
  const t = text.trim();
  // At most `max` UTF-16 units is at most `max` characters: nothing to count (the common case, and
  // the search index reads every turn of every transcript through here).
  if (t.length <= max) return { text: t, clipped: false };
  // Count characters, not UTF-16 units, so a cut never splits an emoji; walked rather than split into
  // an array, since a tool's result can be megabytes of which a few hundred characters are kept.
  let at = 0;
  for (let chars = 0; chars < max && at < t.length; chars++) {
    const c = t.charCodeAt(at);
    const pair = c >= 0xd800 && c <= 0xdbff && (t.charCodeAt(at + 1) & 0xfc00) === 0xdc00;
    at += pair ? 2 : 1;
  }
  // A bound inside a secret would keep its head unrecognised: the cut moves past it (`secrets/cut.ts`).
  at = cutOutside(t, at);
  return at < t.length ? { text: t.slice(0, at), clipped: true } : { text: t, clipped: false };
}

function setText(turn: Turn, text: string): void {
  const c = clip(text, MAX_TEXT_CHARS);
  turn.text = c.text;
  turn.clipped = c.clipped;
}

/**
 * Add text to a turn that may already have some. A cap once reached stays reached, so a run of
 * records cannot grow one turn past the bound a block at a time.
 */
function appendText(turn: Turn, text: string): void {
  const t = text.trim();
  if (t.length === 0 || turn.clipped) return;
  setText(turn, turn.text.length === 0 ? t : `${turn.text}\n\n${t}`);
}

/** A tool result, whatever shape it came in, as bounded text. */
export function resultText(text: string): string {
  const c = clip(text, MAX_RESULT_CHARS);
  return c.clipped ? `${c.text}…` : c.text;
}

/** Append with a blank line between blocks, so two blocks do not run into one word. */
export function joinText(into: string, more: string): string {
  if (more.length === 0) return into;
  return into.length === 0 ? more : `${into}\n\n${more}`;
}

/**
 * Turns as they are read, with the oldest dropped past the window. Tool calls stay reachable by id
 * in sequence numbers, not positions: a result whose call has fallen off the front resolves to
 * nothing instead of landing on whatever turn now sits there.
 */
export class TurnSink {
  private turns: Turn[] = [];
  /** Sequence number of `turns[0]`. */
  private first = 0;
  /** Sequence number the next turn gets. */
  private next = 0;
  /** call id → [turn seq, index in its tools]. */
  private index = new Map<string, [number, number]>();
  /**
   * The assistant turn a run of records is still adding to. Harnesses write one reply as several
   * records (the text, then each call); a tool result is the seam, since the model was asked again.
   */
  private run: number | null = null;
  /** The request id of the open reply, where the harness names it: the exact form of `run`. */
  private runRequest: { id: string; seq: number } | null = null;
  /** Where this read started (`startAt`), and the newest point a later read may start from. */
  private origin: ReadPoint = TOP;
  private resume: ReadPoint = TOP;
  /** The offset of the record being read (`at`), and the turns it has pushed so far. */
  private record: number | null = null;
  private pushedByRecord = 0;
  private began = false;

  /**
   * @param before when set, the window ends just before this turn: later turns are still numbered
   * (so `earlier` agrees with other windows) and their records still read (a result can arrive after
   * the boundary for a call inside it), but they are not kept.
   * @param feed every turn is handed to it as it leaves the window (see `TurnFeed`).
   */
  constructor(
    private readonly before: number | null = null,
    private readonly feed: TurnFeed | null = null,
  ) {}

  /**
   * Where a reader that can start mid-file starts: the feed's point (turns are then numbered from its
   * `seq`), else the top. A reader that never asks reads from the top, as the feed is then told.
   */
  startAt(): number {
    const from = this.feed?.from ?? null;
    if (from === null || this.next > 0) return 0;
    this.origin = from;
    this.resume = from;
    this.first = from.seq;
    this.next = from.seq;
    return from.offset;
  }

  /**
   * The record read next starts at byte `offset`. A person's message that is the first turn of its
   * record is where a later read may start: nothing before it can change the turns after it (but see
   * the known limit below), so a grown file is read again from there, not from the top.
   *
   * known limit: a reply whose request id reappears after the person's message (Claude), or a retried
   * call repeated after it (Codex), joins its turn in a read from the top but starts a new one in a
   * read from this point; no harness has been seen writing either.
   */
  at(offset: number): void {
    this.record = offset;
    this.pushedByRecord = 0;
  }

  push(role: TurnRole, kind: TurnKind, ts: string, text: string): number {
    this.run = null;
    const seq = this.next++;
    if (role === 'user' && kind === 'message' && this.record !== null && this.pushedByRecord === 0)
      this.resume = { offset: this.record, seq };
    this.pushedByRecord++;
    if (this.before === null || seq < this.before) {
      const turn: Turn = { seq, role, kind, ts, text: '', clipped: false, tools: [] };
      setText(turn, text);
      this.turns.push(turn);
      if (this.turns.length > MAX_TURNS) {
        const gone = this.turns.shift()!;
        this.seal(gone);
        this.emit(gone);
        this.first++;
      }
    }
    return seq;
  }

  /** A turn leaves the sink only redacted; its secrets go to the feed if it asked. */
  private seal(t: Turn): void {
    const feed = this.feed;
    seal(t, feed?.secret === undefined ? undefined : (s) => feed.secret?.(t.seq, s));
  }

  /** Hand a turn the window let go of to the feed, if there is one and the turn says anything. */
  private emit(t: Turn): void {
    if (this.feed === null) return;
    if (!this.began) {
      this.began = true;
      this.feed.begin(this.origin);
    }
    if (t.text.length > 0 || t.tools.length > 0) this.feed.turn(t);
  }

  /** Start an assistant reply only if the last one is over; closes whatever was open. */
  endRun(): void {
    this.run = null;
  }

  /** Keep `seq` open for the records that follow (a Codex message before its calls). */
  keepOpen(seq: number): void {
    this.run = seq;
  }

  /**
   * The assistant turn this record belongs to: the open reply when `request` names it (or, without
   * a request id, when a run is open), else a new one.
   */
  openAssistant(ts: string, request: string | null): number {
    const roomy = (seq: number) => {
      const t = this.turn(seq);
      return t !== undefined && t.tools.length < MAX_TOOLS_PER_TURN;
    };
    if (request !== null) {
      if (this.runRequest !== null && this.runRequest.id === request && roomy(this.runRequest.seq)) {
        this.run = this.runRequest.seq;
        return this.runRequest.seq;
      }
    } else if (this.run !== null && roomy(this.run)) {
      return this.run;
    }
    const seq = this.push('assistant', 'message', ts, '');
    this.run = seq;
    if (request !== null) this.runRequest = { id: request, seq };
    return seq;
  }

  turn(seq: number): Turn | undefined {
    const at = seq - this.first;
    return at >= 0 ? this.turns[at] : undefined;
  }

  appendText(seq: number, text: string): void {
    const t = this.turn(seq);
    if (t) appendText(t, text);
  }

  addTool(seq: number, id: string | null, tool: ToolUse): void {
    const t = this.turn(seq);
    if (!t || t.tools.length >= MAX_TOOLS_PER_TURN) return;
    t.tools.push(tool);
    if (id !== null && id.length <= MAX_ID_CHARS) this.index.set(id, [seq, t.tools.length - 1]);
  }

  /** Attach a result to the call it answers, if that call is still in the window. */
  resolve(id: string, result: string, failed: boolean, delta: Delta | null): void {
    // Whatever the model says next is a new reply, whether or not the call is still in view.
    this.run = null;
    const at = this.index.get(id);
    if (at === undefined) return;
    this.index.delete(id);
    const tool = this.turn(at[0])?.tools[at[1]];
    if (!tool) return;
    // Recorded even when empty: a result's presence is what tells a finished call from a running one.
    tool.result = result;
    tool.failed = failed;
    if (delta) {
      tool.added = delta.added;
      tool.removed = delta.removed;
      tool.diff = delta.lines.slice(0, MAX_DIFF_LINES);
    }
  }

  finish(): Conversation {
    // Sealed and handed over one at a time: a feed takes a turn's secrets just before the turn.
    for (const t of this.turns) {
      this.seal(t);
      this.emit(t);
    }
    if (this.feed !== null) {
      if (!this.began) {
        this.began = true;
        this.feed.begin(this.origin);
      }
      this.feed.end(this.resume);
    }
    return {
      supported: true,
      turns: this.turns.filter((t) => t.text.length > 0 || t.tools.length > 0),
      earlier: this.first,
      note: null,
    };
  }
}
