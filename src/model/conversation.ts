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
 * ponytail: a subagent's records that share the parent's file are left out rather than nested under
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
  // Count characters, not UTF-16 units, so a cut never splits an emoji.
  const chars = Array.from(t);
  return chars.length > max
    ? { text: chars.slice(0, max).join(''), clipped: true }
    : { text: t, clipped: false };
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

  /**
   * @param before when set, the window ends just before this turn: later turns are still numbered
   * (so `earlier` agrees with other windows) and their records still read (a result can arrive after
   * the boundary for a call inside it), but they are not kept.
   */
  constructor(private readonly before: number | null = null) {}

  push(role: TurnRole, kind: TurnKind, ts: string, text: string): number {
    this.run = null;
    const seq = this.next++;
    if (this.before === null || seq < this.before) {
      const turn: Turn = { seq, role, kind, ts, text: '', clipped: false, tools: [] };
      setText(turn, text);
      this.turns.push(turn);
      if (this.turns.length > MAX_TURNS) {
        this.turns.shift();
        this.first++;
      }
    }
    return seq;
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
    return {
      supported: true,
      turns: this.turns.filter((t) => t.text.length > 0 || t.tools.length > 0),
      earlier: this.first,
      note: null,
    };
  }
}
