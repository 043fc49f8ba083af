/**
 * Writing one push batch to the team store: every session row, spend row and quota row and the
 * machine's `pushers` row in ONE transaction, so a push killed half-way leaves the store as it was before the
 * batch, never part of it. Each table is one `INSERT … SELECT FROM unnest($1::text[], …) ON CONFLICT
 * DO UPDATE`: a batch is five statements whatever its size, and every value is a parameter.
 *
 * `developer` is never sent: its column defaults to `session_user` (the role that logged in), and row-level security refuses
 * rows of any other role, so the conflict target (the primary key) only ever meets the pusher's own
 * rows.
 *
 * Not here: choosing what to send (`push.ts` sends only rows that changed), bounding batches
 * (`MAX_PUSH_BATCH_ROWS` is checked here, cut by the caller).
 */
import type pg from 'pg';
import type { PushBatch, QuotaRow, SessionRow, SpendRow } from './rows.js';

/** The most rows (sessions + spend) one batch, and so one transaction, carries. */
export const MAX_PUSH_BATCH_ROWS = 2_000;

const SESSIONS_SQL = `
INSERT INTO sessions (host, harness, session_id, project, title, model, state, started_at, last_active_at,
  requests, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
  cost_usd, unpriced_tokens, facts)
SELECT $1, r.harness, r.session_id, r.project, r.title, r.model, r.state, r.started_at, r.last_active_at,
  r.requests, r.input_tokens, r.output_tokens, r.cache_read_tokens, r.cache_write_tokens, r.reasoning_tokens,
  r.cost_usd, r.unpriced_tokens, r.facts::jsonb
FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[],
  $9::timestamptz[], $10::integer[], $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[], $15::bigint[],
  $16::numeric[], $17::bigint[], $18::text[])
  AS r(harness, session_id, project, title, model, state, started_at, last_active_at, requests, input_tokens,
    output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, unpriced_tokens, facts)
ON CONFLICT (developer, host, harness, session_id) DO UPDATE SET
  project = EXCLUDED.project, title = EXCLUDED.title, model = EXCLUDED.model, state = EXCLUDED.state,
  started_at = EXCLUDED.started_at, last_active_at = EXCLUDED.last_active_at, requests = EXCLUDED.requests,
  input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens,
  cache_read_tokens = EXCLUDED.cache_read_tokens, cache_write_tokens = EXCLUDED.cache_write_tokens,
  reasoning_tokens = EXCLUDED.reasoning_tokens, cost_usd = EXCLUDED.cost_usd,
  unpriced_tokens = EXCLUDED.unpriced_tokens, facts = EXCLUDED.facts, pushed_at = now()`;

const SPEND_SQL = `
INSERT INTO spend_daily (host, harness, day, model, project, requests, input_tokens, output_tokens,
  cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, unpriced_tokens)
SELECT $1, r.harness, r.day, r.model, r.project, r.requests, r.input_tokens, r.output_tokens,
  r.cache_read_tokens, r.cache_write_tokens, r.reasoning_tokens, r.cost_usd, r.unpriced_tokens
FROM unnest($2::text[], $3::date[], $4::text[], $5::text[], $6::integer[], $7::bigint[], $8::bigint[],
  $9::bigint[], $10::bigint[], $11::bigint[], $12::numeric[], $13::bigint[])
  AS r(harness, day, model, project, requests, input_tokens, output_tokens, cache_read_tokens,
    cache_write_tokens, reasoning_tokens, cost_usd, unpriced_tokens)
ON CONFLICT (developer, host, harness, day, model, project) DO UPDATE SET
  requests = EXCLUDED.requests, input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens,
  cache_read_tokens = EXCLUDED.cache_read_tokens, cache_write_tokens = EXCLUDED.cache_write_tokens,
  reasoning_tokens = EXCLUDED.reasoning_tokens, cost_usd = EXCLUDED.cost_usd,
  unpriced_tokens = EXCLUDED.unpriced_tokens, pushed_at = now()`;

const QUOTA_SQL = `
INSERT INTO quota (host, harness, account, quota_window, plan, used_percent, resets_at, source, fetched_at)
SELECT $1, r.harness, r.account, r.quota_window, r.plan, r.used_percent, r.resets_at, r.source, r.fetched_at
FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::numeric[], $7::timestamptz[], $8::text[],
  $9::timestamptz[])
  AS r(harness, account, quota_window, plan, used_percent, resets_at, source, fetched_at)
ON CONFLICT (developer, host, harness, account, quota_window) DO UPDATE SET
  plan = EXCLUDED.plan, used_percent = EXCLUDED.used_percent, resets_at = EXCLUDED.resets_at,
  source = EXCLUDED.source, fetched_at = EXCLUDED.fetched_at, pushed_at = now()`;

const PUSHER_SQL = `
INSERT INTO pushers (host, cctop_version, time_zone) VALUES ($1, $2, $3)
ON CONFLICT (developer, host) DO UPDATE SET
  cctop_version = EXCLUDED.cctop_version, time_zone = EXCLUDED.time_zone, pushed_at = now()`;

/** The rows of one key once (the last wins): one statement may not update a row twice. */
function lastByKey<T>(rows: T[], key: (r: T) => string): T[] {
  const m = new Map<string, T>();
  for (const r of rows) m.set(key(r), r);
  return [...m.values()];
}

const col = <T, V>(rows: T[], f: (r: T) => V): V[] => rows.map(f);

/** The columns both tables end their tallies with, in the order both statements take them. */
function tallyParams(
  rows: Pick<SpendRow, 'requests' | 'tokens' | 'costUsd' | 'unpricedTokens'>[],
): unknown[] {
  return [
    col(rows, (r) => r.requests),
    col(rows, (r) => r.tokens.input),
    col(rows, (r) => r.tokens.output),
    col(rows, (r) => r.tokens.cacheRead),
    col(rows, (r) => r.tokens.cacheWrite),
    col(rows, (r) => r.tokens.reasoning),
    col(rows, (r) => r.costUsd),
    col(rows, (r) => r.unpricedTokens),
  ];
}

function sessionParams(host: string, rows: SessionRow[]): unknown[] {
  return [
    host,
    col(rows, (r) => r.harness),
    col(rows, (r) => r.sessionId),
    col(rows, (r) => r.project),
    col(rows, (r) => r.title),
    col(rows, (r) => r.model),
    col(rows, (r) => r.state),
    col(rows, (r) => r.startedAt),
    col(rows, (r) => r.lastActiveAt),
    ...tallyParams(rows),
    col(rows, (r) => JSON.stringify(r.facts)),
  ];
}

function spendParams(host: string, rows: SpendRow[]): unknown[] {
  return [
    host,
    col(rows, (r) => r.harness),
    col(rows, (r) => r.day),
    col(rows, (r) => r.model),
    col(rows, (r) => r.project),
    ...tallyParams(rows),
  ];
}

function quotaParams(host: string, rows: QuotaRow[]): unknown[] {
  return [
    host,
    col(rows, (r) => r.harness),
    col(rows, (r) => r.account),
    col(rows, (r) => r.window),
    col(rows, (r) => r.plan),
    col(rows, (r) => r.usedPercent),
    col(rows, (r) => r.resetsAt),
    col(rows, (r) => r.source),
    col(rows, (r) => r.fetchedAt),
  ];
}

/**
 * Write `batch` in one transaction (rolled back whole on any error, which is rethrown). The rows'
 * `host` is the batch's: a batch speaks for one machine.
 */
export async function upsertBatch(client: pg.Client, batch: PushBatch): Promise<void> {
  const n = batch.sessions.length + batch.spend.length + (batch.quota?.length ?? 0);
  if (n > MAX_PUSH_BATCH_ROWS)
    throw new RangeError(`a push batch holds at most ${MAX_PUSH_BATCH_ROWS} rows, this one ${n}`);
  const sessions = lastByKey(batch.sessions, (r) => `${r.harness}\0${r.sessionId}`);
  const spend = lastByKey(batch.spend, (r) => `${r.harness}\0${r.day}\0${r.model}\0${r.project}`);
  const quota = lastByKey(batch.quota ?? [], (r) => `${r.harness}\0${r.account}\0${r.window}`);
  await client.query('BEGIN');
  try {
    if (sessions.length > 0) await client.query(SESSIONS_SQL, sessionParams(batch.host, sessions));
    if (spend.length > 0) await client.query(SPEND_SQL, spendParams(batch.host, spend));
    if (quota.length > 0) await client.query(QUOTA_SQL, quotaParams(batch.host, quota));
    await client.query(PUSHER_SQL, [batch.host, batch.version, batch.timeZone]);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  }
}
