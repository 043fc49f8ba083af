/**
 * The warm snapshot's file layout: the fixed prefix, the JSON header, the `--list` facts, and the
 * readers that narrow what a file holds back into them. Kept apart so that writing (`warm.ts`) and
 * reading (`warm-snapshot.ts`) agree on one description of the bytes, and a change of layout is one
 * number (`WARM_FORMAT`) and one place.
 *
 * Not here: deciding whether a snapshot is fresh or writing one (`warm.ts`), joining its sessions
 * with the live fields (`warm-snapshot.ts`). Reads no file: it only says what bytes mean.
 */
import type { LiveSignal } from '../model/state.js';
import type { DocumentTotals } from '../model/totals.js';
import type { KeptProblem } from './build-problems.js';
import { KNOWN_PROVIDERS, nullableNumber, nullableString, parseJson } from './record-shape.js';
import type { HeadFields, SessionHead } from './session-head.js';

/** The layout of the file; another number is another layout, and declines. */
export const WARM_FORMAT = 5;

/** The discovery digest's length (`Digest.hex()`), kept at the start to be checked without the rest. */
export const DIGEST_CHARS = 16;

/**
 * The fixed part before the rest: the header's length, the CRC of everything after the prefix, the
 * discovery digest, then the length of what was seen (`WarmSeen`), which comes first after it.
 */
export const PREFIX_BYTES = 12 + DIGEST_CHARS;

/** Where in the prefix the length of the seen part is. */
export const SEEN_LENGTH_AT = 8 + DIGEST_CHARS;

/**
 * What discovery saw, kept apart before the header so that a snapshot that is no longer fresh is
 * found so by reading this small part alone: the 11 MB of a 4,000-session history are then neither
 * read, checked nor parsed (a run after a transcript grew spent more on that than on the patch).
 * Its bytes are under the CRC like the rest, checked before anything is answered from it.
 */
export interface WarmSeen {
  /** Every directory discovery asked to list, with the time it had. */
  dirs: [string, number][];
  /** The transcripts touched within `GROWING_MS` of the answer: path, size, time, inode. */
  files: [string, number, number, number][];
}

/** What is shown of a session without parsing its record (its head, less what the totals hold). */
export interface WarmSession extends SessionHead {
  /** Its tally's dollars: the header's totals hold the rest of the tally. */
  usd: HeadFields['tally']['usd'];
  /** Its record in the pack: where it starts and how long it is. */
  start: number;
  length: number;
}

export interface WarmHeader {
  format: number;
  scope: string;
  /** When this answer was taken (the clock of the refresh that wrote it). */
  takenAt: number;
  problems: KeptProblem[];
  totals: DocumentTotals;
  sessions: WarmSession[];
  /** The length of the `--list` facts (`ListedRow`s, JSON) between the header and the records. */
  listedBytes: number;
}

/**
 * What `cctop --list` reads of a session besides its head: kept apart from the header, in its order,
 * so that `--json` does not parse them. A tuple: 4,000 of them are parsed by each warm `--list`.
 */
export type ListedRow = [
  startedAt: string | null,
  title: string | null,
  model: string | null,
  used: number | null,
  compactAt: number | null,
  tokens: number | null,
  included: boolean,
  unpriced: boolean,
  /** Codex's rate-limit snapshot as the session's facts hold it (bounded there), else null. */
  rateLimits: unknown,
];

// ---- Narrowing the header ------------------------------------------------------------------------

/** The header, or null when it is not what `keepWarm` writes (text that passed its CRC yet is not JSON: another layout). */
export function headerOf(text: string): WarmHeader | null {
  const v = parseJson(text);
  return isHeader(v) ? v : null;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** What was seen, or null when it is not what `keepWarm` writes. */
export function seenOf(text: string): WarmSeen | null {
  // Not JSON (undefined): another layout, or damage the CRC check would find.
  const v = parseJson(text);
  if (!isObj(v)) return null;
  const { dirs, files } = v;
  if (
    !Array.isArray(dirs) ||
    !dirs.every((d) => Array.isArray(d) && typeof d[0] === 'string' && typeof d[1] === 'number')
  )
    return null;
  if (
    !Array.isArray(files) ||
    !files.every(
      (f) =>
        Array.isArray(f) &&
        f.length === 4 &&
        typeof f[0] === 'string' &&
        typeof f[1] === 'number' &&
        typeof f[2] === 'number' &&
        typeof f[3] === 'number',
    )
  )
    return null;
  return { dirs, files };
}

function isHeader(v: unknown): v is WarmHeader {
  if (!isObj(v) || v.format !== WARM_FORMAT || typeof v.scope !== 'string' || typeof v.takenAt !== 'number')
    return false;
  const { problems, totals, sessions } = v;
  if (
    !Array.isArray(problems) ||
    !problems.every((p) => isObj(p) && isObj(p.problem) && nullableNumber(p.after))
  )
    return false;
  return (
    typeof v.listedBytes === 'number' && isObj(totals) && Array.isArray(sessions) && sessions.every(isSession)
  );
}

/** The `--list` facts, `count` of them, or null when they are not what `keepWarm` writes. */
export function listedOf(text: string, count: number): ListedRow[] | null {
  const v = parseJson(text);
  return Array.isArray(v) && v.length === count && v.every(isListedRow) ? v : null;
}

function isListedRow(r: unknown): r is ListedRow {
  return (
    Array.isArray(r) &&
    r.length === 9 &&
    nullableString(r[0]) &&
    nullableString(r[1]) &&
    nullableString(r[2]) &&
    nullableNumber(r[3]) &&
    nullableNumber(r[4]) &&
    nullableNumber(r[5]) &&
    typeof r[6] === 'boolean' &&
    typeof r[7] === 'boolean'
  );
}

function isSession(s: unknown): s is WarmSession {
  if (!isObj(s) || typeof s.provider !== 'string' || !KNOWN_PROVIDERS.has(s.provider)) return false;
  if (typeof s.id !== 'string' || typeof s.file !== 'string' || typeof s.deleted !== 'boolean') return false;
  if (!nullableString(s.project) || !nullableString(s.lastActiveAt) || !nullableNumber(s.usd)) return false;
  if (typeof s.start !== 'number' || typeof s.length !== 'number') return false;
  const live = s.live;
  return (
    isObj(live) &&
    typeof live.mtime === 'number' &&
    nullableNumber(live.lastMs) &&
    (live.signal === null || isSignal(live.signal))
  );
}

const isSignal = (v: unknown): v is LiveSignal => isObj(v);
