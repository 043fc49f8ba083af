/**
 * The rows a push sends, made from what `cctop --json` and `cctop daily --json` are made from: the
 * session document (one `SessionRow` per session) and the ledger's usage cells (one `SpendRow` per
 * local day × harness × model × project, summed as the daily report sums them), and from what `cctop
 * quota` gathers (one `QuotaRow` per current figure). Nothing here reads a transcript.
 *
 * What leaves the machine is chosen here, field by field: the session's facts and numbers, never its
 * conversation. Titles (the first prompt, or the agent's summary of it) and branch names are words
 * people wrote: they go only with `cctop push --titles`. The state's detail (a tool's input, an
 * error's text) never goes.
 *
 * The rows are bounded and cleaned for the database: text cut at `MAX_STORE_TEXT_CHARS`, NUL (which
 * PostgreSQL refuses) replaced, and a row whose key is past its bound, or whose numbers do not fit
 * the columns, left out and counted rather than failing the whole batch.
 *
 * Not here: which rows changed (`deltas.ts`), writing them (`upsert.ts`).
 */
import type { SessionDoc } from '../model/document.js';
import type { QuotaFigure } from '../model/quota.js';
import { LocalTime } from '../model/time.js';
import { tallyOf } from '../model/totals.js';
import { type TokenCounts, totalTokens } from '../model/usage.js';
import type { SessionUsage } from '../model/usage-cells.js';
import { addTokenCounts } from '../model/usage-cells.js';
import type { QuotaRow, SessionRow, SpendRow } from './rows.js';

/**
 * The longest text a row keeps (a project path, a title, a model's name): a path is under 4,096
 * bytes on Linux, and a title is a line on a dashboard. Longer text is cut and marked with `…`.
 */
export const MAX_STORE_TEXT_CHARS = 4_096;
/** The longest key part (a session id, a host name, a harness): keys are refused past it, never cut. */
export const MAX_STORE_KEY_CHARS = 256;
/** The most model names a session's facts list: a session switches models a few times, not hundreds. */
export const MAX_FACT_MODELS = 32;
/** The largest `integer` column (requests). */
const MAX_INT4 = 2_147_483_647;
/** The largest cost `numeric(16, 6)` holds, in dollars. */
const MAX_COST_USD = 9_999_999_999;

/** Text as the store keeps it: no NUL, at most `MAX_STORE_TEXT_CHARS`. */
export function storeText(s: string): string {
  const clean = s.includes('\u0000') ? s.replaceAll('\u0000', '\ufffd') : s;
  return clean.length <= MAX_STORE_TEXT_CHARS ? clean : `${clean.slice(0, MAX_STORE_TEXT_CHARS - 1)}…`;
}

const optText = (s: string | null | undefined): string | null => (s == null ? null : storeText(s));

/** A key part, or null when it is empty or past its bound (the row is then left out). */
export function storeKey(s: string): string | null {
  return s.length === 0 || s.length > MAX_STORE_KEY_CHARS || s.includes('\u0000') ? null : s;
}

/** A count the bigint columns hold, or null (unknown, or not a count at all). */
const count = (v: number | null | undefined): number | null =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null;

function tokensOf(t: TokenCounts): TokenCounts {
  return {
    input: count(t.input),
    output: count(t.output),
    cacheRead: count(t.cacheRead),
    cacheWrite: count(t.cacheWrite),
    reasoning: count(t.reasoning),
  };
}

/** Dollars as `numeric(16, 6)` keeps them (to the micro-dollar), or null. */
const dollars = (v: number | null): number | null =>
  v === null || !Number.isFinite(v) || v < 0 || v > MAX_COST_USD ? null : Math.round(v * 1e6) / 1e6;

/** A timestamp the store accepts, or null. */
const isoTime = (s: string | null): string | null =>
  s !== null && Number.isFinite(Date.parse(s)) ? s : null;

/** The facts a team dashboard shows beside the columns: numbers and names, no sentences. */
function factsOf(s: SessionDoc, titles: boolean): Record<string, unknown> {
  const { used, window, compactAt } = s.context;
  const limit = compactAt ?? window;
  return {
    contextPercent:
      used !== null && limit !== null && limit > 0 ? Math.round((used / limit) * 1000) / 10 : null,
    contextUsed: count(used),
    contextWindow: count(window),
    compactAt: count(compactAt),
    toolCalls: count(s.tools.calls),
    toolFailures: count(s.tools.failed),
    compactions: count(s.compactions),
    aborts: count(s.aborts),
    linesAdded: count(s.lines.added),
    linesRemoved: count(s.lines.removed),
    running: s.running,
    deleted: s.deleted,
    subagents: count(s.subagentFiles),
    stateSource: s.stateSource,
    inferred: s.inferred,
    permission: s.permission,
    reasoningEffort: optText(s.reasoningEffort),
    pendingTool: optText(s.pendingTool),
    costSource: s.cost.source,
    included: s.cost.included,
    models: s.models.slice(0, MAX_FACT_MODELS).map(storeText),
    unpricedModels: s.cost.unpriced.slice(0, MAX_FACT_MODELS).map(storeText),
    ...(titles ? { branch: optText(s.branch) } : {}),
  };
}

export interface Built<T> {
  rows: T[];
  /** Rows left out: a key past its bound, or numbers the columns cannot hold. */
  skipped: number;
}

/** One row per session of the document (this machine's: rows from `--host` machines are theirs to push). */
export function sessionRows(
  sessions: readonly SessionDoc[],
  host: string,
  titles: boolean,
): Built<SessionRow> {
  const rows: SessionRow[] = [];
  let skipped = 0;
  for (const s of sessions) {
    const id = storeKey(s.id);
    if (s.host !== undefined) continue;
    if (id === null || !Number.isSafeInteger(s.requests) || s.requests < 0 || s.requests > MAX_INT4) {
      skipped++;
      continue;
    }
    rows.push({
      host,
      harness: s.provider,
      sessionId: id,
      project: optText(s.project),
      title: titles ? optText(s.title) : null,
      model: optText(s.model),
      state: s.state,
      startedAt: isoTime(s.startedAt),
      lastActiveAt: isoTime(s.lastActiveAt),
      requests: s.requests,
      tokens: tokensOf(s.tokens),
      costUsd: dollars(s.cost.usd),
      unpricedTokens: count(tallyOf(s).unpricedTokens) ?? 0,
      facts: factsOf(s, titles),
    });
  }
  return { rows, skipped };
}

/** The store's key of a spend row: harness, day, model, project. */
export const spendKey = (r: Pick<SpendRow, 'harness' | 'day' | 'model' | 'project'>): string =>
  `${r.harness}\u0000${r.day}\u0000${r.model}\u0000${r.project}`;

/**
 * Spend per local day (the cells' own days, cut in the index's zone as `cctop daily` cuts them),
 * harness, model and project. A session without a project is counted under `''`.
 */
export function spendRows(usage: readonly SessionUsage[], host: string): Built<SpendRow> {
  const byKey = new Map<string, SpendRow & { usd: number | null }>();
  let skipped = 0;
  for (const s of usage) {
    const project = s.project === null ? '' : storeText(s.project);
    for (const c of s.cells) {
      const model = storeKey(c.model);
      if (model === null) {
        skipped++;
        continue;
      }
      const key = { harness: s.provider, day: LocalTime.dayKey(c.day), model, project };
      const k = spendKey(key);
      let row = byKey.get(k);
      if (row === undefined) {
        row = {
          host,
          ...key,
          requests: 0,
          tokens: { input: null, output: null, cacheRead: null, cacheWrite: null, reasoning: null },
          costUsd: null,
          usd: null,
          unpricedTokens: 0,
        };
        byKey.set(k, row);
      }
      row.requests += c.requests;
      addTokenCounts(row.tokens, c.tokens);
      if (c.usd === null) row.unpricedTokens += totalTokens(c.tokens) ?? 0;
      else row.usd = (row.usd ?? 0) + c.usd;
    }
  }
  const rows: SpendRow[] = [];
  for (const { usd, ...row } of byKey.values()) {
    if (row.requests > MAX_INT4) {
      skipped++;
      continue;
    }
    rows.push({
      ...row,
      tokens: tokensOf(row.tokens),
      costUsd: dollars(usd),
      unpricedTokens: count(row.unpricedTokens) ?? 0,
    });
  }
  return { rows, skipped };
}

/** The largest percentage `numeric(9, 3)` holds: an over-limit window is past 100, never this far. */
const MAX_PERCENT = 999_999;

/**
 * This machine's current quota figures (`cctop quota`'s `quota` list), one row per harness, account
 * and window. cctop's pace is an estimate of this machine's and does not go: the figures are the agents'.
 */
export function quotaRows(figures: readonly QuotaFigure[], host: string): Built<QuotaRow> {
  const rows: QuotaRow[] = [];
  let skipped = 0;
  for (const f of figures) {
    const account = f.account === null ? '' : storeKey(f.account);
    const used = f.usedPercent;
    if (account === null || (used !== null && (!Number.isFinite(used) || used < 0 || used > MAX_PERCENT))) {
      skipped++;
      continue;
    }
    rows.push({
      host,
      harness: f.harness,
      account,
      window: f.window,
      plan: optText(f.plan),
      usedPercent: used === null ? null : Math.round(used * 1000) / 1000,
      resetsAt: isoTime(f.resetsAt),
      source: f.source,
      fetchedAt: isoTime(f.fetchedAt),
    });
  }
  return { rows, skipped };
}
