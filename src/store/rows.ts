/**
 * The rows a push sends to the team store, as TypeScript: one `SessionRow` per session in the
 * `sessions` table, one `SpendRow` per day × harness × model × project in `spend_daily`, one
 * `QuotaRow` per harness × account × quota window in `quota`, and the
 * `PushBatch` that carries some of each with the pushing machine's name, cctop version and report
 * zone (the `pushers` row). Field names are the columns' names in camelCase.
 *
 * `developer` is in no row: the database sets it to the role that pushes (`current_user`), and its
 * row-level security refuses any other value, so a machine cannot write as someone else.
 *
 * Absent is not zero here either: a token field the harness did not record is null, cost is null
 * when nothing has a price, and tokens on unpriced models are counted in `unpricedTokens`.
 *
 * Not here: building rows from the index and ledger (`build.ts`), writing them (`upsert.ts`).
 */
import type { TokenCounts } from '../model/usage.js';

export interface SessionRow {
  /** The machine the session ran on (`os.hostname()` or `cctop push --as NAME`). */
  host: string;
  /** The harness (provider id: `claude`, `codex`, …). */
  harness: string;
  sessionId: string;
  /** The working directory the session started in. */
  project: string | null;
  /** Only with `cctop push --titles`; null otherwise. */
  title: string | null;
  model: string | null;
  state: string;
  /** ISO timestamps. */
  startedAt: string | null;
  lastActiveAt: string | null;
  requests: number;
  /** The five token fields; null = the harness did not say. */
  tokens: TokenCounts;
  /** Null: nothing the session used has a known price. */
  costUsd: number | null;
  unpricedTokens: number;
  /** The document's other non-text facts a team dashboard shows (context %, tool failures, …). */
  facts: Record<string, unknown>;
}

export interface SpendRow {
  host: string;
  harness: string;
  /** `YYYY-MM-DD` in the pusher's report zone (`PushBatch.timeZone`). */
  day: string;
  model: string;
  /** The working directory, or '' when the session has none. */
  project: string;
  requests: number;
  tokens: TokenCounts;
  costUsd: number | null;
  unpricedTokens: number;
}

/**
 * One quota figure of this machine (`cctop quota`): a window of an account, as its source last saw it.
 * Whether it is stale is asked when it is read (its window may reset after the push).
 */
export interface QuotaRow {
  host: string;
  harness: string;
  /** The account as the agent names it; '' when it does not (the key cannot hold null). */
  account: string;
  /** `5h`, `7d`, `7d-opus`, `7d-sonnet`, `extra`. */
  window: string;
  plan: string | null;
  /** 0–100 (past 100: over the limit); null when the source names the window without a figure. */
  usedPercent: number | null;
  /** ISO timestamps. */
  resetsAt: string | null;
  /** `agent-cache`, `statusline`, `rollout`. */
  source: string;
  fetchedAt: string | null;
}

export interface PushBatch {
  host: string;
  /** This cctop's version, for the `pushers` row. */
  version: string;
  /** The IANA zone the spend days were cut in. */
  timeZone: string;
  sessions: SessionRow[];
  spend: SpendRow[];
  /** Absent in a batch of an older queue: none. */
  quota?: QuotaRow[];
}
