/**
 * From the parsed TOML tables to a `Config`: every key checked against the schema in
 * `docs/config.md`. A key cctop does not know, or a value of the wrong kind, is a warning and never
 * an error: a budget written wrong is left out, an alert threshold written wrong keeps its default,
 * and everything else in the file still applies.
 *
 * Not here: reading the file, TOML syntax, or which line a key is on (`config.ts`, `lines.ts`). A
 * warning names where it applies as a locator (`alerts.stall_minutes`, `budget#2.usd`) that
 * `config.ts` turns into a line.
 */
import { isAbsolute, resolve } from 'node:path';
import { MAX_HOLD_SECONDS } from '../approvals/types.js';
import { PROVIDERS, type ProviderId } from '../model/facts.js';
import { WORKING_TTL_MS } from '../model/state.js';
import { LocalTime } from '../model/time.js';
import { home } from '../providers/fsutil.js';
import type { Env } from '../providers/types.js';
import { readAcp } from './acp.js';
import { isTable, shown, type Table } from './toml.js';
import {
  type Alerts,
  type Budget,
  type Config,
  DEFAULT_HOLD_SECONDS,
  defaultConfig,
  NOTIFY_FORMATS,
  type Notify,
  type NotifyFormat,
  PERIODS,
  type Period,
  type Reports,
  WEEK_STARTS,
} from './types.js';
import { dashboardUrl, webhookUrl } from './urls.js';

/** Where a finding applies (a locator: `alerts.stall_minutes`, `budget#2`) and what it says. */
export type Warn = (at: string, message: string) => void;

/**
 * Budgets a file may set. Each one costs a pass over the index's spend on every refresh of the live
 * table; a few are the use, and 64 is far past any hand-written file. Further ones are left out.
 */
export const MAX_BUDGETS = 64;

/** A budget's name is one cell of a table row: 80 characters is already more than it shows. */
export const MAX_BUDGET_NAME_CHARS = 80;

/** Linux's PATH_MAX: no directory a session runs in has a longer path. */
export const MAX_PROJECT_CHARS = 4096;

/** Minutes after which a quiet session is no longer read as working: a stall alert must come sooner. */
const WORKING_LAPSE_MINUTES = WORKING_TTL_MS / 60_000;

/** Fewer failures than this in a row are not a loop: one failed call is ordinary work. */
const MIN_ERROR_LOOP = 2;

/** `budget#2.usd` → `budget.usd`: the key as it is written in the file. */
export const keyOf = (at: string): string => at.replace(/#\d+/g, '');

const TOP_KEYS = ['budget', 'alerts', 'reports', 'notify', 'hosts', 'store', 'acp', 'approvals'] as const;

function unknownKeys(table: Table, at: string, known: readonly string[], warn: Warn): void {
  for (const k of Object.keys(table)) {
    const where = at === '' ? k : `${at}.${k}`;
    if (known.includes(k)) continue;
    // TOML's trap: a key written below a [table] header belongs to that table.
    const misplaced = at !== '' && (TOP_KEYS as readonly string[]).includes(k);
    const hint = misplaced ? ` (a top-level ${k} goes above the first [table] header)` : '';
    warn(where, `key "${keyOf(where)}" is not a cctop setting${hint}`);
  }
}

/** Reads the whole parsed file. */
export function readConfig(raw: Table, env: Env, warn: Warn): Config {
  const config = defaultConfig();
  unknownKeys(raw, '', TOP_KEYS, warn);
  if (raw.budget !== undefined) config.budgets = readBudgets(raw.budget, env, warn);
  if (raw.alerts !== undefined) config.alerts = readAlerts(raw.alerts, warn);
  if (raw.reports !== undefined) config.reports = readReports(raw.reports, warn);
  if (raw.notify !== undefined) config.notify = readNotify(raw.notify, warn);
  if (raw.approvals !== undefined) config.approvals = readApprovals(raw.approvals, warn);
  if (raw.hosts !== undefined) config.hosts = readHosts(raw.hosts, warn);
  if (raw.store !== undefined) config.store = readStore(raw.store, warn);
  if (raw.acp !== undefined) config.acp = readAcp(raw.acp, warn);
  return config;
}

function readBudgets(v: unknown, env: Env, warn: Warn): Budget[] {
  if (!Array.isArray(v)) {
    warn('budget', 'budget must be written as [[budget]] entries (one per budget); no budget is set');
    return [];
  }
  const out: Budget[] = [];
  for (const [i, entry] of v.entries()) {
    const at = `budget#${i + 1}`;
    if (out.length === MAX_BUDGETS) {
      warn(at, `more than ${MAX_BUDGETS} budgets: budget ${i + 1} and those after it are left out`);
      break;
    }
    const b = readBudget(entry, at, env, warn);
    if (b === null) continue;
    if (out.some((o) => o.key === b.key)) {
      warn(
        at,
        `budget ${i + 1} repeats "${b.name}" (same name, period, project and harness); it is left out`,
      );
      continue;
    }
    out.push(b);
  }
  return out;
}

const BUDGET_KEYS = ['name', 'period', 'usd', 'project', 'harness'] as const;

/** One `[[budget]]`, or null (with a warning saying why) when any of its settings is wrong. */
function readBudget(v: unknown, at: string, env: Env, warn: Warn): Budget | null {
  const n = at.slice(at.indexOf('#') + 1);
  const drop = (key: string, message: string): null => {
    warn(`${at}.${key}`, `budget ${n}: ${message}; this budget is left out`);
    return null;
  };
  if (!isTable(v)) {
    warn(at, `budget ${n} is ${shown(v)}, not a table of settings; it is left out`);
    return null;
  }
  unknownKeys(v, at, BUDGET_KEYS, warn);
  if (v.period === undefined) return drop('period', 'period is missing (day, week or month)');
  if (!PERIODS.includes(v.period as Period))
    return drop('period', `period = ${shown(v.period)}: expected day, week or month`);
  const period = v.period as Period;
  if (v.usd === undefined) return drop('usd', 'usd is missing (the limit in dollars)');
  if (typeof v.usd !== 'number' || !Number.isFinite(v.usd) || v.usd <= 0)
    return drop('usd', `usd = ${shown(v.usd)}: expected an amount in dollars above 0`);
  let name: string | null = null;
  if (v.name !== undefined) {
    if (typeof v.name !== 'string' || v.name.trim() === '' || v.name.length > MAX_BUDGET_NAME_CHARS)
      return drop(
        'name',
        `name = ${shown(v.name)}: expected text of 1 to ${MAX_BUDGET_NAME_CHARS} characters`,
      );
    name = v.name.trim();
  }
  let project: string | null = null;
  if (v.project !== undefined) {
    project = projectDir(v.project, env);
    if (project === null)
      return drop('project', `project = ${shown(v.project)}: expected a directory, absolute or under ~`);
  }
  let harness: ProviderId | null = null;
  if (v.harness !== undefined) {
    if (!PROVIDERS.includes(v.harness as ProviderId))
      return drop('harness', `harness = ${shown(v.harness)}: expected one of ${PROVIDERS.join(', ')}`);
    harness = v.harness as ProviderId;
  }
  // The default name says what the budget selects, as the file wrote it (`~/src/app`, not expanded).
  name ??= [period, harness, project === null ? null : (v.project as string).trim()]
    .filter((w) => w !== null)
    .join(' ');
  const key = JSON.stringify([period, harness, project, name]);
  return { key, name, period, usd: v.usd, project, harness };
}

/** An absolute directory, `~` expanded and normalised (no trailing slash, no `..`); null when not one. */
function projectDir(v: unknown, env: Env): string | null {
  if (typeof v !== 'string') return null;
  const s = v.trim();
  if (s === '' || s.length > MAX_PROJECT_CHARS) return null;
  const expanded = s === '~' ? home(env) : s.startsWith('~/') ? `${home(env)}${s.slice(1)}` : s;
  // A relative path would mean a different directory for each process that reads the file.
  return isAbsolute(expanded) ? resolve(expanded) : null;
}

function readAlerts(v: unknown, warn: Warn): Alerts {
  const alerts = defaultConfig().alerts;
  if (!isTable(v)) {
    warn('alerts', `alerts is ${shown(v)}, not a table ([alerts]); the default alerts hold`);
    return alerts;
  }
  unknownKeys(
    v,
    'alerts',
    ['error_loop', 'stall_minutes', 'burn_usd_per_hour', 'quota_percent', 'secrets'],
    warn,
  );
  // Called before the setting is assigned, so `fallback` is still its default.
  const bad = (key: string, message: string, fallback: number | null) =>
    warn(
      `alerts.${key}`,
      `alerts.${key} = ${shown(v[key])}: ${message}; ${fallback === null ? 'it stays off' : `the default ${fallback} holds`}`,
    );
  const loop = v.error_loop;
  if (loop === 0) alerts.errorLoop = null;
  else if (typeof loop === 'number' && Number.isInteger(loop) && loop >= MIN_ERROR_LOOP)
    alerts.errorLoop = loop;
  else if (loop !== undefined)
    bad(
      'error_loop',
      `expected a whole number of failures, ${MIN_ERROR_LOOP} or more (0 turns it off)`,
      alerts.errorLoop,
    );
  const stall = v.stall_minutes;
  if (stall === 0) alerts.stallMinutes = null;
  else if (typeof stall === 'number' && stall > 0 && stall < WORKING_LAPSE_MINUTES)
    alerts.stallMinutes = stall;
  else if (stall !== undefined)
    bad(
      'stall_minutes',
      `expected minutes above 0 and under ${WORKING_LAPSE_MINUTES} (after ${WORKING_LAPSE_MINUTES} a quiet session is no longer working; 0 turns it off)`,
      alerts.stallMinutes,
    );
  const burn = v.burn_usd_per_hour;
  if (burn === 0) alerts.burnUsdPerHour = null;
  else if (typeof burn === 'number' && Number.isFinite(burn) && burn > 0) alerts.burnUsdPerHour = burn;
  else if (burn !== undefined)
    bad('burn_usd_per_hour', 'expected dollars an hour above 0 (0 turns it off)', alerts.burnUsdPerHour);
  const quota = v.quota_percent;
  if (quota === 0) alerts.quotaPercent = null;
  else if (typeof quota === 'number' && quota > 0 && quota <= 100) alerts.quotaPercent = quota;
  else if (quota !== undefined)
    bad('quota_percent', 'expected a percentage above 0, up to 100 (0 turns it off)', alerts.quotaPercent);
  const secrets = v.secrets;
  if (typeof secrets === 'boolean') alerts.secrets = secrets;
  else if (secrets !== undefined)
    warn('alerts.secrets', `alerts.secrets = ${shown(secrets)}: expected true or false; it stays on`);
  return alerts;
}

function readReports(v: unknown, warn: Warn): Reports {
  const reports = defaultConfig().reports;
  if (!isTable(v)) {
    warn('reports', `reports is ${shown(v)}, not a table ([reports]); the defaults hold`);
    return reports;
  }
  unknownKeys(v, 'reports', ['timezone', 'start_of_week'], warn);
  if (v.timezone !== undefined) {
    if (typeof v.timezone === 'string' && knownZone(v.timezone)) reports.timeZone = v.timezone;
    else
      warn(
        'reports.timezone',
        `reports.timezone = ${shown(v.timezone)}: expected a zone name such as Europe/Paris; the system zone is used`,
      );
  }
  const start = typeof v.start_of_week === 'string' ? v.start_of_week.toLowerCase() : v.start_of_week;
  if (WEEK_STARTS.includes(start as Reports['startOfWeek']))
    reports.startOfWeek = start as Reports['startOfWeek'];
  else if (start !== undefined)
    warn(
      'reports.start_of_week',
      `reports.start_of_week = ${shown(v.start_of_week)}: expected monday or sunday; weeks start on monday`,
    );
  return reports;
}

/** `[approvals]`: `hold`, whole seconds from 1 to an hour (the most a hook command may ask for). */
function readApprovals(v: unknown, warn: Warn): Config['approvals'] {
  const approvals = defaultConfig().approvals;
  if (!isTable(v)) {
    warn('approvals', `approvals is ${shown(v)}, not a table ([approvals]); the defaults hold`);
    return approvals;
  }
  unknownKeys(v, 'approvals', ['hold'], warn);
  const h = v.hold;
  if (typeof h === 'number' && Number.isInteger(h) && h >= 1 && h <= MAX_HOLD_SECONDS)
    approvals.holdSeconds = h;
  else if (h !== undefined)
    warn(
      'approvals.hold',
      `approvals.hold = ${shown(h)}: expected whole seconds from 1 to ${MAX_HOLD_SECONDS}; ${DEFAULT_HOLD_SECONDS} holds`,
    );
  return approvals;
}

/** `[notify]`: each setting written wrong keeps its default (no webhook, desktop on, no links). */
function readNotify(v: unknown, warn: Warn): Notify {
  const notify = defaultConfig().notify;
  if (!isTable(v)) {
    warn('notify', `notify is ${shown(v)}, not a table ([notify]); the defaults hold`);
    return notify;
  }
  unknownKeys(v, 'notify', ['url', 'format', 'desktop', 'dashboard'], warn);
  if (v.url !== undefined) {
    const url = typeof v.url === 'string' ? webhookUrl(v.url) : { ok: false as const, why: 'expected text' };
    if (url.ok) notify.url = url.url;
    else warn('notify.url', `notify.url = ${shown(v.url)}: ${url.why}; no webhook is sent`);
  }
  const format = typeof v.format === 'string' ? v.format.toLowerCase() : v.format;
  if (NOTIFY_FORMATS.includes(format as NotifyFormat)) notify.format = format as NotifyFormat;
  else if (format !== undefined)
    warn('notify.format', `notify.format = ${shown(v.format)}: expected json, ntfy or slack; json is sent`);
  if (typeof v.desktop === 'boolean') notify.desktop = v.desktop;
  else if (v.desktop !== undefined)
    warn('notify.desktop', `notify.desktop = ${shown(v.desktop)}: expected true or false; it stays on`);
  if (v.dashboard !== undefined) {
    const url =
      typeof v.dashboard === 'string'
        ? dashboardUrl(v.dashboard)
        : { ok: false as const, why: 'expected text' };
    if (url.ok) notify.dashboard = url.url;
    else
      warn('notify.dashboard', `notify.dashboard = ${shown(v.dashboard)}: ${url.why}; notices carry no link`);
  }
  return notify;
}

/** Whether `Intl` knows the zone (it throws RangeError for a name it does not). */
function knownZone(name: string): boolean {
  try {
    new LocalTime(name);
    return true;
  } catch {
    return false;
  }
}

function readHosts(v: unknown, warn: Warn): string[] {
  if (Array.isArray(v) && v.every((h) => typeof h === 'string')) return v as string[];
  warn('hosts', `hosts = ${shown(v)}: expected a list of host names; it is ignored`);
  return [];
}

function readStore(v: unknown, warn: Warn): Config['store'] {
  if (!isTable(v)) {
    warn('store', `store is ${shown(v)}, not a table ([store]); it is ignored`);
    return { url: null };
  }
  unknownKeys(v, 'store', ['url'], warn);
  if (v.url === undefined || typeof v.url === 'string') return { url: v.url ?? null };
  warn('store.url', `store.url = ${shown(v.url)}: expected text; it is ignored`);
  return { url: null };
}
