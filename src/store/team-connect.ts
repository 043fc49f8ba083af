/**
 * Opening the team store for reading or editing it (the team dashboard, `cctop store budget`): connect
 * with bounded waits, then check the schema, so that a store at another version is one plain sentence
 * naming the command that fixes it, never a failed query half-way through a page.
 *
 * Failures come back in two forms: `error`, the full sentence for the terminal that started cctop
 * (it names the store's address, without a password), and `kind`, a word safe to show anyone, since
 * the dashboard's page must never learn where the database is or who logs into it.
 *
 * Not here: pushing (`upsert.ts`), migrating (`migrate.ts`).
 */
import type pg from 'pg';
import type { Env } from '../providers/types.js';
import { connectStore, storeError } from './connect.js';
import { checkSchema } from './migrate.js';

/** What went wrong, in words that name neither the store's address nor its roles. */
export type StoreTrouble = 'unreachable' | 'refused' | 'schema' | 'failed';

export type Opened =
  | { kind: 'open'; client: pg.Client }
  | { kind: 'failed'; trouble: StoreTrouble; error: string };

/** The trouble an error from `pg` or the network is. */
export function troubleOf(e: unknown): StoreTrouble {
  const code = (e as { code?: string }).code ?? '';
  if (code.startsWith('28') || code === '42501' || code === '3D000') return 'refused';
  if (/^(E[A-Z]+|57P0[1-3]|08\d{3})$/.test(code)) return 'unreachable';
  const said = String((e as Error | undefined)?.message ?? '');
  // pg's own errors carry no code: a missing password (SASL), or a connection that timed out or dropped.
  if (/password|SASL/i.test(said)) return 'refused';
  return /timeout|terminat|connection/i.test(said) ? 'unreachable' : 'failed';
}

/** A client on a store at this cctop's schema, or what is wrong. The caller ends the client. */
export async function openStore(url: string, env: Env): Promise<Opened> {
  let client: pg.Client;
  try {
    const c = await connectStore(url, env);
    if (c.kind === 'failed') return { kind: 'failed', trouble: troubleOf(c.cause), error: c.error };
    client = c.client;
  } catch (e) {
    return { kind: 'failed', trouble: troubleOf(e), error: storeError(e, url) };
  }
  try {
    const check = await checkSchema(client);
    if (check.kind !== 'current') {
      await client.end().catch(() => {});
      return { kind: 'failed', trouble: 'schema', error: check.message };
    }
    return { kind: 'open', client };
  } catch (e) {
    await client.end().catch(() => {});
    return { kind: 'failed', trouble: troubleOf(e), error: storeError(e, url) };
  }
}
