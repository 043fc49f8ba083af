/**
 * The team dashboard's quota: each developer's newest figure per harness, account and window, from
 * whichever of their machines saw it last (the agent's own fetch time, else when it was pushed), and
 * whether it is stale: a figure whose window has reset since says what was used in a window that no
 * longer exists, so the page never shows it as current. Stale is asked of the database's clock as it
 * is read, not stored: a window resets whether or not anyone pushes.
 *
 * Everything here was written by other people's machines: texts are cut by the database before they
 * travel, every field is checked on arrival, and a row that fails is dropped and counted.
 *
 * Not here: writing the rows (`upsert.ts`), what the page draws (`views/team/`).
 */
import type pg from 'pg';
import { QUOTA_WINDOWS, type QuotaSource, type QuotaWindow } from '../model/quota.js';
import { bounded, MAX_TEAM_TEXT_CHARS, numberOf } from './team-sessions.js';

/**
 * Figures read per poll: a developer has a handful (two harnesses, up to five windows each); a
 * thousand developers' is under ten thousand, and the page has no room for more than a few hundred.
 */
export const MAX_TEAM_QUOTA = 2_000;

export interface TeamQuota {
  developer: string;
  harness: string;
  /** The account as the agent names it; null when it does not. */
  account: string | null;
  window: QuotaWindow;
  /** 0–100, the agent's word; null when the source names the window without a figure. */
  usedPercent: number | null;
  resetsAtMs: number | null;
  source: Exclude<QuotaSource, 'estimate'>;
  fetchedAtMs: number | null;
  /** The machine that pushed it. */
  host: string;
  /** The window has reset since the figure was read. */
  stale: boolean;
}

export interface TeamQuotas {
  quota: TeamQuota[];
  /** Figures beyond `MAX_TEAM_QUOTA`. */
  more: number;
  /** Rows that failed a check (an unknown window or source) and are not shown. */
  dropped: number;
}

const cut = (column: string, as: string) => `left(${column}, ${MAX_TEAM_TEXT_CHARS + 1}) AS ${as}`;

const SQL = `
SELECT ${cut('developer', 'developer')}, ${cut('host', 'host')}, ${cut('harness', 'harness')},
  ${cut('account', 'account')}, left(quota_window, 16) AS quota_window, used_percent::text AS used_percent,
  resets_at, left(source, 16) AS source, fetched_at, resets_at IS NOT NULL AND resets_at <= now() AS stale,
  count(*) OVER () AS total
FROM (
  SELECT DISTINCT ON (developer, harness, account, quota_window) *
  FROM quota
  ORDER BY developer, harness, account, quota_window, fetched_at DESC NULLS LAST, pushed_at DESC
) newest
ORDER BY developer, harness, account, quota_window
LIMIT $1`;

interface Row {
  developer: string;
  host: string;
  harness: string;
  account: string;
  quota_window: string;
  used_percent: string | null;
  resets_at: Date | null;
  source: string;
  fetched_at: Date | null;
  stale: boolean;
  total: string;
}

const SOURCES: readonly TeamQuota['source'][] = ['agent-cache', 'statusline', 'rollout'];
const ms = (d: Date | null): number | null => (d === null || Number.isNaN(d.getTime()) ? null : d.getTime());

function quotaOf(r: Row): TeamQuota | null {
  const window = QUOTA_WINDOWS.find((w) => w === r.quota_window);
  const source = SOURCES.find((s) => s === r.source);
  const used = numberOf(r.used_percent);
  if (window === undefined || source === undefined || (r.used_percent !== null && used === null)) return null;
  return {
    developer: bounded(r.developer),
    harness: bounded(r.harness),
    account: r.account === '' ? null : bounded(r.account),
    window,
    usedPercent: used,
    resetsAtMs: ms(r.resets_at),
    source,
    fetchedAtMs: ms(r.fetched_at),
    host: bounded(r.host),
    stale: r.stale === true,
  };
}

/** Each developer's newest quota figures, by developer, harness, account and window. */
export async function readTeamQuota(client: pg.Client): Promise<TeamQuotas> {
  const r = await client.query<Row>(SQL, [MAX_TEAM_QUOTA]);
  const quota: TeamQuota[] = [];
  for (const row of r.rows) {
    const q = quotaOf(row);
    if (q !== null) quota.push(q);
  }
  const total = numberOf(r.rows[0]?.total ?? null) ?? 0;
  return { quota, more: Math.max(0, total - r.rows.length), dropped: r.rows.length - quota.length };
}
