/**
 * The store's schema version, and bringing it up to this cctop's. Each migration runs in its own
 * transaction with its row in `cctop_schema`, so a migrate killed half-way leaves the schema at the
 * last whole step, and two migrates at once are serialised by an advisory lock.
 *
 * Not here: the migrations themselves (`schema.ts`).
 */
import type pg from 'pg';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';

/** Any number, held while migrating, so that two `cctop store migrate` do not race. */
const MIGRATE_LOCK = 0x63_63_74_70;

/** The version a database's schema is at: 0 for one cctop never migrated. */
export async function schemaVersion(client: pg.Client): Promise<number> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass('cctop_schema')::text AS t");
  if (exists.rows[0]?.t === null || exists.rows[0]?.t === undefined) return 0;
  const r = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM cctop_schema');
  return r.rows[0]?.v ?? 0;
}

export type SchemaCheck =
  | { kind: 'current' }
  | { kind: 'older'; at: number; message: string }
  | { kind: 'newer'; at: number; message: string };

/** Whether this cctop can use the store as it is, and if not the command that fixes it. */
export async function checkSchema(client: pg.Client): Promise<SchemaCheck> {
  const at = await schemaVersion(client);
  if (at === SCHEMA_VERSION) return { kind: 'current' };
  if (at < SCHEMA_VERSION)
    return {
      kind: 'older',
      at,
      message:
        at === 0
          ? 'the store has no cctop schema yet: run `cctop store migrate` (as the database owner)'
          : `the store's schema is version ${at}, this cctop needs ${SCHEMA_VERSION}: run \`cctop store migrate\` (as the database owner)`,
    };
  return {
    kind: 'newer',
    at,
    message: `the store's schema is version ${at}, newer than this cctop knows (${SCHEMA_VERSION}): update cctop (in its clone, \`git pull && npm ci && npm install -g .\`)`,
  };
}

/** Apply every migration the database lacks; returns the versions applied, in order. */
export async function migrate(client: pg.Client): Promise<number[]> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATE_LOCK]);
  try {
    const at = await schemaVersion(client);
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (m.version <= at) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO cctop_schema (version) VALUES ($1)', [m.version]);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK');
        throw e;
      }
      applied.push(m.version);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATE_LOCK]);
  }
}
