/**
 * What cctop knows of Codex's rollout records, for `cctop doctor`'s drift count
 * (`providers/drift.ts`): each record's type (`type`, or `type/payload.type`) and top-level fields, as
 * the versions it was written against write them (0.169.0 in the lab, releases back to 0.40 before).
 * A name missing here is one a newer Codex added, counted against the `cli_version` its
 * `session_meta` named. Not here: what any record means (`record.ts`).
 */
import { type JsonObject, obj, str } from '../../model/json.js';
import type { DriftReader, Known, Sampled } from '../drift.js';
import { eachOwnMember, KeyNames, ownKeys, plainText } from '../drift-skim.js';
import { hasEscape, Keys } from '../skim.js';
import { payloadLog, topLog } from './bytes.js';

export const CODEX_KNOWN: Known = {
  types: new Set([
    'session_meta',
    'turn_context',
    'world_state',
    'token_usage_record',
    'compacted',
    'inter_agent_communication_metadata',
    // `codex exec --json`'s events, when a stream is saved as a rollout.
    'thread.started',
    'turn.started',
    'turn.completed',
    'item.started',
    'item.completed',
    // A record whose payload does not open with its type is sampled under the record's type alone.
    'event_msg',
    'response_item',
    ...[
      'account/rateLimits/updated',
      'agent_message',
      'agent_reasoning',
      'collab_agent_interaction_end',
      'collab_agent_spawn_end',
      'collab_close_end',
      'collab_waiting_end',
      'context_compacted',
      'dynamic_tool_call_request',
      'dynamic_tool_call_response',
      'entered_review_mode',
      'error',
      'exec_command_end',
      'exited_review_mode',
      'guardian_assessment',
      'image_generation_end',
      'item_completed',
      'mcp_tool_call_end',
      'patch_apply_end',
      'sub_agent_activity',
      'task_complete',
      'task_started',
      'thread_goal_updated',
      'thread_name_updated',
      'thread_settings_applied',
      'token_count',
      'turn_aborted',
      'undo_completed',
      'user_message',
      'view_image_tool_call',
      'web_search_end',
    ].map((t) => `event_msg/${t}`),
    ...[
      'agent_message',
      'custom_tool_call',
      'custom_tool_call_output',
      'function_call',
      'function_call_output',
      'ghost_snapshot',
      'image_generation_call',
      'local_shell_call',
      'message',
      'reasoning',
      'tool_search_call',
      'tool_search_output',
      'web_search_call',
    ].map((t) => `response_item/${t}`),
  ]),
  fields: new Set(['timestamp', 'ordinal', 'type', 'payload', 'metadata', 'item', 'thread_id', 'usage']),
};

/** Bytes looked at for a record's type: Codex writes `timestamp`, `ordinal` and `type` first. */
const PEEK_BYTES = 256;
/**
 * The layout `peekCodexType` reads, as a pattern over the first `PEEK_BYTES` (read as latin1): what
 * the byte reading below matches, byte for byte (the tests hold the two equal).
 */
export const TYPE_AT =
  /^\{"timestamp":"[^"]*"(?:,"ordinal":\d+)?,"type":"([a-z_.]+)"(?:,"payload":\{"type":"([a-z_/]+)")?/;

const word = (w: string) => Buffer.from(w, 'latin1');
const OPENING = word('{"timestamp":"');
const ORDINAL = word(',"ordinal":');
const TYPE = word(',"type":"');
const PAYLOAD_TYPE = word(',"payload":{"type":"');
const QUOTE = 0x22;

/** Where the bytes `w` end if they stand at `b[i]` before `limit`, else -1. */
function after(b: Buffer, i: number, limit: number, w: Uint8Array): number {
  if (i + w.length > limit) return -1;
  for (let k = 0; k < w.length; k++) if (b[i + k] !== w[k]) return -1;
  return i + w.length;
}

const isLower = (c: number): boolean => c >= 0x61 && c <= 0x7a;
/** `[a-z_.]`, a record type's characters. */
const typeChar = (c: number): boolean => isLower(c) || c === 0x5f || c === 0x2e;
/** `[a-z_/]`, a payload type's characters. */
const payloadChar = (c: number): boolean => isLower(c) || c === 0x5f || c === 0x2f;

/** `"word"`'s characters from `b[i]` up to a closing quote before `limit`: where the quote is, or -1. */
function wordEnd(b: Buffer, i: number, limit: number, ok: (c: number) => boolean): number {
  let k = i;
  while (k < limit && ok(b[k]!)) k++;
  return k > i && k < limit && b[k] === QUOTE ? k : -1;
}

/**
 * Types a file's lines name, kept by the bytes that named them (`PeekedTypes`); past this many the
 * oldest is replaced. Codex writes about twenty kinds of record, a rollout a dozen of them.
 */
const PEEKED_TYPES = 32;

/**
 * The strings `peekCodexType` made, by their bytes (`type` alone, or `type","payload":{"type":"inner`,
 * which names both halves: a type holds no quote). A line's type is looked up rather than decoded:
 * decoding it (two `toString`s and a concatenation on every line) cost more than the peek's reading,
 * and a string made afresh is hashed afresh by every lookup drift makes with it.
 */
class PeekedTypes {
  private readonly bytes: Uint8Array[] = [];
  private readonly values: string[] = [];
  private next = 0;

  /** The string kept for the bytes `b[s..e)`, or undefined when they were not seen (`keep` them). */
  find(b: Buffer, s: number, e: number): string | undefined {
    const len = e - s;
    for (let k = 0; k < this.bytes.length; k++) {
      const known = this.bytes[k]!;
      if (known.length !== len) continue;
      let i = len - 1;
      while (i >= 0 && b[s + i] === known[i]) i--;
      if (i < 0) return this.values[k];
    }
    return undefined;
  }

  keep(b: Buffer, s: number, e: number, v: string): string {
    this.bytes[this.next] = new Uint8Array(b.subarray(s, e));
    this.values[this.next] = v;
    this.next = (this.next + 1) % PEEKED_TYPES;
    return v;
  }
}

const peeked = new PeekedTypes();

/**
 * A record's type from its first bytes, without parsing it, for the lines past their samples; `undefined`
 * when the line is not laid out as Codex writes it (the tally then samples it as a typeless line).
 * Read byte by byte, as `TYPE_AT` reads them: this runs for every line.
 */
export function peekCodexType(b: Buffer, start: number, end: number): string | undefined {
  const limit = Math.min(end, start + PEEK_BYTES);
  let i = after(b, start, limit, OPENING);
  if (i < 0) return undefined;
  while (i < limit && b[i] !== QUOTE) i++;
  if (i >= limit) return undefined;
  i++;
  const ordinal = after(b, i, limit, ORDINAL);
  if (ordinal >= 0) {
    let k = ordinal;
    while (k < limit && b[k]! >= 0x30 && b[k]! <= 0x39) k++;
    if (k > ordinal) i = k;
  }
  i = after(b, i, limit, TYPE);
  if (i < 0) return undefined;
  const typeEnd = wordEnd(b, i, limit, typeChar);
  if (typeEnd < 0) return undefined;
  const inner = after(b, typeEnd + 1, limit, PAYLOAD_TYPE);
  const innerEnd = inner < 0 ? -1 : wordEnd(b, inner, limit, payloadChar);
  const named = innerEnd < 0 ? typeEnd : innerEnd;
  const seen = peeked.find(b, i, named);
  if (seen !== undefined) return seen;
  const type = b.toString('latin1', i, typeEnd);
  return peeked.keep(b, i, named, innerEnd < 0 ? type : `${type}/${b.toString('latin1', inner, innerEnd)}`);
}

const NAMES = new KeyNames(CODEX_KNOWN);
/** What drift reads of a payload: its type, and the version a `session_meta` names. */
const PAYLOAD = new Keys(['type', 'cli_version']);

/**
 * `CODEX_DRIFT`'s type, version and fields of a line from its bytes, as they are of the parsed line;
 * null (parse it instead) for an escaped key or string, in the line or in its payload, or a payload
 * whose members cannot be walked. Sampled lines are a third of a rollout's, and a parse of each
 * decoded its whole output or reasoning.
 */
function skimmedLine(b: Buffer, start: number, end: number): Sampled | null {
  let type: string | null | undefined = null;
  let ps = -1;
  let pe = -1;
  const fields = ownKeys(
    b,
    start,
    end,
    NAMES,
    (name, vs, ve) => {
      if (name === 'type') type = plainText(b, vs, ve);
      else if (name === 'payload') {
        ps = vs;
        pe = ve;
      }
    },
    topLog,
  );
  if (fields === null || type === undefined) return null;
  let inner: string | null | undefined = null;
  let version: string | null | undefined = null;
  if (ps >= 0 && b[ps] === 0x7b) {
    let sure = true;
    const whole = eachOwnMember(b, ps, pe, payloadLog, (ks, ke, vs, ve) => {
      // An escaped key may spell `type`: only a parse can say.
      if (hasEscape(b, ks, ke)) sure = false;
      const slot = PAYLOAD.slot(b, ks, ke);
      if (slot === 0) inner = plainText(b, vs, ve);
      else if (slot === 1) version = plainText(b, vs, ve);
    });
    if (!whole || !sure) return null;
    if (type !== 'session_meta') version = null;
  }
  if (inner === undefined || version === undefined) return null;
  return { type: type !== null && inner !== null ? `${type}/${inner}` : type, version, fields };
}

export const CODEX_DRIFT: DriftReader = {
  known: CODEX_KNOWN,
  type: (o: JsonObject) => {
    const type = str(o.type);
    const inner = str(obj(o.payload)?.type);
    return type !== null && inner !== null ? `${type}/${inner}` : type;
  },
  version: (o: JsonObject) => (o.type === 'session_meta' ? str(obj(o.payload)?.cli_version) : null),
  fields: (o: JsonObject) => Object.keys(o),
  skimmed: skimmedLine,
};
