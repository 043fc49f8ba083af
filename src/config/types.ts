/**
 * What the config file means once read: budgets, alert thresholds, how reports cut days, where
 * notifications go, which other machines to read (`hosts`) and the team store (`[store]`). Plain data with every
 * default filled in, so a view never asks whether a key was written. How the file is read and checked
 * is `config.ts`.
 */
import type { AcpAgent } from '../drive/acp/index.js';
import type { ProviderId } from '../model/facts.js';

export const PERIODS = ['day', 'week', 'month'] as const;
export type Period = (typeof PERIODS)[number];

export const WEEK_STARTS = ['monday', 'sunday'] as const;
export type StartOfWeek = (typeof WEEK_STARTS)[number];

/** A spending limit over a calendar period, for the sessions it selects. */
export interface Budget {
  /**
   * What the crossing memory files this budget under: period, harness, project and name, and not the
   * amount, so that raising the limit mid-month does not notify again for a level already crossed.
   */
  key: string;
  /** As written, or derived from what it selects: `day`, `month claude`, `week ~/src/app`. */
  name: string;
  period: Period;
  /** The limit, in retail dollars; always > 0. */
  usd: number;
  /** Only sessions whose project (cwd) is this directory or under it: absolute, `~` expanded. */
  project: string | null;
  harness: ProviderId | null;
}

export interface Alerts {
  /** Notify when a session fails the same call this many times in a row; null when turned off. */
  errorLoop: number | null;
  /** Notify when a working session writes nothing for this many minutes; null when turned off. */
  stallMinutes: number | null;
  /** Notify when a session spends faster than this, in dollars an hour; null when turned off. */
  burnUsdPerHour: number | null;
  /** Notify when a quota window (`cctop quota`) passes this share, in percent; null when turned off. */
  quotaPercent: number | null;
  /** Notify when a credential appears in a session that is writing (`cctop secrets` says where). */
  secrets: boolean;
}

/** The shapes a webhook can be sent in (`docs/notifications.md`). */
export const NOTIFY_FORMATS = ['json', 'ntfy', 'slack'] as const;
export type NotifyFormat = (typeof NOTIFY_FORMATS)[number];

/** Where notifications go besides the views' own bell and page (`docs/notifications.md`). */
export interface Notify {
  /** The webhook: an http(s) URL, as written; null for none. */
  url: string | null;
  format: NotifyFormat;
  /** Desktop notifications (`notify-send`, `osascript`) when the machine has one. */
  desktop: boolean;
  /** The dashboard's address (`http://127.0.0.1:7777`), to link each notice to its session; null for none. */
  dashboard: string | null;
}

export interface Reports {
  /** The zone days are cut in; null for the system zone. A `--timezone` flag wins over it. */
  timeZone: string | null;
  startOfWeek: StartOfWeek;
}

export interface Config {
  budgets: Budget[];
  alerts: Alerts;
  reports: Reports;
  notify: Notify;
  /** Other machines to read over ssh, as written (`docs/hosts.md`); `--host` and `CCTOP_HOSTS` win over it. */
  hosts: string[];
  /** The team store (`docs/team.md`): `cctop push` and `cctop serve --store`; `--to` and `CCTOP_STORE_URL` win over it. */
  store: { url: string | null };
  /** ACP agents named in `[acp.NAME]` tables, for `cctop exec` (`docs/drive.md`, "ACP agents"). */
  acp: AcpAgent[];
  /** Held requests (`cctop hooks install --approvals`, `docs/act.md`). */
  approvals: { holdSeconds: number };
}

/**
 * How long a deciding hook holds a request for an answer from cctop, by default: ten minutes, time to
 * see a phone notification and answer it; after that the agent's own dialog, which stayed up all
 * along, is the only way to answer. Written into the hook command at install time.
 */
export const DEFAULT_HOLD_SECONDS = 600;

/** The defaults `docs/config.md` states, as a fresh object each time (callers may keep and change it). */
export function defaultConfig(): Config {
  return {
    budgets: [],
    alerts: { errorLoop: 5, stallMinutes: 10, burnUsdPerHour: null, quotaPercent: 90, secrets: true },
    reports: { timeZone: null, startOfWeek: 'monday' },
    notify: { url: null, format: 'json', desktop: true, dashboard: null },
    hosts: [],
    store: { url: null },
    acp: [],
    approvals: { holdSeconds: DEFAULT_HOLD_SECONDS },
  };
}

/** A config as loaded: what to use, and what to tell the user about the file. */
export interface LoadedConfig {
  path: string;
  /** Whether there was a file at `path` (none is not an error: the defaults hold). */
  found: boolean;
  /** What to use: the defaults when the file was missing or could not be read. */
  config: Config;
  /** Settings that were left out or replaced by their defaults, each naming its key and line. */
  warnings: string[];
  /** Why the file as a whole was not used (unreadable, too large, not TOML), naming the line; else null. */
  error: string | null;
}
