/**
 * What the alert watcher (`alerts.ts`) is given and what it gives back: the kinds of alert, the
 * picture it looks at after a refresh, and the readers it asks for a session's calls and secrets.
 *
 * Not here: when an alert fires (`alerts.ts`), or what it says (`views/alert-text.ts`).
 */
import type { BudgetState, Config, Level } from '../config/index.js';
import type { CallLog } from '../model/calls.js';
import type { ReadPoint } from '../model/conversation.js';
import type { SessionDoc, SessionDocument } from '../model/document.js';
import type { QuotaFigure } from '../model/quota.js';
import type { LocalTime } from '../model/time.js';
import type { SessionUsage } from '../model/usage-cells.js';
import type { Env } from '../providers/types.js';
import type { QuotaReport } from '../quota/gather.js';
import type { SecretEnds } from '../secrets/feed.js';
import type { SecretsRead } from './secrets-read.js';

/** One alert: what crossed, and what a person needs to hear about it. */
export type Alert =
  /** A budget's spend reached 80% (`near`) or 100% (`over`) of its limit this period. */
  | { kind: 'budget'; state: BudgetState; level: Exclude<Level, 'ok'> }
  /** A working session has written nothing for `quietMinutes`. */
  | { kind: 'stall'; session: SessionDoc; quietMinutes: number }
  /** A session spends faster than the limit (`burnRate` says how the rate is measured). */
  | { kind: 'burn'; session: SessionDoc; usdPerHour: number; limitUsdPerHour: number }
  /** A session failed the same call (tool and input) `count` times in a row. */
  | { kind: 'error-loop'; session: SessionDoc; tool: string; input: string; count: number }
  /**
   * A quota window (`cctop quota`) passed the config's share, or at today's burn runs out before it
   * resets (cctop's estimate, `runsOutAt`). About an account, not one session.
   */
  | { kind: 'quota'; figure: QuotaFigure; crossed: QuotaCrossing; nowMs: number }
  /**
   * Credentials written into a session since cctop first saw it (`cctop secrets` lists where), as
   * their kinds and ends only: an alert is sent on, and must not carry a secret further than it was.
   */
  | { kind: 'secret'; session: SessionDoc; found: SecretEnds[] };

/** Why a quota window alerts. */
export type QuotaCrossing = { why: 'threshold'; percent: number } | { why: 'runs-out'; at: string };

/** What the watcher looks at after a refresh. */
export interface AlertInput {
  doc: SessionDocument;
  /** Every session's usage cells; only asked when a budget is set (decoding them is the costly part). */
  usage: () => readonly SessionUsage[];
  config: Pick<Config, 'budgets' | 'alerts' | 'reports'>;
  nowMs: number;
  /** The zone the usage cells' days are in. */
  time: LocalTime;
  /** The accounts' quota and its pace; absent where the view reads none. */
  quota?: () => Pick<QuotaReport, 'quota' | 'pace'>;
}

/** Reads one session's calls in full (the live views' `DeepReader`, off the main thread). */
export type CallsOf = (session: SessionDoc) => Promise<CallLog>;

/** Reads the secrets of one session's transcript, from a point on where its reader can (the `DeepReader`). */
export type SecretsOf = (session: SessionDoc, from: ReadPoint | null) => Promise<SecretsRead>;

export interface AlertWatcherOptions {
  /** Where the budget crossing memory lives (the cache directory). */
  env: Env;
  calls: CallsOf;
  /** Where a view reads none (a test of other alerts), no secret alert is raised. */
  secrets?: SecretsOf;
  /** Error loops and new secrets, found after `update` returned (a transcript is read first). */
  later: (alerts: Alert[]) => void;
}
