/**
 * OpenClaw's compressed transcript rows. Since 2026.9 OpenClaw stores an event of 1 KiB or more
 * (a long prompt or answer, a tool's output) as zstd (`event_zstd`, with its size in
 * `event_utf8_bytes`) instead of as text (`event_json`). Node has decompressed zstd since 22.15 and
 * 23.8 (`zlib.zstdDecompressSync`); on an older Node (20, the floor cctop runs on) the pure-JS
 * decompressor `fzstd` reads them instead, loaded the first time such a row is met, so an answer that
 * reads none never loads it.
 *
 * A row is as untrusted as a transcript line, and fzstd trusts its input more than Node does: it
 * sizes its window from the frame's header, takes a block's sizes as they come, and a handful of
 * bytes can make it loop for minutes (a block may claim 100,000 matches of 64 KiB each, which it
 * copies one byte at a time without checking they fit). So before either decompressor runs, the row's
 * frames are walked (`frameFacts`: headers and block headers only, no decoding), and a row that says
 * it holds more than `MAX_EVENT_BYTES` is refused before anything is allocated for it; fzstd then
 * runs on a window no larger than the event, counted chunk by chunk, and within `INFLATE_BUDGET_MS`.
 * A row refused says why, as its own reason; the rest of the session reads on.
 *
 * Not here: compressing anything, dictionaries (OpenClaw uses none: a frame that names one is not
 * one it wrote), or checking a frame's checksum on the fzstd path (fzstd skips it; Node checks it).
 */
import { createRequire } from 'node:module';
import * as vm from 'node:vm';
import * as zlib from 'node:zlib';
import { frameFacts, MAX_EVENT_BYTES } from './zstd-frames.js';

/**
 * How long fzstd may take over one row. The largest event OpenClaw stores (4 MiB of JSON, 1.3 MiB
 * compressed) took it 34 ms of CPU and 130 ms of wall time here, with ten runnable processes per
 * core; 2 s is fifteen times that, so an event OpenClaw wrote is not refused on a busy machine, and a
 * row that takes longer is one built to stall fzstd. The read of the whole session has its own budget
 * (`DB_READ_BUDGET_MS`, 10 s), checked between rows, so rows built so cannot add up to a hang either.
 * Node's own decompressor needs no budget: it checks what it reads, and its time follows its output,
 * which `MAX_EVENT_BYTES` bounds.
 *
 * known limit: the budget is wall time (what `vm` offers), so on a machine loaded past sixty times
 * what was measured, an event OpenClaw wrote could run out of it; its row is then named as stalled
 * until its session changes and is read again.
 */
export const INFLATE_BUDGET_MS = 2000;

/** Why a compressed row is not an event, each its own line in `cctop doctor`. */
export type InflateRefusal = 'zstd-unsupported' | 'zstd-damaged' | 'zstd-too-large' | 'zstd-stalled';

/** What one compressed row reads as: its event's text, or why it could not be read. */
export type Inflated = { kind: 'json'; json: string } | { kind: 'bad'; reason: InflateRefusal };

/** Which decompressor reads a row: Node's own when it has one, else fzstd. */
export type Decoder = 'node' | 'fzstd';

/** Node's zstd decompressor, found at run time (Node 20's zlib has none, nor do its types). */
type NodeInflate = (data: Uint8Array, maxOutputLength: number) => Buffer | null;

function nodeZstd(): NodeInflate | null {
  const f: unknown = Reflect.get(zlib, 'zstdDecompressSync');
  if (typeof f !== 'function') return null;
  return (data, maxOutputLength) => {
    const out: unknown = Reflect.apply(f, zlib, [data, { maxOutputLength }]);
    return Buffer.isBuffer(out) ? out : null;
  };
}

const nodeInflate = nodeZstd();

/** Whether this Node reads zstd itself (22.15 or newer); else fzstd reads OpenClaw's rows. */
export const nodeHasZstd = nodeInflate !== null;

/** fzstd's streaming decompressor: feeds `data`'s output to `onChunk` as it is made. */
type Stream = (data: Uint8Array, onChunk: (chunk: Uint8Array) => void) => void;

/** fzstd, once loaded: undefined until a row needs it, null when it cannot be loaded. */
let fzstd: Stream | null | undefined;

function loadFzstd(): Stream | null {
  let m: unknown;
  try {
    m = createRequire(import.meta.url)('fzstd');
  } catch {
    // A dependency missing from an install: rows then say they cannot be read, which is the truth.
    return null;
  }
  const Decompress: unknown = typeof m === 'object' && m !== null ? Reflect.get(m, 'Decompress') : undefined;
  if (typeof Decompress !== 'function') return null;
  return (data, onChunk) => {
    const d: unknown = Reflect.construct(Decompress, [
      (chunk: unknown) => {
        if (chunk instanceof Uint8Array) onChunk(chunk);
      },
    ]);
    const push: unknown = typeof d === 'object' && d !== null ? Reflect.get(d, 'push') : undefined;
    if (typeof push !== 'function') throw new Error('fzstd: a decompressor without push');
    Reflect.apply(push, d, [data, true]);
  };
}

/** Thrown from fzstd's output callback once its output passes `MAX_EVENT_BYTES`, to stop it there. */
class TooLarge extends Error {}

/**
 * A context to run fzstd in with a time limit: `vm`'s `timeout` stops whatever JavaScript runs
 * inside the call, fzstd's loops included, which nothing else can do to synchronous code short of a
 * thread of its own. Made the first time fzstd runs.
 */
let timed: { context: vm.Context; script: vm.Script; job: (() => void) | null } | null = null;

/** Run `job` within `budgetMs`: false when it ran out of time and was stopped. */
function withinTime(job: () => void, budgetMs: number): boolean {
  if (timed === null) {
    const t: { context: vm.Context; script: vm.Script; job: (() => void) | null } = {
      context: vm.createContext({}),
      script: new vm.Script('run()'),
      job: null,
    };
    t.context.run = () => t.job?.();
    timed = t;
  }
  timed.job = job;
  try {
    timed.script.runInContext(timed.context, { timeout: budgetMs });
    return true;
  } catch (err) {
    // Node's own error, made in whichever realm runs this module (a test runner's may be another).
    if (
      typeof err === 'object' &&
      err !== null &&
      Reflect.get(err, 'code') === 'ERR_SCRIPT_EXECUTION_TIMEOUT'
    )
      return false;
    throw err;
  } finally {
    timed.job = null;
  }
}

/**
 * The frames in `data` with each window descriptor lowered to the smallest window that holds `size`
 * bytes and a whole block, when it asks for more. fzstd allocates the window the header asks for and
 * moves it along at every block; an event's matches never reach further back than its own size, so
 * the smaller window decodes the same bytes. Never below a block (128 KiB): fzstd makes no more of a
 * block than the window holds, and a frame that makes more than it says must be seen to. A copy: the
 * row's own bytes are left as read.
 */
function smallWindows(data: Uint8Array, windowBytes: number[], size: number): Uint8Array {
  let log = 7; // 2^(10 + 7) = 128 KiB
  while (2 ** (10 + log) < size) log++;
  let out = data;
  for (const at of windowBytes) {
    const d = data[at]!;
    if (d >> 3 < log || (d >> 3 === log && (d & 7) === 0)) continue;
    if (out === data) out = new Uint8Array(data);
    out[at] = log << 3;
  }
  return out;
}

/** `data`'s output by fzstd: the text when it is `size` bytes, else why not. Unbounded in time. */
function byFzstd(stream: Stream, data: Uint8Array, size: number): Inflated {
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    stream(data, (chunk) => {
      total += chunk.length;
      if (total > MAX_EVENT_BYTES) throw new TooLarge();
      // Past the size the row gives, only the count matters: it is refused either way.
      if (total <= size) chunks.push(chunk);
    });
  } catch (err) {
    // fzstd throws on bytes it cannot decode (its own errors, or a typed array's range errors
    // where a hostile frame points outside its buffers); either way the row is not an event. (Running
    // out of time is not caught here: JavaScript cannot catch the stop `vm` makes.)
    return { kind: 'bad', reason: err instanceof TooLarge ? 'zstd-too-large' : 'zstd-damaged' };
  }
  if (total !== size) return { kind: 'bad', reason: 'zstd-damaged' };
  return { kind: 'json', json: Buffer.concat(chunks, size).toString('utf8') };
}

/**
 * Rows read by fzstd, as many as fit in one budget at a time: a time limit costs a thread of its
 * own for each call, several times what fzstd takes over a short event, so rows share one. A row
 * under way when a shared budget runs out is read again alone, with a budget of its own, so a row is
 * called stalled only when it ran out of a whole budget by itself.
 */
function allByFzstd(stream: Stream, rows: readonly Checked[], budgetMs: number): Inflated[] {
  const out: Inflated[] = [];
  while (out.length < rows.length) {
    const first = out.length;
    const finished = withinTime(() => {
      while (out.length < rows.length) {
        const r = rows[out.length]!;
        out.push(byFzstd(stream, r.data, r.size));
      }
    }, budgetMs);
    if (finished) break;
    if (out.length === first) {
      out.push({ kind: 'bad', reason: 'zstd-stalled' });
      continue;
    }
    const r = rows[out.length]!;
    let alone: Inflated = { kind: 'bad', reason: 'zstd-stalled' };
    withinTime(() => {
      alone = byFzstd(stream, r.data, r.size);
    }, budgetMs);
    out.push(alone);
  }
  return out;
}

/** `data`'s output by Node's own decompressor: the text when it is `size` bytes, else why not. */
function byNode(inflate: NodeInflate, data: Uint8Array, size: number): Inflated {
  try {
    const out = inflate(data, MAX_EVENT_BYTES);
    return out !== null && out.length === size
      ? { kind: 'json', json: out.toString('utf8') }
      : { kind: 'bad', reason: 'zstd-damaged' };
  } catch (err) {
    if (typeof err === 'object' && err !== null && Reflect.get(err, 'code') === 'ERR_BUFFER_TOO_LARGE')
      return { kind: 'bad', reason: 'zstd-too-large' };
    // Not zstd, damaged, or truncated: the row is not an event OpenClaw wrote.
    return { kind: 'bad', reason: 'zstd-damaged' };
  }
}

/** How rows are read: by which decompressor, within what time (for fzstd). Tests choose; rows don't. */
export interface InflateOptions {
  decoder?: Decoder;
  budgetMs?: number;
}

/** A compressed row as stored: `event_zstd` and `event_utf8_bytes`, unread. */
export interface CompressedRow {
  data: unknown;
  size: unknown;
}

/** A row whose frames were walked and found fit to decompress. */
interface Checked {
  data: Uint8Array;
  size: number;
  windowBytes: number[];
}

/** Why `row` is refused before any decompressing, or its frames' facts. */
function check(row: CompressedRow): Checked | Inflated {
  const { data, size } = row;
  if (!(data instanceof Uint8Array) || typeof size !== 'number' || !Number.isSafeInteger(size) || size < 1)
    return { kind: 'bad', reason: 'zstd-damaged' };
  if (size > MAX_EVENT_BYTES) return { kind: 'bad', reason: 'zstd-too-large' };
  const facts = frameFacts(data);
  if (facts.kind === 'bad') return facts;
  if (facts.declared !== null && facts.declared !== size) return { kind: 'bad', reason: 'zstd-damaged' };
  return { data, size, windowBytes: facts.windowBytes };
}

/**
 * The text of each compressed event, or why it is not one: a size OpenClaw would not have written or
 * a frame that claims or makes more than `MAX_EVENT_BYTES` (too large), bytes that are not zstd
 * frames or make another size (damaged), or, on fzstd, a row that runs past its budget (stalled).
 */
export function inflateEvents(rows: readonly CompressedRow[], options: InflateOptions = {}): Inflated[] {
  const checked = rows.map(check);
  const fit = checked.filter((c): c is Checked => !('kind' in c));
  let read: Inflated[];
  const decoder = options.decoder ?? (nodeInflate !== null ? 'node' : 'fzstd');
  switch (decoder) {
    case 'node': {
      const inflate = nodeInflate;
      read = fit.map((c) =>
        inflate === null ? { kind: 'bad', reason: 'zstd-unsupported' } : byNode(inflate, c.data, c.size),
      );
      break;
    }
    case 'fzstd': {
      if (fit.length > 0 && fzstd === undefined) fzstd = loadFzstd();
      const stream = fzstd;
      read =
        stream == null
          ? fit.map(() => ({ kind: 'bad', reason: 'zstd-unsupported' }))
          : allByFzstd(
              stream,
              fit.map((c) => ({ ...c, data: smallWindows(c.data, c.windowBytes, c.size) })),
              options.budgetMs ?? INFLATE_BUDGET_MS,
            );
      break;
    }
  }
  let next = 0;
  return checked.map((c) => ('kind' in c ? c : read[next++]!));
}

/** `inflateEvents` of one row. */
export const inflateEvent = (data: unknown, size: unknown, options: InflateOptions = {}): Inflated =>
  inflateEvents([{ data, size }], options)[0]!;
