/**
 * Reading what another machine's `cctop chat ID --json` and `cctop report ID --json` printed. Like
 * its session document (`remote-doc.ts`), it crossed a network from a program cctop does not
 * control: parsed under the depth bound, then rebuilt field by field into the very types a local
 * read makes (`Conversation`, `SessionReport`), so every view draws a remote answer with the code
 * that draws a local one. A field of the wrong type reads as unknown (`null`, or the empty value a
 * local read gives when the harness recorded nothing); every text is cut to the bound a local read
 * keeps it to, and every list to a bound, so one oversized answer cannot slow a redraw.
 *
 * Text is kept as data: a control character in a message stays in the value, and the renderers make
 * it safe where it is printed (`views/terminal-text.ts`), as they do a local transcript's.
 *
 * This module reads the conversation and holds the small readers both use; the report is
 * `fetch-report.ts`'s. Not here: running ssh (`fetch.ts`, `ssh.ts`).
 */
import {
  type Conversation,
  MAX_DIFF_LINES,
  MAX_RESULT_CHARS,
  MAX_TEXT_CHARS,
  MAX_TOOLS_PER_TURN,
  MAX_TURNS,
  type ToolUse,
  type Turn,
  type TurnKind,
  type TurnRole,
} from '../model/conversation.js';
import { PROVIDERS, type ProviderId } from '../model/facts.js';
import { arr, bool, count, obj, str } from '../model/json.js';
import { MAX_DETAIL_CHARS, MAX_FULL_CHARS } from '../model/tools.js';
import { printedJson } from './printed.js';
import { MAX_REMOTE_TEXT_CHARS } from './remote-doc.js';

/**
 * What `cctop chat ID --json` prints: which session (its title and project, null when the remote
 * cctop does not say), the turn `--at` asked for, and its conversation.
 */
export type ChatAnswer = Conversation & {
  session: string;
  provider: ProviderId;
  title: string | null;
  project: string | null;
  at?: number;
};

/** A remote answer read, or why it is not one (in words that finish "the cctop there printed …"). */
export type AnswerReading<T> =
  | { kind: 'read'; value: T }
  | { kind: 'not-an-answer'; why: string }
  | { kind: 'version'; remote: number; ours: number };

export const oneOf = <T extends string>(list: readonly T[], v: unknown): T | null =>
  typeof v === 'string' && (list as readonly string[]).includes(v) ? (v as T) : null;

/**
 * Room for the mark a local read puts after what it cut (`…` after a result, `…(clipped)` after an
 * argument), so a remote answer cut there by the remote cctop reads back whole.
 */
export const CUT_MARK_CHARS = '…(clipped)'.length;

/** `s` cut to `max` characters (as a local read counts them: a surrogate pair is one), never between a pair's halves. */
export function cut(s: string, max: number): string {
  // At most `max` UTF-16 units is at most `max` characters.
  if (s.length <= max) return s;
  let at = 0;
  for (let chars = 0; chars < max && at < s.length; chars++) {
    const c = s.charCodeAt(at);
    at += (c & 0xfc00) === 0xd800 && (s.charCodeAt(at + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return s.slice(0, at);
}

/** Text cut to `max`; null when not text. */
export const textOf = (v: unknown, max = MAX_REMOTE_TEXT_CHARS): string | null => {
  const s = str(v);
  return s === null ? null : cut(s, max);
};

/** A whole number at least zero (a turn's place, a count), or null. */
export const whole = (v: unknown): number | null => {
  const n = count(v);
  return n !== null && Number.isInteger(n) ? n : null;
};

/** An ISO timestamp as text, or null. */
export const isoText = (v: unknown): string | null => {
  const s = str(v);
  return s !== null && s.length <= 40 && Number.isFinite(Date.parse(s)) ? s : null;
};

/** The items of `v` that `read` makes something of, at most `max` of them (the first). */
export function listOf<T>(v: unknown, max: number, read: (x: unknown) => T | null): T[] {
  const out: T[] = [];
  for (const x of (arr(v) ?? []).slice(0, max)) {
    const r = read(x);
    if (r !== null) out.push(r);
  }
  return out;
}

/** The answer's JSON object, or why there is none. */
export function answerObject(
  bytes: Buffer,
): { kind: 'read'; o: Record<string, unknown> } | { kind: 'not'; why: string } {
  const r = printedJson(bytes);
  if (r.kind === 'not') return r;
  const o = obj(r.value);
  return o === null
    ? { kind: 'not', why: 'it printed something that is not a JSON object' }
    : { kind: 'read', o };
}

const ROLES: readonly TurnRole[] = ['user', 'assistant', 'system'];
const KINDS: readonly TurnKind[] = ['message', 'reasoning', 'compaction'];

function toolOf(v: unknown): ToolUse | null {
  const o = obj(v);
  const name = o === null ? null : textOf(o.name);
  if (o === null || name === null) return null;
  const full = textOf(o.full, MAX_FULL_CHARS + CUT_MARK_CHARS);
  const result = textOf(o.result, MAX_RESULT_CHARS + CUT_MARK_CHARS);
  return {
    name,
    detail: textOf(o.detail, MAX_DETAIL_CHARS) ?? '',
    full,
    result,
    failed: bool(o.failed),
    added: whole(o.added) ?? 0,
    removed: whole(o.removed) ?? 0,
    diff: listOf(o.diff, MAX_DIFF_LINES, (l) => textOf(l)),
  };
}

/** One turn; null without the place and the speaker every view needs. */
function turnOf(v: unknown): Turn | null {
  const o = obj(v);
  if (o === null) return null;
  const seq = whole(o.seq);
  const role = oneOf(ROLES, o.role);
  if (seq === null || role === null) return null;
  const raw = str(o.text) ?? '';
  const text = cut(raw, MAX_TEXT_CHARS);
  return {
    seq,
    role,
    kind: oneOf(KINDS, o.kind) ?? 'message',
    ts: isoText(o.ts) ?? '',
    text,
    clipped: bool(o.clipped) || text.length < raw.length,
    tools: listOf(o.tools, MAX_TOOLS_PER_TURN, toolOf),
  };
}

/** `cctop chat ID --json` from another machine, read as hostile input. */
export function readChatAnswer(bytes: Buffer): AnswerReading<ChatAnswer> {
  const a = answerObject(bytes);
  if (a.kind === 'not') return { kind: 'not-an-answer', why: a.why };
  const o = a.o;
  const session = textOf(o.session);
  const provider = oneOf(PROVIDERS, o.provider);
  if (session === null || session === '' || provider === null)
    return { kind: 'not-an-answer', why: 'its answer names no session of a harness this cctop knows' };
  const all = arr(o.turns) ?? [];
  // The newest turns, as a local read keeps them; those left out are counted with the earlier ones.
  const left = Math.max(0, all.length - MAX_TURNS);
  const turns = listOf(all.slice(left), MAX_TURNS, turnOf);
  const at = whole(o.at);
  return {
    kind: 'read',
    value: {
      session,
      provider,
      title: textOf(o.title),
      project: textOf(o.project),
      ...(at === null ? {} : { at }),
      supported: bool(o.supported),
      turns,
      earlier: (whole(o.earlier) ?? 0) + left,
      note: textOf(o.note),
    },
  };
}
