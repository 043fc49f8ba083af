/**
 * The team dashboard's first question to the store: which sessions, on anyone's machine, are working
 * or waiting now, and how recently each machine pushed (a machine that stopped pushing leaves its last
 * states behind, which the dashboard shows as stale with their age instead of as live).
 *
 * Everything read here was written by other people's machines, so every text is cut by the database
 * before it travels (`left(…)`), every field is checked on arrival, and a row that fails is dropped
 * and counted, never shown half-read.
 *
 * Not here: spend (`team-spend.ts`), budgets (`team-budgets.ts`), deciding what "stale" means to the
 * page (`views/team/`).
 */
import type pg from 'pg';

/**
 * Running and waiting sessions read per poll. A team of a hundred runs a few hundred at once; the bound
 * keeps a store full of sessions stuck in "working" from growing every page. Waiting ones come first,
 * then the most recently active, so what is cut is the quietest.
 */
export const MAX_TEAM_SESSIONS = 500;
/**
 * Characters of one text field (project, title, model, host, developer) read from the store; longer
 * ones arrive cut and marked with `…`. A path or a title is far shorter; a hostile pusher's is not.
 */
export const MAX_TEAM_TEXT_CHARS = 300;
/** Session ids longer than this are no harness's; such a row is dropped and counted. */
export const MAX_TEAM_ID_CHARS = 256;

export const CUT_MARK = '…';

export type LiveState = 'working' | 'waiting';

export interface TeamSession {
  developer: string;
  host: string;
  harness: string;
  sessionId: string;
  project: string | null;
  /** Only when its pusher sends titles (`cctop push --titles`). */
  title: string | null;
  model: string | null;
  state: LiveState;
  /** ms since the epoch; null when unknown. */
  startedAtMs: number | null;
  lastActiveAtMs: number | null;
  /** When its machine last pushed anything (the `pushers` row); null when it has no such row. */
  pushedAtMs: number | null;
  requests: number | null;
  /** Null: no price (not $0). */
  costUsd: number | null;
  unpricedTokens: number;
}

export interface TeamSessions {
  sessions: TeamSession[];
  /** Working or waiting sessions in the store beyond `MAX_TEAM_SESSIONS`. */
  more: number;
  /** Rows that failed a check (an oversized id, an unknown state) and are not shown. */
  dropped: number;
}

/** A text column cut by the database to one past the bound, so an over-long one can be marked. */
const cut = (column: string, as: string) => `left(${column}, ${MAX_TEAM_TEXT_CHARS + 1}) AS ${as}`;

const SQL = `
SELECT ${cut('s.developer', 'developer')}, ${cut('s.host', 'host')}, ${cut('s.harness', 'harness')},
  left(s.session_id, ${MAX_TEAM_ID_CHARS + 1}) AS session_id, ${cut('s.project', 'project')},
  ${cut('s.title', 'title')}, ${cut('s.model', 'model')}, s.state, s.started_at, s.last_active_at,
  s.requests, s.cost_usd::text AS cost_usd, s.unpriced_tokens::text AS unpriced_tokens,
  p.pushed_at AS pushed_at, count(*) OVER () AS total
FROM sessions s LEFT JOIN pushers p ON p.developer = s.developer AND p.host = s.host
WHERE s.state IN ('working', 'waiting')
ORDER BY (s.state = 'waiting') DESC, s.last_active_at DESC NULLS LAST, s.developer, s.host, s.session_id
LIMIT $1`;

interface Row {
  developer: string;
  host: string;
  harness: string;
  session_id: string;
  project: string | null;
  title: string | null;
  model: string | null;
  state: string;
  started_at: Date | null;
  last_active_at: Date | null;
  requests: number | null;
  cost_usd: string | null;
  unpriced_tokens: string;
  pushed_at: Date | null;
  total: string;
}

/** A text as the page may show it: cut at the bound with a mark. */
export function bounded(s: string): string {
  return s.length > MAX_TEAM_TEXT_CHARS ? `${s.slice(0, MAX_TEAM_TEXT_CHARS)}${CUT_MARK}` : s;
}

const orNull = (s: string | null): string | null => (s === null || s === '' ? null : bounded(s));
const ms = (d: Date | null): number | null => (d === null || Number.isNaN(d.getTime()) ? null : d.getTime());

/** A money or count column read as text (numeric, bigint): a finite number, or null. */
export function numberOf(v: string | null): number | null {
  if (v === null) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

function sessionOf(r: Row): TeamSession | null {
  if (r.state !== 'working' && r.state !== 'waiting') return null;
  if (r.session_id.length === 0 || r.session_id.length > MAX_TEAM_ID_CHARS) return null;
  return {
    developer: bounded(r.developer),
    host: bounded(r.host),
    harness: bounded(r.harness),
    sessionId: r.session_id,
    project: orNull(r.project),
    title: orNull(r.title),
    model: orNull(r.model),
    state: r.state,
    startedAtMs: ms(r.started_at),
    lastActiveAtMs: ms(r.last_active_at),
    pushedAtMs: ms(r.pushed_at),
    requests: r.requests,
    costUsd: numberOf(r.cost_usd),
    unpricedTokens: numberOf(r.unpriced_tokens) ?? 0,
  };
}

/** Everyone's working and waiting sessions, waiting first, at most `MAX_TEAM_SESSIONS`. */
export async function readTeamSessions(client: pg.Client): Promise<TeamSessions> {
  const r = await client.query<Row>(SQL, [MAX_TEAM_SESSIONS]);
  const sessions: TeamSession[] = [];
  for (const row of r.rows) {
    const s = sessionOf(row);
    if (s !== null) sessions.push(s);
  }
  const total = numberOf(r.rows[0]?.total ?? null) ?? 0;
  return { sessions, more: Math.max(0, total - r.rows.length), dropped: r.rows.length - sessions.length };
}
