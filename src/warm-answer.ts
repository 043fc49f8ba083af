/**
 * A warm `cctop --json` (and `--list`, laid out from the rows the document keeps), answered before the command line is loaded: one read of the warm document
 * (`index/warm-doc.ts` writes it, `index/warm-doc-layout.ts` says what its bytes are), a check that
 * it may still be printed, the joins of what moves, one write. It loads the clock, the state rules,
 * the spend windows and the layout, and nothing else: no SQLite, no provider, no parser, no config
 * reader, not the CLI. Whatever it cannot prove it declines, with the reason, and `cli.ts` runs the
 * full route, which answers as it always did (and writes the document again).
 *
 * What it proves, in order: the document is of this code, environment, settings, prices, zone and
 * day (its key); the last full look at the transcripts is under a minute old and no directory or
 * growing transcript moved since (as the warm snapshot, `index/warm.ts`; what this can miss is in
 * docs/limits.md); nothing an agent said has a say in its sessions (the hook journal empty, or as it
 * was when the document was written with its newest event past a hook's lapse; no registry record);
 * the kept problems it prints still hold; and no agent process could run one of its sessions: a scan
 * of the process table for the words every agent's command line holds, declined when one shows up
 * that started before a session of its kind was last active.
 *
 * Not here: the snapshot behind the usage views (`index/warm.ts`), writing the document,
 * whether an agent has a say in the sessions (the journal, the registries, the process table:
 * `warm-agents.ts`), or printing `--list` (`warm-list.ts`).
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { liveMembers, unrunLive, windowsMembers } from './index/live-text.js';
import { seenMoved } from './index/seen-moved.js';
import {
  DOC_FILE,
  DOC_ID_CHARS,
  DOC_IDS_AT,
  DOC_PREFIX_BYTES,
  type DocHeader,
  docHeaderOf,
  HOLE_KIND_SHIFT,
  HOLE_LIVE,
  HOLE_QUIET_WINDOWS,
  HOLE_REF_MASK,
  HOLE_WINDOWS,
  SWEEP_EVERY_MS,
} from './index/warm-doc-layout.js';
import { LocalTime } from './model/time.js';
import { cacheDir } from './paths.js';
import type { Env } from './providers/types.js';
import { agentsHaveASay } from './warm-agents.js';
import { keyMoved, recordedBuild } from './warm-key.js';

/**
 * An answer as the slices to write, in order: the document's own bytes are written from where they
 * were read, with the joins between them, rather than copied into one buffer first (`writevSync`).
 */
export type WarmJson = { kind: 'answered'; parts: readonly Buffer[] } | Declined;

export type Declined = { kind: 'declined'; reason: string };

export const declined = (reason: string): Declined => ({ kind: 'declined', reason });

export interface WarmJsonOptions {
  env: Env;
  nowMs: number;
  /** Where the process table is read: `/proc` (a test may give another machine's, or none). */
  proc?: string;
  platform?: NodeJS.Platform;
  /**
   * The building code's version; by default as `npm run build` recorded it (tests, running the
   * sources, give `index/version.ts`'s).
   */
  build?: () => Promise<string | null>;
}

/** `cctop --json` with the default options at `o.nowMs`, from the warm document, or why not. */
export async function warmJson(o: WarmJsonOptions): Promise<WarmJson> {
  const p = await proved(o, true);
  if (p.kind === 'declined') return p;
  return { kind: 'answered', parts: printed(p.h, p.b, p.holesAt, p.bodyAt, p.time, o.nowMs) };
}

export type Proved =
  | {
      kind: 'proved';
      h: DocHeader;
      b: Buffer;
      holesAt: number;
      bodyAt: number;
      time: LocalTime;
      /** The document's ids (discovery digest, scope, key): another document has others. */
      ids: string;
    }
  | Declined;

/**
 * The warm document, proved to be what the full route would print now, but for what moves; `live`:
 * proved too that no agent process or hook has a say in the sessions' states (the spend reports,
 * which show no state, do not ask).
 */
export async function proved(o: WarmJsonOptions, live: boolean, body = true): Promise<Proved> {
  let fd: number;
  try {
    fd = openSync(join(cacheDir(o.env), DOC_FILE), 'r');
  } catch {
    // Nothing kept warm yet.
    return declined('no warm document is kept');
  }
  // The file stays open until its body is read: a document replaced meanwhile (by a rename) is
  // neither judged by the new one's time nor printed with the new one's body.
  try {
    return await provedFrom(fd, o, live, body);
  } finally {
    closeSync(fd);
  }
}

/**
 * `proved` on the open document: its head first, and its body (the several megabytes `--json`
 * prints) only once every proof holds. A run while an agent writes is declined by the proofs, and
 * then reads, and checks the CRC of, no more than the head.
 */
async function provedFrom(fd: number, o: WarmJsonOptions, live: boolean, body: boolean): Promise<Proved> {
  const { env, nowMs } = o;
  let head: Buffer;
  let sweptAt: number;
  let size: number;
  try {
    const st = fstatSync(fd);
    sweptAt = st.mtimeMs;
    size = st.size;
    head = headOf(fd);
  } catch {
    // Unreadable: the full route answers, and writes it again.
    return declined('the warm document cannot be read');
  }
  if (nowMs - sweptAt > SWEEP_EVERY_MS || nowMs < sweptAt)
    return declined('the last full look at the transcripts is over a minute old');
  if (head.length < DOC_PREFIX_BYTES) return declined('the warm document is damaged');
  const headBytes = head.readUInt32LE(0);
  const headEnd = DOC_PREFIX_BYTES + head.readUInt32LE(8);
  if (
    DOC_PREFIX_BYTES + headBytes > headEnd ||
    headEnd !== head.length ||
    crc32(head.subarray(DOC_PREFIX_BYTES)) >>> 0 !== head.readUInt32LE(12)
  )
    return declined('the warm document is damaged');
  const h = docHeaderOf(head.toString('utf8', DOC_PREFIX_BYTES, DOC_PREFIX_BYTES + headBytes));
  if (h === null) return declined('the warm document is of another version');
  const holesAt = DOC_PREFIX_BYTES + headBytes;
  const bodyAt = holesAt + h.holes * 8 + h.listBytes;
  if (bodyAt !== headEnd) return declined('the warm document is damaged');
  const why =
    (await keyMoved(h, env, cacheDir(env), nowMs, o.build ?? recordedBuild)) ??
    seenMoved(h.dirs, h.files, nowMs) ??
    (live ? agentsHaveASay(h, nowMs, o.proc ?? '/proc', o.platform ?? process.platform) : null);
  if (why !== null) return declined(why);
  const time = new LocalTime();
  if (time.timeZone !== h.key.zone) return declined('the system time zone changed');
  let b = head;
  if (body) {
    // The body after the head just proved, read from the same open file into one buffer with it.
    const whole = Buffer.allocUnsafe(Math.max(size, headEnd));
    head.copy(whole);
    try {
      b = fill(fd, whole, headEnd);
    } catch {
      // Unreadable now: as above.
      return declined('the warm document cannot be read');
    }
    // The whole file under its own CRC.
    if (b.length < size || crc32(b.subarray(DOC_PREFIX_BYTES)) >>> 0 !== b.readUInt32LE(4))
      return declined('the warm document is damaged');
  }
  return {
    kind: 'proved',
    h,
    b,
    holesAt,
    bodyAt,
    time,
    ids: b.toString('latin1', DOC_IDS_AT, DOC_PREFIX_BYTES),
  };
}

/**
 * The document's prefix and head, without its body (`--list` and the spend reports print none of
 * it): two reads, the second as long as the prefix says. Shorter when the file is (then damaged).
 */
function headOf(fd: number): Buffer {
  const prefix = Buffer.alloc(DOC_PREFIX_BYTES);
  const got = readSync(fd, prefix, 0, DOC_PREFIX_BYTES, 0);
  if (got < DOC_PREFIX_BYTES) return prefix.subarray(0, got);
  const b = Buffer.allocUnsafe(DOC_PREFIX_BYTES + prefix.readUInt32LE(8));
  prefix.copy(b);
  return fill(fd, b, DOC_PREFIX_BYTES);
}

/** `b` read from the open file by position, from `at` to its end; shorter when the file is. */
function fill(fd: number, b: Buffer, at: number): Buffer {
  while (at < b.length) {
    const n = readSync(fd, b, at, b.length - at, at);
    if (n === 0) break;
    at += n;
  }
  return b.subarray(0, at);
}

// ---- `cctop daily --json` ----------------------------------------------------------------------

/**
 * The spend report `cctop daily --json` printed by the full route, kept beside the document it was
 * printed against (`DAILY_FILE`: the document's ids, a CRC-32 of the rest, where `generatedAt`'s
 * value was, the answer without it). Served again while that document is proved current: a report
 * depends on the sessions' usage, the zone and the day, all of which the document's proof covers.
 */
const DAILY_FILE = 'warm-default.daily';
const DAILY_PREFIX_BYTES = 3 * DOC_ID_CHARS + 8;

/** The ids of the warm document there now, or null: read before the full route answers. */
export function docIds(env: Env): string | null {
  let fd: number;
  try {
    fd = openSync(join(cacheDir(env), DOC_FILE), 'r');
  } catch {
    // No document: nothing to keep an answer beside.
    return null;
  }
  try {
    const b = Buffer.alloc(DOC_PREFIX_BYTES);
    return readSync(fd, b, 0, DOC_PREFIX_BYTES, 0) === DOC_PREFIX_BYTES
      ? b.toString('latin1', DOC_IDS_AT)
      : null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Keep the full route's `daily --json` answer, when the document it ran beside is the same before
 * (`before`, `docIds`) and after, and proved current after: the answer was then made from the
 * transcripts the document holds (a refresh that saw others would have written another document).
 * Never throws: it only saves time.
 */
export async function keepDaily(o: WarmJsonOptions, before: string | null, answer: Buffer): Promise<void> {
  if (before === null) return;
  try {
    const p = await proved(o, false, false);
    if (p.kind === 'declined' || p.ids !== before) return;
    const text = answer.toString('latin1');
    const m = GENERATED_AT.exec(text);
    if (m === null) return;
    const cut = m.index + m[0].length - 1 - (m[1]?.length ?? 0);
    const rest = Buffer.concat([
      Buffer.from(text.slice(0, cut), 'latin1'),
      Buffer.from(text.slice(cut + (m[1]?.length ?? 0)), 'latin1'),
    ]);
    const prefix = Buffer.alloc(DAILY_PREFIX_BYTES);
    prefix.write(p.ids, 0, 'latin1');
    prefix.writeUInt32LE(cut, 3 * DOC_ID_CHARS + 4);
    prefix.writeUInt32LE(
      crc32(Buffer.concat([prefix.subarray(3 * DOC_ID_CHARS + 4), rest])) >>> 0,
      3 * DOC_ID_CHARS,
    );
    const path = join(cacheDir(o.env), DAILY_FILE);
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([prefix, rest]));
    renameSync(tmp, path);
  } catch {
    // A full disk or a read-only cache: the next `daily --json` goes through the full route again.
  }
}

/** Its `generatedAt` member, pretty-printed or not: the value is the moment of printing. */
const GENERATED_AT = /"generatedAt": ?"([^"]*)"/;

/** `cctop daily --json` from the answer kept beside the warm document, when that is proved current. */
export async function warmDaily(o: WarmJsonOptions): Promise<WarmJson> {
  const p = await proved(o, false, false);
  if (p.kind === 'declined') return p;
  let b: Buffer;
  try {
    b = readFileSync(join(cacheDir(o.env), DAILY_FILE));
  } catch {
    // Not kept yet.
    return declined('no daily report is kept');
  }
  if (b.length < DAILY_PREFIX_BYTES || b.toString('latin1', 0, 3 * DOC_ID_CHARS) !== p.ids)
    return declined('the daily report kept is of another document');
  if (crc32(b.subarray(3 * DOC_ID_CHARS + 4)) >>> 0 !== b.readUInt32LE(3 * DOC_ID_CHARS))
    return declined('the daily report kept is damaged');
  const cut = DAILY_PREFIX_BYTES + b.readUInt32LE(3 * DOC_ID_CHARS + 4);
  if (cut > b.length) return declined('the daily report kept is damaged');
  const generatedAt = Buffer.from(new Date(o.nowMs).toISOString(), 'latin1');
  return { kind: 'answered', parts: [b.subarray(DAILY_PREFIX_BYTES, cut), generatedAt, b.subarray(cut)] };
}

/**
 * The document with what moves joined at `nowMs`, as slices: the document's bytes between the joins,
 * and the joins' texts written once into one small buffer of their own.
 */
function printed(
  h: DocHeader,
  b: Buffer,
  holesAt: number,
  bodyAt: number,
  time: LocalTime,
  nowMs: number,
): Buffer[] {
  const windows = windowsMembers(time, nowMs);
  // In the hour the document was written its quiet windows are printed already.
  const [quietHour, quietLength] = h.quiet;
  const quiet =
    time.hourStart(nowMs) === quietHour
      ? null
      : windows({ tally: { usd: 0 }, lastActiveAt: null, spend: () => NO_SPEND });
  // Each join: where it goes in the body, how many body bytes it replaces, its text.
  const joins: [at: number, skip: number, text: string][] = [];
  let size = 0;
  for (let i = 0; i < h.holes; i++) {
    const tag = b.readUInt32LE(holesAt + i * 8 + 4);
    const ref = tag & HOLE_REF_MASK;
    let skip = 0;
    let text: string;
    switch (tag >>> HOLE_KIND_SHIFT) {
      case HOLE_LIVE: {
        const [signal, mtime, lastMs, lastActiveAt, running] = h.live[ref]!;
        text = liveMembers(unrunLive(signal, mtime, lastMs, lastActiveAt, running, nowMs));
        break;
      }
      case HOLE_WINDOWS: {
        const [lastActiveAt, hours, days] = h.windowed[ref]!;
        text = windows({ tally: { usd: 0 }, lastActiveAt, spend: () => ({ hours, days }) });
        break;
      }
      case HOLE_QUIET_WINDOWS:
        if (quiet === null) continue;
        skip = quietLength;
        text = quiet;
        break;
      default:
        throw new Error(`the warm document has a hole of no kind (${tag})`);
    }
    joins.push([bodyAt + b.readUInt32LE(holesAt + i * 8), skip, text]);
    size += text.length;
  }
  const head = Buffer.from(h.head[0] + new Date(nowMs).toISOString() + h.head[1], 'latin1');
  const texts = Buffer.allocUnsafe(size);
  const parts: Buffer[] = [head];
  let at = 0;
  let from = bodyAt;
  for (const [to, skip, text] of joins) {
    if (to > from) parts.push(b.subarray(from, to));
    const end = at + texts.write(text, at, 'latin1');
    if (end > at) parts.push(texts.subarray(at, end));
    at = end;
    from = to + skip;
  }
  parts.push(b.subarray(from), Buffer.from(h.tail, 'latin1'));
  return parts;
}

const NO_SPEND = { hours: [], days: [] };
