/**
 * The fast Codex extractor: `CodexLine` straight from a rollout line's bytes, equal to `lineFromJson`
 * of the parsed line (proved on every corpus line). A small payload is simply parsed; a large one (a
 * tool's output, encrypted reasoning, the session's instructions) is walked for the few fields used.
 */
import { isoMs, obj } from '../../model/json.js';
import {
  has,
  hasEscape,
  Interner,
  IS,
  isoMsAt,
  Keys,
  kind,
  lineObject,
  MemberLog,
  members,
  numberAt,
  SkimError,
  stringAt,
  stringPrefixAt,
  value,
} from '../skim.js';
import { codexPolicy } from './permission.js';
import {
  type CodexLine,
  type CodexTokenUsage,
  LOCAL_SHELL,
  lineFrom,
  outputFailed,
  READ_EVENTS,
  SAID_ITEMS,
  sandboxName,
  spawnedBy,
  userWords,
} from './record.js';

const TOP = new Keys(['type', 'timestamp', 'payload']);
const PAYLOAD = new Keys([
  'type',
  'id',
  'cwd',
  'git',
  'model',
  'effort',
  'reasoning_effort',
  'approval_policy',
  'sandbox_policy',
  'name',
  'call_id',
  'output',
  'message',
  'info',
  'rate_limits',
  'role',
  'source',
]);
const P = {
  type: 0,
  id: 1,
  cwd: 2,
  git: 3,
  model: 4,
  effort: 5,
  reasoning_effort: 6,
  approval_policy: 7,
  sandbox_policy: 8,
  name: 9,
  call_id: 10,
  output: 11,
  message: 12,
  info: 13,
  rate_limits: 14,
  role: 15,
  source: 16,
} as const;
const SUCCESS = new Keys(['success']);
/** What a token count's `info` holds, and what each of its two usages holds. */
const INFO = new Keys(['total_token_usage', 'last_token_usage', 'model_context_window']);
const USAGE = new Keys([
  'input_tokens',
  'cached_input_tokens',
  'output_tokens',
  'reasoning_output_tokens',
  'total_tokens',
]);
const U = { input: 0, cached: 1, output: 2, reasoning: 3, total: 4 } as const;
/** The members `sandboxName` reads of a sandbox policy object. */
const SANDBOX = new Keys(['type', 'mode']);

const top = new Int32Array(TOP.names.length * 2);
const pay = new Int32Array(PAYLOAD.names.length * 2);
const one = new Int32Array(2);
const two = new Int32Array(4);
const info = new Int32Array(INFO.names.length * 2);
const use = new Int32Array(USAGE.names.length * 2);

/**
 * Every member of the line last walked whole, and of the payload walked in it, for drift's sample of
 * their keys (`known.ts`).
 */
export const topLog = new MemberLog();
export const payloadLog = new MemberLog();

const types = new Interner();
const payloadTypes = new Interner();
const names = new Interner();

const span = (spans: Int32Array, slot: number): [number, number] => [spans[2 * slot]!, spans[2 * slot + 1]!];

function str(b: Buffer, spans: Int32Array, slot: number): string | null {
  return has(spans, slot) ? stringAt(b, spans[2 * slot]!, spans[2 * slot + 1]!) : null;
}

function txt(b: Buffer, spans: Int32Array, slot: number): string | null {
  const s = str(b, spans, slot);
  return s !== null && s.length > 0 ? s : null;
}

/** Parsed value of a member, for the small ones (a git block, a sandbox policy). */
function parsed(b: Buffer, spans: Int32Array, slot: number): unknown {
  return has(spans, slot) ? value(b, spans[2 * slot]!, spans[2 * slot + 1]!) : undefined;
}

/**
 * The old (codex-cli 0.4x) output envelope ends `,"metadata":{"exit_code":N,"duration_seconds":X}}`
 * inside the string, so the exit code can be read off the tail without decoding a large output.
 */
const ENVELOPE_TAIL = /,\\"metadata\\":\{\\"exit_code\\":(-?\d+),\\"duration_seconds\\":[-0-9.eE+]+\}\}"$/;

/**
 * How much of a text output is decoded for the failure rules: they read at most the first 200
 * characters after leading whitespace (`outputFailed`), so 256 leave room for a little of it; an
 * output that opens with more whitespace than that is decoded whole. Decoding more only costs: a
 * prefix of this many characters is up to six times as many bytes, scanned and then decoded.
 */
const OUTPUT_PREFIX_CHARS = 256;

/** `outputFailed` of a string output that opens with `{` (after any whitespace). */
function envelopeFailed(b: Buffer, s: number, e: number): boolean {
  const tail = ENVELOPE_TAIL.exec(b.toString('latin1', Math.max(s, e - 160), e));
  if (tail) return Number(tail[1]) !== 0;
  return outputFailed(stringAt(b, s, e));
}

function failedAt(b: Buffer, s: number, e: number): boolean {
  switch (kind(b, s)) {
    case IS.STRING: {
      // Most outputs are the shell's JSON envelope, `{` first: known without decoding anything.
      if (b[s + 1] === 0x7b) return envelopeFailed(b, s, e);
      const head = stringPrefixAt(b, s, e, OUTPUT_PREFIX_CHARS) ?? '';
      const trimmed = head.trimStart();
      const whole = e - s <= OUTPUT_PREFIX_CHARS + 2;
      if (trimmed.startsWith('{')) return envelopeFailed(b, s, e);
      // The text rules read at most the first 200 characters after leading whitespace.
      if (whole || trimmed.length >= 200) return outputFailed(trimmed);
      return outputFailed(stringAt(b, s, e));
    }
    case IS.OBJECT: {
      members(b, s, e, SUCCESS, one);
      return has(one, 0) && b.toString('latin1', one[0]!, one[1]!) === 'false';
    }
    default:
      return false;
  }
}

/** Where the payload whose members `pay` holds starts, or -1. */
let payAt = -1;

/**
 * Offered the line's payload while the line is walked, so its bytes (nearly all of a line's) are
 * walked once rather than skipped and then walked again. A payload the member walk rejects is left
 * to be skipped, which rejects it too (the skim holds skipped values to JSON's grammar): the line is
 * bad, whichever payload it was.
 */
function walkPayload(b: Buffer, vs: number, end: number): number {
  if (kind(b, vs) !== IS.OBJECT) return -1;
  try {
    const after = members(b, vs, end, PAYLOAD, pay, undefined, payloadLog);
    payAt = vs;
    return after;
  } catch (err) {
    if (err instanceof SkimError) return -1;
    throw err;
  }
}

/**
 * The line's timestamp as written: decoded only for the lines `lineFrom` reads (a token count keeps
 * it as the event's identity), not for the calls, outputs and reasoning that are most lines.
 */
const stampOf = (b: Buffer): string | null => (has(top, 1) ? stringAt(b, top[2]!, top[3]!) : null);

/**
 * The line being walked and where it ends, for `visitTop`: a module function rather than a closure
 * made afresh for every line. Let go once the line is walked: its buffer may be a long line's.
 */
const NO_LINE = Buffer.alloc(0);
let cur: Buffer = NO_LINE;
let curEnd = 0;

const visitTop = (slot: number, vs: number): number => (slot === 2 ? walkPayload(cur, vs, curEnd) : -1);

/** Project a rollout line from its bytes; throws `SkimError` when it is not a JSON object. */
export function lineFromBytes(b: Buffer, start: number, end: number): CodexLine {
  payAt = -1;
  cur = b;
  curEnd = end;
  try {
    lineObject(b, start, end, TOP, top, visitTop, topLog);
  } finally {
    cur = NO_LINE;
  }
  const type = has(top, 0) ? types.at(b, top[0]!, top[1]!) : null;
  const ms = has(top, 1) ? isoMsAt(b, top[2]!, top[3]!, isoMs) : null;
  if (!has(top, 2) || kind(b, top[4]!) !== IS.OBJECT) return lineFrom(type, stampOf(b), ms, {});
  const [ps, pe] = span(top, 2);

  // A repeated `payload` key: the walk may have noted another one than the last, which JSON.parse keeps.
  if (payAt !== ps) members(b, ps, pe, PAYLOAD, pay);
  const ptype = has(pay, P.type) ? payloadTypes.at(b, pay[0]!, pay[1]!) : null;
  switch (type) {
    case 'session_meta':
      return {
        kind: 'meta',
        ms,
        id: txt(b, pay, P.id),
        cwd: txt(b, pay, P.cwd),
        branch: branchOf(parsed(b, pay, P.git)),
        // A small object (or a word): parsed, unlike the instructions beside it.
        parent: spawnedBy(parsed(b, pay, P.source)),
      };
    case 'turn_context': {
      const sandbox = sandboxAt(b, pay, P.sandbox_policy);
      const approval = str(b, pay, P.approval_policy);
      return {
        kind: 'context',
        ms,
        model: txt(b, pay, P.model),
        effort: txt(b, pay, P.effort) ?? txt(b, pay, P.reasoning_effort),
        cwd: txt(b, pay, P.cwd),
        policy: codexPolicy(approval, sandbox),
      };
    }
    case 'compacted':
      return { kind: 'compaction', ms, marker: 'compacted' };
    case 'response_item':
      switch (ptype) {
        case 'function_call':
        case 'custom_tool_call': {
          const name = has(pay, P.name) ? names.at(b, pay[2 * P.name]!, pay[2 * P.name + 1]!) : null;
          return name ? { kind: 'call', ms, id: txt(b, pay, P.call_id), name } : { kind: 'activity', ms };
        }
        case 'local_shell_call':
          return { kind: 'call', ms, id: txt(b, pay, P.call_id), name: LOCAL_SHELL };
        case 'function_call_output':
        case 'custom_tool_call_output': {
          const failed = has(pay, P.output) ? failedAt(b, ...span(pay, P.output)) : outputFailed(undefined);
          return { kind: 'output', ms, id: txt(b, pay, P.call_id), failed };
        }
        case 'message': {
          // Only a user's message can be a prompt; it is parsed whole (they are few and short).
          const role = str(b, pay, P.role);
          if (role === 'assistant') return { kind: 'said', ms };
          if (role !== 'user') return { kind: 'activity', ms };
          return lineFrom(type, stampOf(b), ms, obj(value(b, ps, pe)) ?? {});
        }
        default:
          return ptype !== null && SAID_ITEMS.has(ptype) ? { kind: 'said', ms } : { kind: 'activity', ms };
      }
    case 'event_msg':
      if (ptype === 'user_message') {
        const message = str(b, pay, P.message);
        return message !== null ? { kind: 'prompt', ms, text: userWords(message) } : { kind: 'activity', ms };
      }
      if (ptype === 'token_count') return tokensAt(b, ms, stampOf(b) ?? '');
      if (ptype === null || !READ_EVENTS.has(ptype)) return { kind: 'activity', ms };
      return lineFrom(type, stampOf(b), ms, obj(value(b, ps, pe)) ?? {});
    default:
      return { kind: 'other', ms };
  }
}

/**
 * A token count as `lineFrom` reads it, with its `info` read off the bytes: a count is written after
 * every response, and its `rate_limits` (kept whole, so parsed) are the only part worth a parse.
 */
function tokensAt(b: Buffer, ms: number | null, stamp: string): CodexLine {
  let last: CodexTokenUsage | null = null;
  let total: CodexTokenUsage | null = null;
  let window: number | null = null;
  if (has(pay, P.info) && kind(b, pay[2 * P.info]!) === IS.OBJECT) {
    // An escaped key may spell a count's name: only a parse can say. (A number JSON refuses never
    // gets here: the walk that located `info` held every number in the line to JSON's grammar.)
    if (hasEscape(b, pay[2 * P.info]!, pay[2 * P.info + 1]!))
      return lineFrom('event_msg', stamp, ms, {
        type: 'token_count',
        info: parsed(b, pay, P.info),
        rate_limits: parsed(b, pay, P.rate_limits),
      });
    members(b, pay[2 * P.info]!, pay[2 * P.info + 1]!, INFO, info);
    last = usageAt(b, info, 1);
    total = usageAt(b, info, 0);
    const w = countAt(b, info, 2);
    window = w !== null && w > 0 ? w : null;
  }
  return { kind: 'tokens', ms, stamp, last, total, window, rateLimits: obj(parsed(b, pay, P.rate_limits)) };
}

/** A non-negative number member, as `count` reads the parsed value; null when it is anything else. */
function countAt(b: Buffer, spans: Int32Array, slot: number): number | null {
  if (!has(spans, slot)) return null;
  const n = numberAt(b, spans[2 * slot]!, spans[2 * slot + 1]!);
  return n !== null && n >= 0 ? n : null;
}

/** `tokenUsage` (record.ts) of the usage object in member `slot`, read off the bytes. */
function usageAt(b: Buffer, spans: Int32Array, slot: number): CodexTokenUsage | null {
  if (!has(spans, slot) || kind(b, spans[2 * slot]!) !== IS.OBJECT) return null;
  members(b, spans[2 * slot]!, spans[2 * slot + 1]!, USAGE, use);
  const input = countAt(b, use, U.input);
  const output = countAt(b, use, U.output);
  if (input === null && output === null) return null;
  return {
    input: input ?? 0,
    cached: countAt(b, use, U.cached) ?? 0,
    output: output ?? 0,
    reasoning: countAt(b, use, U.reasoning) ?? 0,
    total: countAt(b, use, U.total) ?? (input ?? 0) + (output ?? 0),
  };
}

/**
 * `sandboxName` of the policy, read off its bytes: an object's `type` or else its `mode`, a bare
 * string as itself. Every turn names its policy, and parsing the object on every turn was most of
 * what reading a turn's context cost.
 */
function sandboxAt(b: Buffer, spans: Int32Array, slot: number): string | null {
  if (!has(spans, slot)) return null;
  const s = spans[2 * slot]!;
  const e = spans[2 * slot + 1]!;
  // An escaped key may spell `type`: only a parse can say. (The walk already refused a line with
  // a number JSON refuses.)
  if (kind(b, s) !== IS.OBJECT || hasEscape(b, s, e)) return sandboxName(value(b, s, e));
  members(b, s, e, SANDBOX, two);
  return str(b, two, 0) ?? str(b, two, 1);
}

function branchOf(git: unknown): string | null {
  const branch = obj(git)?.branch;
  return typeof branch === 'string' && branch.length > 0 ? branch : null;
}
