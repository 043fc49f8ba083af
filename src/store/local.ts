/**
 * What a push keeps on this machine, in cctop's cache directory, one pair of files per store, role
 * and host (`store/<key>.state.json`, `store/<key>.queue.json`):
 *
 * - the state: a digest of every row the store has from this machine, so the next push sends only
 *   rows whose digest changed, and when the last batch was committed;
 * - the queue: rows that could not be delivered (the store was unreachable, or refused), one entry
 *   per row key (a newer version replaces an older one), sent first by the next push that connects.
 *
 * Both are written whole to a temporary file and renamed over the old one, so a push killed at any
 * moment leaves the previous file or the new one, never half of either. A file that cannot be read
 * or is not what this module writes counts as empty: the state then makes the next push send every
 * row again (the upserts make that harmless), and a lost queue loses nothing either, since its rows
 * were never recorded as sent and still differ from the state.
 *
 * Not here: deciding what to send or sending it (`push.ts`).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../paths.js';
import type { Env } from '../providers/types.js';
import { shownUrl } from './connect.js';
import { readRow } from './read-row.js';
import type { QuotaRow, SessionRow, SpendRow } from './rows.js';

/**
 * The most rows the queue holds: a machine's whole history is a few thousand sessions and spend rows,
 * so this is several first pushes' worth. Past it the oldest entries are dropped, which loses nothing
 * while their sessions are on this machine (they still differ from the state, so the next push that
 * connects sends them); only the version a row had when it was queued is gone.
 */
export const MAX_PUSH_QUEUE_ROWS = 20_000;
/**
 * The largest state or queue file read back: 20,000 rows of at most a few KiB each. A bigger file
 * was not written by cctop; it is ignored (counts as empty) rather than read into memory.
 */
export const MAX_PUSH_FILE_BYTES = 64 << 20;

/** A row the store keys: a session, or a day's spend. */
export type PushItem =
  | { kind: 'session'; row: SessionRow }
  | { kind: 'spend'; row: SpendRow }
  | { kind: 'quota'; row: QuotaRow };

/** The row's primary key in the store (less developer and host, which are the file's own). */
export function itemKey(i: PushItem): string {
  switch (i.kind) {
    case 'session':
      return `s\u0000${i.row.harness}\u0000${i.row.sessionId}`;
    case 'spend':
      return `d\u0000${i.row.harness}\u0000${i.row.day}\u0000${i.row.model}\u0000${i.row.project}`;
    case 'quota':
      return `q\u0000${i.row.harness}\u0000${i.row.account}\u0000${i.row.window}`;
  }
}

/** What tells one version of a row from another. */
export function itemDigest(i: PushItem): string {
  return createHash('sha256').update(JSON.stringify(i.row)).digest('base64url').slice(0, 22);
}

export interface PushPlace {
  /** The store as shown (no password), the role and the host the files are for. */
  store: string;
  role: string;
  host: string;
  statePath: string;
  queuePath: string;
}

/** The role a URL logs in as, as libpq would choose it: the URL's user, PGUSER, then the login name. */
export function roleOf(url: string, env: Env): string {
  let user = '';
  try {
    user = decodeURIComponent(new URL(url).username);
  } catch {
    // Not a URL: storeTarget refuses those before anything asks.
  }
  return user || env.PGUSER || env.USER || env.LOGNAME || 'unknown';
}

const placesDir = (env: Env): string => join(cacheDir(env), 'store');

export function placeOf(env: Env, url: string, host: string): PushPlace {
  const store = shownUrl(url);
  const role = roleOf(url, env);
  const key = createHash('sha256')
    .update(JSON.stringify([store, role, host]))
    .digest('hex')
    .slice(0, 16);
  const dir = placesDir(env);
  return {
    store,
    role,
    host,
    statePath: join(dir, `${key}.state.json`),
    queuePath: join(dir, `${key}.queue.json`),
  };
}

/** The most machine names `pushedHosts` reports: `--as` names a machine, and a machine has a few. */
const MAX_PUSHED_HOSTS = 16;

/**
 * The machine names this machine has pushed under to `url` as its role (its own, and any `--as`), as
 * its files record them, so `status` and `doctor` find a queue whatever name it was pushed under.
 */
export function pushedHosts(env: Env, url: string): string[] {
  const store = shownUrl(url);
  const role = roleOf(url, env);
  const hosts = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(placesDir(env)).filter((n) => /^[0-9a-f]{16}\.(state|queue)\.json$/.test(n));
  } catch {
    return [];
  }
  for (const name of names.sort()) {
    const v = readJson(join(placesDir(env), name));
    if (isObj(v) && v.store === store && v.role === role && typeof v.host === 'string') hosts.add(v.host);
    if (hosts.size >= MAX_PUSHED_HOSTS) break;
  }
  return [...hosts];
}

export interface PushState {
  /** When a batch was last committed (ISO), or null. */
  lastPushAt: string | null;
  digests: Map<string, string>;
}

export interface QueueEntry {
  key: string;
  digest: string;
  /** When this version was queued (ISO). */
  queuedAt: string;
  item: PushItem;
}

export interface PushQueue {
  entries: QueueEntry[];
  /** Why the last push could not deliver them, and when. */
  lastError: string | null;
  lastErrorAt: string | null;
  /** Entries dropped by the last write past `MAX_PUSH_QUEUE_ROWS`. */
  dropped: number;
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isoOrNull = (v: unknown): string | null =>
  typeof v === 'string' && v.length <= 64 && Number.isFinite(Date.parse(v)) ? v : null;

/** The file's JSON, or null when it is absent, too big or not JSON. */
function readJson(path: string): unknown {
  try {
    if (statSync(path).size > MAX_PUSH_FILE_BYTES) return null;
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

/** Write `value` as the file's whole content, atomically. */
function writeJson(path: string, value: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value), { mode: 0o600 });
  renameSync(tmp, path);
}

export function loadState(p: PushPlace): PushState {
  const v = readJson(p.statePath);
  const digests = new Map<string, string>();
  if (!isObj(v) || v.v !== 1 || !isObj(v.digests)) return { lastPushAt: null, digests };
  for (const [k, d] of Object.entries(v.digests)) if (typeof d === 'string') digests.set(k, d);
  return { lastPushAt: isoOrNull(v.lastPushAt), digests };
}

export function saveState(p: PushPlace, s: PushState): void {
  writeJson(p.statePath, {
    v: 1,
    store: p.store,
    role: p.role,
    host: p.host,
    lastPushAt: s.lastPushAt,
    digests: Object.fromEntries(s.digests),
  });
}

export const emptyQueue = (): PushQueue => ({ entries: [], lastError: null, lastErrorAt: null, dropped: 0 });

export function loadQueue(p: PushPlace): PushQueue {
  const v = readJson(p.queuePath);
  if (!isObj(v) || v.v !== 1 || !Array.isArray(v.entries)) return emptyQueue();
  const entries: QueueEntry[] = [];
  for (const e of v.entries.slice(0, MAX_PUSH_QUEUE_ROWS)) {
    if (!isObj(e)) continue;
    const queuedAt = isoOrNull(e.queuedAt);
    const item = readRow(e.item, p.host);
    if (queuedAt === null || item === null) continue;
    entries.push({ key: itemKey(item), digest: itemDigest(item), queuedAt, item });
  }
  return {
    entries,
    lastError: typeof v.lastError === 'string' ? v.lastError.slice(0, 1_000) : null,
    lastErrorAt: isoOrNull(v.lastErrorAt),
    dropped: typeof v.dropped === 'number' && Number.isSafeInteger(v.dropped) ? v.dropped : 0,
  };
}

/**
 * Write the queue, keeping the newest `MAX_PUSH_QUEUE_ROWS` entries; returns how many older ones were
 * dropped. An empty queue with no error is written too: its file then says nothing waits.
 */
export function saveQueue(p: PushPlace, q: PushQueue): number {
  let entries = q.entries;
  let dropped = 0;
  if (entries.length > MAX_PUSH_QUEUE_ROWS) {
    entries = [...entries].sort((a, b) => (a.queuedAt < b.queuedAt ? 1 : a.queuedAt > b.queuedAt ? -1 : 0));
    dropped = entries.length - MAX_PUSH_QUEUE_ROWS;
    entries = entries.slice(0, MAX_PUSH_QUEUE_ROWS);
  }
  writeJson(p.queuePath, {
    v: 1,
    store: p.store,
    role: p.role,
    host: p.host,
    lastError: q.lastError,
    lastErrorAt: q.lastErrorAt,
    dropped,
    entries: entries.map((e) => ({ queuedAt: e.queuedAt, item: e.item })),
  });
  return dropped;
}
