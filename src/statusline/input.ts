/**
 * What Claude Code writes on a status line command's stdin, read into typed facts. Claude Code sends
 * one JSON object per run (2.1.x):
 *
 *   session_id, transcript_path, cwd, version, model: { id, display_name },
 *   workspace: { current_dir, project_dir }, cost: { total_cost_usd, … },
 *   context_window: { context_window_size, used_percentage, current_usage: { input_tokens,
 *     cache_creation_input_tokens, cache_read_input_tokens, … } },
 *   rate_limits: { five_hour: { used_percentage, resets_at }, seven_day: { … } }   (2.1.80+, Pro/Max)
 *
 * Every field may be missing (older versions, before the first response, rate limits off the
 * subscription) and any may hold something else: each is narrowed on its own, and what does not read
 * is null. Reading never throws; text that is not JSON reads as no input at all.
 *
 * Not here: making the strings safe to print (the line does, as it prints), or reading a transcript.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import type { Readable } from 'node:stream';
import { count, num, obj, parseJson, text } from '../model/json.js';

/**
 * The most of stdin read. Claude Code's object is about 1 KiB; 64 KiB leaves room for fields it may
 * add, and bounds what a runaway writer can make this process hold.
 */
export const MAX_STDIN_BYTES = 64 * 1024;

/**
 * How long stdin is waited for. Claude Code writes its object at once and closes the pipe; a status
 * line that waits longer than this for more would hold the next update back for nothing.
 */
export const STDIN_DEADLINE_MS = 1000;

/** The longest path or name kept: a transcript path is a few hundred characters. */
const MAX_FIELD_CHARS = 4096;

/** Claude Code's session ids are UUIDs; anything else in that field is not looked up. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** One rate-limit window: how much of it is used, and when it starts again. */
export interface LimitWindow {
  /** 0–100 as Claude Code reports it. */
  usedPercent: number;
  resetsAtMs: number | null;
}

export interface Limits {
  fiveHour: LimitWindow | null;
  sevenDay: LimitWindow | null;
}

export interface StatuslineInput {
  sessionId: string | null;
  transcriptPath: string | null;
  cwd: string | null;
  modelId: string | null;
  modelName: string | null;
  /** Claude Code's own figure for this session's cost so far. */
  costUsd: number | null;
  /** The newest request's prompt, in tokens (`current_usage`, or the share of the window given). */
  contextUsed: number | null;
  contextWindow: number | null;
  /** Null when Claude Code sent no rate limits (not a subscription, an older version, no response yet). */
  limits: Limits | null;
}

export const NO_INPUT: StatuslineInput = {
  sessionId: null,
  transcriptPath: null,
  cwd: null,
  modelId: null,
  modelName: null,
  costUsd: null,
  contextUsed: null,
  contextWindow: null,
  limits: null,
};

const field = (v: unknown): string | null => {
  const s = text(v);
  return s !== null && s.length <= MAX_FIELD_CHARS ? s : null;
};

/** Claude Code's object, read field by field; anything that is not one reads as no input. */
export function parseInput(raw: string): StatuslineInput {
  const o = obj(parseJson(raw));
  if (o === null) return NO_INPUT;
  const model = obj(o.model);
  const workspace = obj(o.workspace);
  const cost = obj(o.cost);
  const id = field(o.session_id);
  const window = context(obj(o.context_window));
  return {
    sessionId: id !== null && SESSION_ID.test(id) ? id : null,
    transcriptPath: field(o.transcript_path),
    cwd: field(workspace?.current_dir) ?? field(o.cwd),
    modelId: field(model?.id),
    modelName: field(model?.display_name),
    costUsd: cost ? count(cost.total_cost_usd) : null,
    contextUsed: window.used,
    contextWindow: window.size,
    limits: limits(obj(o.rate_limits)),
  };
}

function context(cw: Record<string, unknown> | null): { used: number | null; size: number | null } {
  if (cw === null) return { used: null, size: null };
  const size = count(cw.context_window_size);
  const u = obj(cw.current_usage);
  if (u !== null) {
    const parts = [u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens].map(count);
    if (parts.some((p) => p !== null)) return { used: parts.reduce<number>((n, p) => n + (p ?? 0), 0), size };
  }
  const pct = count(cw.used_percentage);
  return { used: pct !== null && size !== null ? Math.round((pct / 100) * size) : null, size };
}

function limits(rl: Record<string, unknown> | null): Limits | null {
  if (rl === null) return null;
  const fiveHour = limitWindow(obj(rl.five_hour));
  const sevenDay = limitWindow(obj(rl.seven_day));
  return fiveHour === null && sevenDay === null ? null : { fiveHour, sevenDay };
}

/** Seconds since the epoch below this are seconds; above, milliseconds (year 2286 either way). */
const SECONDS_BELOW = 1e10;

function limitWindow(w: Record<string, unknown> | null): LimitWindow | null {
  const used = w ? count(w.used_percentage) : null;
  if (w === null || used === null) return null;
  return { usedPercent: used, resetsAtMs: resetTime(w.resets_at) };
}

/** `resets_at` as epoch seconds (what Claude Code sends), milliseconds, or an ISO time. */
function resetTime(v: unknown): number | null {
  const n = num(v);
  if (n !== null && n > 0) return n < SECONDS_BELOW ? n * 1000 : n;
  const s = field(v);
  const ms = s === null ? Number.NaN : Date.parse(s);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * Stdin as text, up to `maxBytes` and until `deadlineMs`: what arrived by then (possibly nothing).
 * A terminal is not waited on (someone ran `cctop statusline` by hand). Never rejects.
 */
export async function readInput(
  stream: Readable & { isTTY?: boolean },
  maxBytes = MAX_STDIN_BYTES,
  deadlineMs = STDIN_DEADLINE_MS,
): Promise<string> {
  return (await streamBytes(stream, maxBytes, deadlineMs)).toString('utf8');
}

/** `readInput`'s bytes, before they are decoded. */
function streamBytes(
  stream: Readable & { isTTY?: boolean },
  maxBytes: number,
  deadlineMs: number,
): Promise<Buffer> {
  if (stream.isTTY === true) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', done);
      stream.off('error', done);
      // Nothing more is wanted: a writer still holding the pipe must not keep this process alive.
      stream.destroy();
      resolve(Buffer.concat(chunks).subarray(0, maxBytes));
    };
    const onData = (c: Buffer | string) => {
      const b = typeof c === 'string' ? Buffer.from(c) : c;
      chunks.push(b);
      size += b.length;
      if (size >= maxBytes) done();
    };
    const timer = setTimeout(done, deadlineMs);
    stream.on('data', onData);
    stream.once('end', done);
    stream.once('error', done);
  });
}

/**
 * How long a read of an empty pipe waits before it looks again. Claude Code writes its object at once,
 * usually before node has started; this is the most a line can lose to a writer that is a moment late.
 */
const PIPE_POLL_MS = 2;

/** Descriptor 0 again, as a new non-blocking read of the same pipe (Linux's `/proc`), or null. */
function pipeAgain(): number | null {
  try {
    return openSync('/proc/self/fd/0', constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    // No `/proc` (macOS), or not a pipe that can be opened again (a socket: ENXIO).
    return null;
  }
}

/**
 * This process's own stdin (descriptor 0), read as `readInput` reads a stream, to the same bounds,
 * without making `process.stdin` where it can: on a pipe that is a socket stream, and making it
 * (`net` and node's stream machinery) cost the status line about 4 ms of CPU, more than everything
 * else it reads. A file is read as it is; a pipe is opened again, non-blocking, so that a writer
 * holding it open costs the deadline and no more, and looked at every `PIPE_POLL_MS` until it ends.
 * A socket (what node's `spawn` gives a child), or a pipe where `/proc` is missing, goes through
 * `process.stdin` as before: a blocking read of it could not be given up at the deadline.
 */
export async function readOwnInput(
  maxBytes = MAX_STDIN_BYTES,
  deadlineMs = STDIN_DEADLINE_MS,
): Promise<string> {
  let st: Stats;
  try {
    st = fstatSync(0);
  } catch {
    // No descriptor 0 at all (closed by whoever started this): nothing to read.
    return '';
  }
  // A terminal (someone ran `cctop statusline` by hand) is not waited on; nor is any other device.
  if (st.isCharacterDevice()) return '';
  if (st.isFile()) return readFile(0, maxBytes);
  const fd = st.isFIFO() ? pipeAgain() : null;
  if (fd === null) return readInput(process.stdin, maxBytes, deadlineMs);
  try {
    return await readPipe(fd, maxBytes, Date.now() + deadlineMs);
  } finally {
    closeSync(fd);
  }
}

/** Up to `maxBytes` of the file open at `fd`, from where it stands. */
function readFile(fd: number, maxBytes: number): string {
  const buf = Buffer.allocUnsafe(maxBytes);
  let size = 0;
  try {
    while (size < maxBytes) {
      const n = readSync(fd, buf, size, maxBytes - size, null);
      if (n === 0) break;
      size += n;
    }
  } catch {
    // A read that failed part way: what came before it, as a stream that errs gives.
  }
  return buf.toString('utf8', 0, size);
}

/** Up to `maxBytes` of the non-blocking pipe `fd`, until it ends or the clock passes `untilMs`. */
async function readPipe(fd: number, maxBytes: number, untilMs: number): Promise<string> {
  const buf = Buffer.allocUnsafe(maxBytes);
  let size = 0;
  while (size < maxBytes) {
    let n: number;
    try {
      n = readSync(fd, buf, size, maxBytes - size, null);
    } catch (err) {
      const code = err instanceof Error && 'code' in err ? err.code : null;
      // Anything but "nothing yet" ends the read with what came, as a stream that errs does.
      if (code !== 'EAGAIN' || Date.now() >= untilMs) break;
      await new Promise((r) => setTimeout(r, PIPE_POLL_MS));
      continue;
    }
    if (n === 0) break;
    size += n;
  }
  return buf.toString('utf8', 0, size);
}
