/**
 * How this machine stands with the team store, for `cctop store status` and `cctop doctor`: what its
 * own files say (the last committed push, the queue) and what the store says when it answers (its
 * schema version, this machine's `pushers` row). Reading only: nothing is sent or changed.
 *
 * Not here: printing it (`views/cli/store.ts`, `views/cli/doctor.ts`).
 */
import type { Env } from '../providers/types.js';
import { connectStore, storeError } from './connect.js';
import { loadQueue, loadState, placeOf } from './local.js';
import { checkSchema } from './migrate.js';
import { SCHEMA_VERSION } from './schema.js';

export interface LocalStatus {
  store: string;
  role: string;
  host: string;
  /** When this machine's last batch was committed (its state file), or null. */
  lastPushAt: string | null;
  /** Rows pushed and recorded in the state file. */
  rowsPushed: number;
  queue: {
    rows: number;
    /** When the oldest queued row was queued. */
    oldest: string | null;
    lastError: string | null;
    lastErrorAt: string | null;
    dropped: number;
  };
}

export function localStatus(env: Env, url: string, host: string): LocalStatus {
  const place = placeOf(env, url, host);
  const state = loadState(place);
  const q = loadQueue(place);
  let oldest: string | null = null;
  for (const e of q.entries) if (oldest === null || e.queuedAt < oldest) oldest = e.queuedAt;
  return {
    store: place.store,
    role: place.role,
    host,
    lastPushAt: state.lastPushAt,
    rowsPushed: state.digests.size,
    queue: {
      rows: q.entries.length,
      oldest,
      lastError: q.lastError,
      lastErrorAt: q.lastErrorAt,
      dropped: q.dropped,
    },
  };
}

export type RemoteStatus =
  | { reachable: false; error: string }
  | {
      reachable: true;
      /** The role the store sees (`session_user`: the one logged in, whose rows a push writes). */
      role: string;
      schema: { at: number; wanted: number; problem: string | null };
      /** Each machine name's `pushers` row (`at` null: none yet), when the schema is this cctop's. */
      pushed: { host: string; at: string | null; version: string | null }[];
      /** A query after connecting failed (a grant missing): said, `pushed` left empty. */
      error: string | null;
    };

/** Ask the store about the machine names `hosts` (bounded by the connection's own waits). */
export async function remoteStatus(env: Env, url: string, hosts: readonly string[]): Promise<RemoteStatus> {
  const c = await connectStore(url, env);
  if (c.kind === 'failed') return { reachable: false, error: c.error };
  const client = c.client;
  try {
    const role = (await client.query<{ u: string }>('SELECT session_user AS u')).rows[0]?.u ?? '?';
    const check = await checkSchema(client);
    const at = check.kind === 'current' ? SCHEMA_VERSION : check.at;
    const schema = { at, wanted: SCHEMA_VERSION, problem: check.kind === 'current' ? null : check.message };
    if (check.kind !== 'current') return { reachable: true, role, schema, pushed: [], error: null };
    try {
      const r = await client.query<{ host: string; pushed_at: Date; cctop_version: string }>(
        'SELECT host, pushed_at, cctop_version FROM pushers WHERE developer = session_user AND host = ANY($1::text[])',
        [hosts],
      );
      const pushed = hosts.map((host) => {
        const row = r.rows.find((x) => x.host === host);
        return row
          ? { host, at: row.pushed_at.toISOString(), version: String(row.cctop_version).slice(0, 64) }
          : { host, at: null, version: null };
      });
      return { reachable: true, role, schema, pushed, error: null };
    } catch (e) {
      return { reachable: true, role, schema, pushed: [], error: storeError(e, url) };
    }
  } catch (e) {
    return { reachable: false, error: storeError(e, url) };
  } finally {
    await client.end().catch(() => {});
  }
}
