/**
 * One push: the rows that changed since the last successful push (and whatever the queue holds from
 * pushes that could not deliver), sent in batches of at most `MAX_PUSH_BATCH_ROWS`, each batch one
 * transaction (`upsert.ts`). After each committed batch the state file records its rows' digests, so
 * a push stopped or killed between batches resumes where it stopped, and one killed inside a batch
 * leaves nothing of that batch in the store and sends it again next time.
 *
 * When the store cannot be reached, or refuses (its schema is older, the role lacks a grant), every
 * row not yet committed goes to the queue with the reason, and the push reports it; the next push
 * that connects sends the queue first. A push with nothing changed does not connect at all, except
 * once per `PUSH_HEARTBEAT_MS`, when it writes only its `pushers` row, so the team dashboard can tell
 * a quiet machine from one that stopped pushing.
 *
 * If the store no longer has this machine's `pushers` row while the state says rows were sent (the
 * database was recreated, or restored from before them), the state is forgotten and every row is
 * sent again.
 *
 * Not here: making rows (`build.ts`), the command, its schedule and its signals (`views/cli/push.ts`).
 */
import type pg from 'pg';
import type { Env } from '../providers/types.js';
import { connectStore, storeError } from './connect.js';
import {
  emptyQueue,
  itemDigest,
  itemKey,
  loadQueue,
  loadState,
  type PushItem,
  type PushPlace,
  type PushQueue,
  type PushState,
  placeOf,
  type QueueEntry,
  saveQueue,
  saveState,
} from './local.js';
import { checkSchema } from './migrate.js';
import type { QuotaRow, SessionRow, SpendRow } from './rows.js';
import { troubleOf } from './team-connect.js';
import { upsertBatch } from './upsert.js';

/**
 * How often a push with nothing to send still writes its `pushers` row. The team dashboard reads a
 * machine whose last push is older than a few of these as stale; a push every minute that has
 * nothing new connects once in five.
 */
export const PUSH_HEARTBEAT_MS = 2 * 60_000;

export interface PushInput {
  env: Env;
  url: string;
  host: string;
  version: string;
  timeZone: string;
  sessions: readonly SessionRow[];
  spend: readonly SpendRow[];
  /** This machine's current quota figures (`cctop quota`); absent: none. */
  quota?: readonly QuotaRow[];
  /** Rows per batch (at most `MAX_PUSH_BATCH_ROWS`). */
  batchRows: number;
  /** Send every row, whatever the state says (`--all`). */
  all: boolean;
  /** Asked before each batch: true ends the push there (SIGINT, SIGTERM). */
  stopping: () => boolean;
  now?: () => number;
}

export interface PushFailure {
  error: string;
  /** The store could not be reached (retry later) rather than refused (someone must fix something). */
  unreachable: boolean;
  /** Rows in the queue now. */
  queued: number;
  /** Older queued rows dropped past `MAX_PUSH_QUEUE_ROWS`. */
  dropped: number;
}

export interface PushOutcome {
  store: string;
  role: string;
  host: string;
  sent: { sessions: number; spend: number; quota: number };
  /** Of them, rows that had waited in the queue. */
  fromQueue: number;
  batches: number;
  /** Rows the store already has as they are. */
  unchanged: number;
  /** Nothing to send, but the `pushers` row was due (`PUSH_HEARTBEAT_MS`). */
  heartbeat: boolean;
  /** Stopped between batches by a signal; the rest goes with the next push. */
  stopped: boolean;
  /** Left out by `build.ts` (a key past its bound, numbers the columns cannot hold). */
  skipped: number;
  failure: PushFailure | null;
}

/** Rows to send: the queue's first (as they are now, when still on this machine), then what changed. */
function pendingOf(
  current: Map<string, QueueEntry>,
  state: PushState,
  queue: PushQueue,
  at: string,
): QueueEntry[] {
  const out = new Map<string, QueueEntry>();
  for (const e of queue.entries) {
    const now = current.get(e.key);
    if (now === undefined) out.set(e.key, e);
    else if (state.digests.get(e.key) !== now.digest) out.set(e.key, { ...now, queuedAt: e.queuedAt });
  }
  for (const [key, e] of current)
    if (!out.has(key) && state.digests.get(key) !== e.digest) out.set(key, { ...e, queuedAt: at });
  return [...out.values()];
}

/** Whether the store still has this machine's `pushers` row (see the module comment). */
async function storeKnowsUs(client: pg.Client, host: string): Promise<boolean> {
  const r = await client.query('SELECT 1 FROM pushers WHERE developer = session_user AND host = $1', [host]);
  return (r.rowCount ?? 0) > 0;
}

function batchOf(i: PushInput, entries: readonly QueueEntry[]) {
  const sessions: SessionRow[] = [];
  const spend: SpendRow[] = [];
  const quota: QuotaRow[] = [];
  // In key order, so two pushes of one machine take the rows' locks in the same order.
  for (const { item } of [...entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    switch (item.kind) {
      case 'session':
        sessions.push(item.row);
        break;
      case 'spend':
        spend.push(item.row);
        break;
      case 'quota':
        quota.push(item.row);
        break;
    }
  }
  return { host: i.host, version: i.version, timeZone: i.timeZone, sessions, spend, quota };
}

interface Run {
  i: PushInput;
  place: PushPlace;
  state: PushState;
  queue: PushQueue;
  out: PushOutcome;
  at: () => string;
}

/** Queue what was not committed, with why; the outcome says so. */
function queueRest(r: Run, rest: QueueEntry[], error: string, unreachable: boolean): PushOutcome {
  const q: PushQueue = { entries: rest, lastError: error, lastErrorAt: r.at(), dropped: 0 };
  const dropped = saveQueue(r.place, q);
  r.out.failure = { error, unreachable, queued: rest.length - dropped, dropped };
  return r.out;
}

/**
 * How many times a batch is tried when PostgreSQL rolled it back for a deadlock or a serialization
 * failure (two pushes of one machine at once, taking rows' locks in another order): each try is a
 * whole transaction, and the next one usually finds the other push done.
 */
export const PUSH_BATCH_TRIES = 3;

/** PostgreSQL's "try the transaction again": serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01']);

/** One batch, tried again after a deadlock; the error that ended it, or null once committed. */
async function sendBatch(client: pg.Client, batch: ReturnType<typeof batchOf>): Promise<unknown> {
  for (let attempt = 1; ; attempt++) {
    try {
      await upsertBatch(client, batch);
      return null;
    } catch (e) {
      if (attempt >= PUSH_BATCH_TRIES || !RETRYABLE.has((e as { code?: string }).code ?? '')) return e;
    }
  }
}

/** Send `pending` batch by batch over `client`, recording each committed batch. */
async function sendAll(
  r: Run,
  client: pg.Client,
  pending: QueueEntry[],
  current: Set<string>,
): Promise<PushOutcome> {
  const { i, out } = r;
  const queued = new Set(r.queue.entries.map((e) => e.key));
  const size = Math.max(1, i.batchRows);
  let done = 0;
  do {
    if (i.stopping()) {
      out.stopped = true;
      break;
    }
    const batch = pending.slice(done, done + size);
    const failed = await sendBatch(client, batchOf(i, batch));
    if (failed !== null)
      return queueRest(
        r,
        pending.slice(done),
        storeError(failed, i.url),
        troubleOf(failed) === 'unreachable',
      );
    done += batch.length;
    out.batches++;
    for (const e of batch) {
      if (current.has(e.key)) r.state.digests.set(e.key, e.digest);
      if (e.item.kind === 'session') out.sent.sessions++;
      else if (e.item.kind === 'spend') out.sent.spend++;
      else out.sent.quota++;
      if (queued.delete(e.key)) out.fromQueue++;
    }
    r.state.lastPushAt = r.at();
    saveState(r.place, r.state);
    if (r.queue.entries.length > 0 || r.queue.lastError !== null) {
      const entries = pending.slice(done).filter((e) => queued.has(e.key));
      // Emptied, the queue forgets its error too: nothing waits any more.
      r.queue = entries.length > 0 ? { ...r.queue, entries } : emptyQueue();
      saveQueue(r.place, r.queue);
    }
  } while (done < pending.length);
  return out;
}

/** One push (see the module comment). Never throws for the store's or the network's errors. */
export async function push(i: PushInput): Promise<PushOutcome> {
  const now = i.now ?? Date.now;
  const place = placeOf(i.env, i.url, i.host);
  const state: PushState = i.all
    ? { lastPushAt: loadState(place).lastPushAt, digests: new Map() }
    : loadState(place);
  const queue = loadQueue(place);
  const current = new Map<string, QueueEntry>();
  const items: PushItem[] = [
    ...i.sessions.map((row) => ({ kind: 'session' as const, row })),
    ...i.spend.map((row) => ({ kind: 'spend' as const, row })),
    ...(i.quota ?? []).map((row) => ({ kind: 'quota' as const, row })),
  ];
  const at = () => new Date(now()).toISOString();
  for (const item of items)
    current.set(itemKey(item), { key: itemKey(item), digest: itemDigest(item), queuedAt: '', item });
  // Digests of rows no longer on this machine are of no use: the state stays the size of the history.
  for (const k of [...state.digests.keys()]) if (!current.has(k)) state.digests.delete(k);
  let pending = pendingOf(current, state, queue, at());
  const out: PushOutcome = {
    store: place.store,
    role: place.role,
    host: i.host,
    sent: { sessions: 0, spend: 0, quota: 0 },
    fromQueue: 0,
    batches: 0,
    unchanged: [...current.values()].filter((e) => state.digests.get(e.key) === e.digest).length,
    heartbeat: false,
    stopped: false,
    skipped: 0,
    failure: null,
  };
  const last = state.lastPushAt === null ? null : Date.parse(state.lastPushAt);
  out.heartbeat = pending.length === 0 && (last === null || now() - last >= PUSH_HEARTBEAT_MS);
  if (pending.length === 0 && !out.heartbeat) return out;
  const r: Run = { i, place, state, queue, out, at };
  const c = await connectStore(i.url, i.env);
  if (c.kind === 'failed') return queueRest(r, pending, c.error, troubleOf(c.cause) === 'unreachable');
  try {
    const check = await checkSchema(c.client);
    if (check.kind !== 'current') return queueRest(r, pending, check.message, false);
    if (state.digests.size > 0 && !(await storeKnowsUs(c.client, i.host))) {
      state.digests.clear();
      out.unchanged = 0;
      pending = pendingOf(current, state, queue, at());
    }
    return await sendAll(r, c.client, pending, new Set(current.keys()));
  } catch (e) {
    return queueRest(r, pending, storeError(e, i.url), troubleOf(e) === 'unreachable');
  } finally {
    await c.client.end().catch(() => {});
  }
}
