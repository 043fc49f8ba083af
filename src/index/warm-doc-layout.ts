/**
 * The warm document's file layout: `cctop --json` for the default options, printed ahead of time,
 * with holes where what moves is joined when it is asked for (the time it was generated, the states
 * that can still change, the spend windows), and beside it what proves it may still be printed. The
 * writer (`warm-doc.ts`) and the reader (`../warm-answer.ts`) agree on this one description; a change
 * of layout is a new `DOC_FORMAT`.
 *
 * Reads no file and loads nothing at run time: the reader is the first thing a warm `cctop --json`
 * loads, and every module it loads is paid on every run.
 *
 * The file: `DOC_PREFIX_BYTES` (the header's length, the CRC-32 of everything after the prefix, the
 * length and CRC-32 of the head, the discovery digest, the scope and the key's digest), the head (what
 * `--list` and the spend reports read, so they need not read the body: the header, JSON; the hole table, `holes` of
 * them, 8 bytes each: the body offset a hole sits at and its tag), `--list`'s part (`listBytes`, a
 * packed list, `views/cli/list-packed.ts`, or none when no session is listed: read only by `--list`,
 * so `--json` does not look at it), and the body (ASCII JSON).
 */
import type { LiveSignal } from '../model/state.js';

/**
 * How long a look that skips unchanged directories and quiet transcripts is trusted before a full
 * one: an append to a transcript quiet for an hour, in a directory that did not change, is seen
 * within this. A minute, as search's sweep: a status glance is not worth a full look each time.
 */
export const SWEEP_EVERY_MS = 60_000;

/**
 * A transcript touched this recently may be growing: its size and time are checked on every warm
 * run. An agent writes to its transcript every few seconds while it works; an hour covers a long
 * pause (a human reading, a slow tool) before it writes again.
 */
export const GROWING_MS = 60 * 60_000;

/** The layout of the file; another number is another layout, and the reader declines it. */
export const DOC_FORMAT = 3;

/** Its name in cctop's cache directory: one per cache, for the default options only. */
export const DOC_FILE = 'warm-default.doc';

/** The discovery digest, the scope key and the key's digest are each this many characters. */
export const DOC_ID_CHARS = 16;

/**
 * Where the ids start in the prefix, after the header's length (u32), the CRC-32 of everything after
 * the prefix (u32), the head's length (u32: header, hole table, `--list`'s part) and its CRC-32 (u32).
 */
export const DOC_IDS_AT = 16;

/** The prefix: its numbers (`DOC_IDS_AT`), then the digest, the scope and the key's digest (latin1, padded). */
export const DOC_PREFIX_BYTES = DOC_IDS_AT + 3 * DOC_ID_CHARS;

/** A hole's tag is its kind in the top 4 bits and an index into the header's lists below them. */
export const HOLE_KIND_SHIFT = 28;
export const HOLE_REF_MASK = (1 << HOLE_KIND_SHIFT) - 1;

/** The live members of `live[ref]` (its state can still change). */
export const HOLE_LIVE = 1;
/** The spend windows of `windowed[ref]` (it may show spend in them). */
export const HOLE_WINDOWS = 2;
/**
 * The spend windows of a session that spent nothing in any window from now on: printed already as
 * they read in the hour the document was written (`DocHeader.quiet`), replaced only in another hour.
 */
export const HOLE_QUIET_WINDOWS = 3;

/**
 * What the answer was computed from besides the transcripts: each must be as it was for the document
 * to be the one the full route would print.
 */
export interface DocKey {
  /** Every environment variable read to work out the scope and the paths below, with its value (null: unset). */
  env: [name: string, value: string | null][];
  /** Files whose size and time the scope holds (harness settings, the price catalogue): null when absent. */
  stats: [path: string, size: number | null, mtimeMs: number | null][];
  /**
   * The config file when there is one: its length and CRC-32, which must be as they were (it is kept
   * only when it names nothing these answers read: `warm-doc.ts` `configKeyOf`); null when there is none.
   */
  config: [path: string, bytes: number, crc: number] | null;
  /** Files that must not exist: the config file, when there was none. */
  absent: string[];
  /**
   * The agents' own word (`live/agent-word.ts`): the hook journal as it was when the document was
   * written (its path, and its size, time and inode, null when absent), which must be as it was or
   * empty; the instant after which nothing in it has a say (its newest event's time and the lapse of
   * a hook's claim on a session no process runs, `WORKING_TTL_MS`; null when it held no event); and
   * Claude Code's registries, which must hold no record.
   */
  journal: [path: string, size: number | null, mtimeMs: number | null, ino: number | null];
  journalQuietAt: number | null;
  registries: string[];
  /** The building code's version (`index/version.ts`). */
  build: string;
  /** What decides the system zone (`model/zone.ts`) and the zone it gave. */
  zoneKey: string;
  zone: string;
  /** The scope's local day, as UTC milliseconds: [start, end). */
  day: [number, number];
  /**
   * Per harness whose processes cctop matches to sessions: the words each of its agents' command
   * lines holds (`ProcessRule.words`), and the last instant one of its processes could have started
   * and still be matched to one of its sessions (each is matched only to sessions active since it
   * started, `live/processes.ts`); null when it has no session.
   */
  agents: [words: string[], matchableUntil: number | null][];
  /** The kept problems printed hold until this instant (one shows after it); null for ever. */
  problemsUntil: number | null;
  /**
   * What `cctop --list` reads besides the sessions: the files its headings' quota is read from
   * (Claude Code's config file, the status line's note), with their size and time (null: absent),
   * and where a run would be announced (`cctop/drive`'s runs folder, `cctop run`'s list).
   */
  list: { quota: [path: string, size: number | null, mtimeMs: number | null][]; runs: string[] };
}

/** A session whose state can still change: what its live members are worked out from. */
export type LiveEntry = [
  signal: LiveSignal | null,
  mtime: number,
  lastMs: number | null,
  lastActiveAt: string | null,
  /** false: cctop looks for its processes (and found none); null: it cannot. */
  running: false | null,
];

/** A priced session that may show spend in its windows: its last activity and its spend buckets. */
export type WindowedEntry = [
  lastActiveAt: string | null,
  hours: [number, number][],
  days: [number, number][],
];

export interface DocHeader {
  format: number;
  scope: string;
  /** When the answer was taken. */
  takenAt: number;
  key: DocKey;
  /** Every directory discovery listed, with its time. */
  dirs: [string, number][];
  /** The transcripts that were recent enough to be growing when it was taken: path, size, time, inode. */
  files: [string, number, number, number][];
  /** The document before and after its `generatedAt` value. */
  head: [string, string];
  /** The document after its last session, the newline included. */
  tail: string;
  live: LiveEntry[];
  windowed: WindowedEntry[];
  /** The hour (its start, UTC ms) the quiet windows in the body were printed for, and their length. */
  quiet: [hour: number, length: number];
  holes: number;
  /** The length of `--list`'s part: a packed list, or 0 when it lists no session (the full route says so in its own words). */
  listBytes: number;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isNum = (v: unknown): v is number => typeof v === 'number';
const isStr = (v: unknown): v is string => typeof v === 'string';
const isArr = Array.isArray;

/**
 * The header when it is one this layout writes, else null. Checked only as deep as the reader reads
 * without a check of its own: the CRC has already vouched for the bytes, this for their layout.
 */
export function docHeaderOf(text: string): DocHeader | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    // Passed its CRC yet is not JSON: another layout wrote it.
    return null;
  }
  return isDocHeader(v) ? v : null;
}

function isDocHeader(v: unknown): v is DocHeader {
  if (!isObj(v) || v.format !== DOC_FORMAT || !isStr(v.scope) || !isNum(v.takenAt) || !isNum(v.holes))
    return false;
  const { key, dirs, files, head, live, windowed } = v;
  if (!isObj(key) || !isArr(key.env) || !isArr(key.stats) || !isArr(key.absent) || !isArr(key.registries))
    return false;
  if (
    !isArr(key.journal) ||
    !isStr(key.journal[0]) ||
    !(key.journalQuietAt === null || isNum(key.journalQuietAt))
  )
    return false;
  if (!isStr(key.build) || !isStr(key.zoneKey) || !isStr(key.zone)) return false;
  const c = key.config;
  if (c !== null && !(isArr(c) && c.length === 3 && isStr(c[0]) && isNum(c[1]) && isNum(c[2]))) return false;
  if (!isArr(key.day) || !isArr(key.agents) || !key.agents.every((g) => isArr(g) && isArr(g[0])))
    return false;
  if (!isArr(dirs) || !isArr(files) || !isArr(head) || head.length !== 2 || !isStr(v.tail)) return false;
  if (!isArr(live) || !isArr(windowed) || !isArr(v.quiet) || !isNum(v.quiet[0]) || !isNum(v.quiet[1]))
    return false;
  if (!live.every((l) => isArr(l) && l.length === 5 && isNum(l[1]))) return false;
  if (!isObj(key.list) || !isArr(key.list.quota) || !isArr(key.list.runs)) return false;
  if (!isNum(v.listBytes)) return false;
  return windowed.every((w) => isArr(w) && w.length === 3 && isArr(w[1]) && isArr(w[2]));
}
