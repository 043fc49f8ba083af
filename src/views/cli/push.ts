/**
 * `cctop push`: this machine's sessions and spend into the team store (`docs/team.md`), once, or every
 * so often with `--every`. Each push takes the snapshot `cctop --json` takes (states settled with the
 * processes and the agents' hooks) and the ledger `cctop daily` sums, makes rows of them
 * (`store/build.ts`) and sends the ones that changed (`store/push.ts`).
 *
 * Exit codes: 0 pushed (or nothing had changed), 1 the store refused (its schema, a grant, a
 * password: someone must fix something), 2 a bad argument or no store given, 75 (EX_TEMPFAIL) the
 * store could not be reached and the rows wait in the queue: a timer or a script may simply try
 * again. `--every` runs until SIGINT or SIGTERM and then exits 0, between batches.
 *
 * Not here: what a row holds (`store/build.ts`), batches, deltas and the queue (`store/push.ts`).
 */
import { hostname } from 'node:os';
import { loadConfig } from '../../config/index.js';
import { gatherQuota, startOfToday } from '../../quota/gather.js';
import { quotaRows, sessionRows, spendRows, storeKey } from '../../store/build.js';
import { type StoreTarget, storeTarget } from '../../store/connect.js';
import { type PushOutcome, push } from '../../store/push.js';
import { MAX_PUSH_BATCH_ROWS } from '../../store/upsert.js';
import { safeLine, terminalJson } from '../terminal-text.js';
import type { Io } from './main.js';
import { commonOptions, parse, UsageError } from './options.js';
import { untilSignal } from './signals.js';
import { snapshot } from './snapshots.js';
import { version } from './version.js';

/** The shortest `--every`: a push is a warm index refresh and a few statements; more often is load for nothing. */
export const MIN_PUSH_EVERY_MS = 10_000;
/** The longest `--every`: a day (a longer wait is a cron job's, not a process's). */
export const MAX_PUSH_EVERY_MS = 86_400_000;
/** The first wait after a failed push under `--every`; it doubles with each failure in a row. */
export const PUSH_RETRY_FIRST_MS = 5_000;
/** The longest wait between retries: a store back after an outage hears from every machine within this. */
export const MAX_PUSH_RETRY_MS = 5 * 60_000;
/** The exit code of a push whose rows were queued because the store could not be reached (sysexits' EX_TEMPFAIL). */
export const EXIT_QUEUED = 75;

export const PUSH_HELP = `cctop push: this machine's sessions and spend into the team store

Usage: cctop push [--to URL] [--as NAME] [--titles] [--every 60s] [--json]

Sends each session's facts (harness, project, model, state, times, requests, tokens, cost, context
and tool figures; never the conversation) and the spend per day, harness, model and project, as
cctop --json and cctop daily count them. Only rows that changed since the last push are sent, in
batches of at most ${MAX_PUSH_BATCH_ROWS} rows, each one transaction. The developer is the database
role the URL logs in as; the password comes from ~/.pgpass or PGPASSWORD, never the command line.
When the store cannot be reached the rows wait in a local queue, sent first by the next push that
connects (cctop store status shows it). See docs/team.md.

Options:
  --to URL              the store: postgres://ROLE@HOST/DB (else CCTOP_STORE_URL, else store.url)
  --as NAME             the machine's name in the store (default: this host name)
  --titles              send session titles and branch names too (words people wrote)
  --every DURATION      keep pushing, every DURATION (60s, 5m, 1h); retries with backoff after a
                        failure; SIGINT or SIGTERM stop it between batches
  --all                 send every row, whether or not it changed
  -j, --json            one JSON line per push
  --timezone ZONE       cut spend days in this zone (default: the system's)
  --no-cache, --threads N   as for cctop --list
  -h, --help            this help

Exit codes: 0 pushed or nothing changed, 1 the store refused (schema, grants, password),
2 a bad argument or no store, ${EXIT_QUEUED} the store could not be reached (the rows are queued).
`;

const FLAGS = {
  to: { type: 'string' },
  as: { type: 'string' },
  titles: { type: 'boolean' },
  every: { type: 'string' },
  all: { type: 'boolean' },
  json: { type: 'boolean', short: 'j' },
  timezone: { type: 'string' },
  'no-cache': { type: 'boolean' },
  threads: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `60s`, `5m`, `1h`, or plain seconds, as milliseconds within the bounds. */
export function parseEvery(v: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim());
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[m?.[2] ?? 's'] ?? 1_000;
  const ms = m ? Number(m[1]) * unit : Number.NaN;
  if (!Number.isFinite(ms) || ms < MIN_PUSH_EVERY_MS || ms > MAX_PUSH_EVERY_MS)
    throw new UsageError(
      `--every ${v}: expected a duration from ${MIN_PUSH_EVERY_MS / 1000}s to ${MAX_PUSH_EVERY_MS / 3_600_000}h (e.g. 60s, 5m, 1h)`,
    );
  return ms;
}

/** The machine's name in the store: `--as`, else the host name; refused past the key bound. */
export function hostName(as: string | undefined): string {
  const name = as ?? hostname();
  if (storeKey(name) === null || /[\u0000-\u001f\u007f]/.test(name))
    throw new UsageError(
      `${as === undefined ? `the host name ${JSON.stringify(safeLine(name))}` : `--as ${safeLine(name)}`}: expected 1 to 256 printable characters`,
    );
  return name;
}

/** The store from `--to`, CCTOP_STORE_URL or the config, its warnings said. */
export function targetOf(io: Io, flag: string | undefined, command: string): StoreTarget {
  const target = storeTarget(flag, io.env, loadConfig(io.env).config.store.url);
  if (target.kind === 'url') for (const w of target.warnings) io.err(`cctop ${command}: ${w}`);
  return target;
}

/** Rows per batch: `CCTOP_PUSH_BATCH_ROWS` (tests, a slow link) within 1..MAX_PUSH_BATCH_ROWS. */
function batchRows(io: Io): number {
  const n = Number(io.env.CCTOP_PUSH_BATCH_ROWS);
  return Number.isSafeInteger(n) && n >= 1 ? Math.min(n, MAX_PUSH_BATCH_ROWS) : MAX_PUSH_BATCH_ROWS;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The line a push prints, or null for a quiet one under `--every`. */
function said(o: PushOutcome, every: boolean): string | null {
  const where = `${safeLine(o.store)} as ${safeLine(o.role)} from ${safeLine(o.host)}`;
  const sent = o.sent.sessions + o.sent.spend + o.sent.quota;
  const parts: string[] = [];
  const quota = o.sent.quota > 0 ? ` and ${plural(o.sent.quota, 'quota figure')}` : '';
  if (sent > 0)
    parts.push(
      `pushed ${plural(o.sent.sessions, 'session')}${quota === '' ? ' and' : ','} ${plural(o.sent.spend, 'spend row')}${quota} to ${where} (${plural(o.batches, 'batch', 'batches')}${o.fromQueue > 0 ? `, ${o.fromQueue} from the queue` : ''}; ${o.unchanged} unchanged)`,
    );
  else if (o.heartbeat && o.failure === null)
    parts.push(`nothing changed; told ${where} this machine is still pushing`);
  if (o.stopped) parts.push('stopped between batches: the rest goes with the next push');
  if (o.skipped > 0)
    parts.push(`${plural(o.skipped, 'row')} left out (a key too long, or numbers out of range)`);
  if (o.failure !== null) {
    const f = o.failure;
    parts.push(
      f.queued > 0
        ? `${safeLine(f.error)}: ${plural(f.queued, 'row')} wait in the queue for the next push (cctop store status shows it)`
        : `${safeLine(f.error)} (nothing had changed: nothing waits)`,
    );
    if (f.dropped > 0)
      parts.push(
        `the queue holds at most its newest rows: ${f.dropped} older ones were dropped (still sent later if their sessions are on this machine)`,
      );
  }
  if (parts.length === 0)
    return every ? null : `nothing changed since the last push (${o.unchanged} rows unchanged)`;
  return parts.join('; ');
}

export const exitOf = (o: PushOutcome): number =>
  o.failure === null ? 0 : o.failure.unreachable ? EXIT_QUEUED : 1;

interface PushPlan {
  url: string;
  host: string;
  titles: boolean;
  all: boolean;
  json: boolean;
  everyMs: number | null;
  options: ReturnType<typeof commonOptions>;
}

/** One push: the snapshot, the rows, the send. */
async function pushOnce(io: Io, plan: PushPlan, stopping: () => boolean): Promise<PushOutcome> {
  const s = await snapshot(plan.options, io.env);
  const sessions = sessionRows(s.document.sessions, plan.host, plan.titles);
  const spend = spendRows(s.index.usage(), plan.host);
  const nowMs = Date.now();
  // The figures `cctop quota` shows (only the harnesses asked for); cctop's pace stays on the machine.
  const figures = gatherQuota({
    env: io.env,
    sessions: s.document.sessions,
    usage: s.index.usage(),
    providers: plan.options.providers,
    nowMs,
    startOfTodayMs: startOfToday(s.time, nowMs),
  }).quota;
  const quota = quotaRows(figures, plan.host);
  const out = await push({
    env: io.env,
    url: plan.url,
    host: plan.host,
    version: version(),
    timeZone: s.document.timeZone,
    sessions: sessions.rows,
    spend: spend.rows,
    quota: quota.rows,
    batchRows: batchRows(io),
    all: plan.all,
    stopping,
  });
  out.skipped = sessions.skipped + spend.skipped + quota.skipped;
  return out;
}

function report(io: Io, plan: PushPlan, o: PushOutcome): void {
  if (plan.json) {
    io.out(terminalJson({ at: new Date().toISOString(), ...o }));
    return;
  }
  const line = said(o, plan.everyMs !== null);
  if (line === null) return;
  if (o.failure === null) io.out(line);
  else io.err(`cctop push: ${line}`);
}

/**
 * One push of `--every`, said; whether it delivered. What is not the store's fault (the cache
 * directory cannot be written, the index cannot be read) is said too, and retried like a failure.
 */
async function attempt(io: Io, plan: PushPlan, stopping: () => boolean): Promise<boolean> {
  try {
    const o = await pushOnce(io, plan, stopping);
    report(io, plan, o);
    return o.failure === null;
  } catch (e) {
    io.err(`cctop push: ${safeLine((e as Error).message ?? String(e))}`);
    return false;
  }
}

/** `--every`: push, wait, push again until a signal; after a failure, wait the backoff instead. */
async function pushEvery(io: Io, plan: PushPlan, everyMs: number): Promise<number> {
  let stop = false;
  let wake = () => {};
  void untilSignal().then(() => {
    stop = true;
    wake();
  });
  let failures = 0;
  while (!stop) {
    const ok = await attempt(io, plan, () => stop);
    failures = ok ? 0 : failures + 1;
    const wait =
      failures === 0
        ? everyMs
        : Math.min(PUSH_RETRY_FIRST_MS * 2 ** Math.min(failures - 1, 16), MAX_PUSH_RETRY_MS);
    if (stop) break;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
  return 0;
}

function planOf(io: Io, values: Record<string, unknown>): PushPlan | number {
  const target = targetOf(io, values.to as string | undefined, 'push');
  if (target.kind === 'none') {
    io.err(`cctop push: ${target.why}`);
    return 2;
  }
  return {
    url: target.url,
    host: hostName(values.as as string | undefined),
    titles: values.titles === true,
    all: values.all === true,
    json: values.json === true,
    everyMs: typeof values.every === 'string' ? parseEvery(values.every) : null,
    // Retail prices and every harness, whatever else this machine's views show: the team adds them up.
    options: { ...commonOptions(values), plan: 'retail' },
  };
}

/** `cctop push …` (the words after `push`); returns the exit code. */
export async function pushCommand(io: Io, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, FLAGS, 'push');
  if (values.help) {
    io.out(PUSH_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new UsageError(`push takes no arguments (got ${safeLine(positionals[0]!)})`);
  const plan = planOf(io, values);
  if (typeof plan === 'number') return plan;
  if (plan.everyMs !== null) return pushEvery(io, plan, plan.everyMs);
  let stop = false;
  void untilSignal().then(() => {
    stop = true;
  });
  const o = await pushOnce(io, plan, () => stop).catch((e: unknown) => e as Error);
  if (o instanceof Error) {
    io.err(`cctop push: ${safeLine(o.message)}`);
    return 1;
  }
  report(io, plan, o);
  return exitOf(o);
}
