/**
 * `cctop store migrate|status|budget`: the team store itself (`docs/team.md`). `migrate` brings the
 * schema to this cctop's version (run by the database's owner), `status` says how this machine stands
 * with it (reachable, schema, last push, queue), and `budget` edits the team budgets
 * (`store-budget.ts`).
 *
 * Exit codes: 0 done (status: the store answered at this cctop's schema and nothing waits in the
 * queue), 1 the store refused or could not be reached (status: or rows wait), 2 a bad argument.
 *
 * Not here: pushing (`push.ts`), the queries (`store/migrate.ts`, `store/status.ts`).
 */

import { pushedHosts } from '../../store/local.js';
import { migrate, schemaVersion } from '../../store/migrate.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../store/schema.js';
import { type LocalStatus, localStatus, type RemoteStatus, remoteStatus } from '../../store/status.js';
import { safeLine, terminalJson } from '../terminal-text.js';
import { counted } from './format.js';
import type { Io } from './main.js';
import { parse, UsageError } from './options.js';
import { hostName, targetOf } from './push.js';
import { closest } from './typo.js';

export const STORE_HELP = `cctop store: the team store (PostgreSQL; docs/team.md)

Usage:
  cctop store migrate [--to URL]              create or update the store's tables, roles' grants and
                                              row-level security (as the database's owner)
  cctop store status [--to URL] [--as NAME] [--json]
                                              the store (without its password), whether it answers, its
                                              schema version, this machine's last push and its queue
  cctop store budget set|list|remove ...      the team budgets (cctop store budget --help)

The URL comes from --to, else CCTOP_STORE_URL, else store.url in the config file; the password
from ~/.pgpass or PGPASSWORD.

Options:
  --to URL            the store: postgres://ROLE@HOST/DB
  --as NAME           the machine's name in the store, as given to cctop push --as
  -j, --json          status as JSON
  -h, --help          this help
`;

const FLAGS = {
  to: { type: 'string' },
  as: { type: 'string' },
  json: { type: 'boolean', short: 'j' },
  help: { type: 'boolean', short: 'h' },
} as const;

const ACTIONS = ['migrate', 'status', 'budget'] as const;

/** `cctop store …` (the words after `store`); returns the exit code. */
export async function storeCommand(io: Io, args: string[]): Promise<number> {
  const at = actionAt(args);
  if (args[at] === 'budget')
    return budgetCommand(
      io,
      args.filter((_, i) => i !== at),
    );
  const { values, positionals } = parse(args, FLAGS, 'store');
  if (values.help) {
    io.out(STORE_HELP);
    return 0;
  }
  const [action, ...more] = positionals;
  if (action === undefined || more.length > 0 || !ACTIONS.some((a) => a === action)) {
    const near = action === undefined ? null : closest(action, ACTIONS);
    throw new UsageError(
      `store ${action === undefined ? 'needs' : `${safeLine(action)}: expected`} migrate, status or budget${near ? `; did you mean ${near}?` : ''} (try cctop store --help)`,
    );
  }
  const target = targetOf(io, values.to as string | undefined, `store ${action}`);
  if (target.kind === 'none') {
    io.err(`cctop store ${action}: ${target.why}`);
    return 2;
  }
  if (action === 'migrate') return migrateCommand(io, target.url);
  return statusCommand(io, target.url, values.as as string | undefined, values.json === true);
}

/** Where the action word is: the first word that is not an option or the value of one. */
function actionAt(args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--to' || a === '--as') i++;
    else if (!a.startsWith('-')) return i;
  }
  return -1;
}

async function budgetCommand(io: Io, args: string[]): Promise<number> {
  return (await import('./store-budget.js')).storeBudgetCommand(io, args);
}

async function migrateCommand(io: Io, url: string): Promise<number> {
  const { connectStore, storeError } = await import('../../store/connect.js');
  const c = await connectStore(url, io.env);
  if (c.kind === 'failed') {
    io.err(`cctop store migrate: ${c.error}`);
    return 1;
  }
  try {
    const before = await schemaVersion(c.client);
    if (before > SCHEMA_VERSION) {
      io.err(
        `cctop store migrate: the store's schema is version ${before}, newer than this cctop knows (${SCHEMA_VERSION}): update cctop (in its clone, \`git pull && npm ci && npm install -g .\`)`,
      );
      return 1;
    }
    const applied = await migrate(c.client);
    if (applied.length === 0) io.out(`The store is already at schema version ${before}: nothing to do.`);
    for (const v of applied)
      io.out(`Applied migration ${v}: ${MIGRATIONS.find((m) => m.version === v)?.summary ?? ''}`);
    if (applied.length > 0) io.out(`The store is at schema version ${applied.at(-1)}.`);
    return 0;
  } catch (e) {
    io.err(`cctop store migrate: ${storeError(e, url)}`);
    return 1;
  } finally {
    await c.client.end().catch(() => {});
  }
}

/** One machine name's lines: the store's `pushers` row, the state file's last push, the queue. */
function hostLines(local: LocalStatus, remote: RemoteStatus): string[] {
  const lines = [`machine    ${safeLine(local.host)}`];
  const row =
    remote.reachable && remote.error === null ? remote.pushed.find((p) => p.host === local.host) : undefined;
  if (row !== undefined)
    lines.push(
      `in store   ${row.at === null ? 'no push under this name yet' : `last push ${row.at} by cctop ${safeLine(row.version ?? '?')}`}`,
    );
  lines.push(
    `last push  ${local.lastPushAt === null ? 'none recorded here' : `${local.lastPushAt} (${local.rowsPushed} rows recorded as sent)`}`,
  );
  const q = local.queue;
  lines.push(
    q.rows === 0 ? 'queue      empty' : `queue      ${counted(q.rows, 'row')} waiting since ${q.oldest}`,
  );
  if (q.lastError !== null)
    lines.push(`           last error at ${q.lastErrorAt ?? '?'}: ${safeLine(q.lastError)}`);
  if (q.dropped > 0) lines.push(`           ${q.dropped} older rows dropped past the queue's bound`);
  return lines;
}

/** The lines of `status` (and of doctor's "Team store"), indented by the caller. */
export function statusLines(locals: readonly LocalStatus[], remote: RemoteStatus): string[] {
  const first = locals[0]!;
  const lines = [`store      ${safeLine(first.store)} as ${safeLine(first.role)}`];
  if (!remote.reachable) lines.push(`reachable  no: ${safeLine(remote.error)}`);
  else {
    lines.push(`reachable  yes, as role ${safeLine(remote.role)}`);
    const s = remote.schema;
    lines.push(
      `schema     version ${s.at}${s.problem === null ? ' (this cctop’s)' : `: ${safeLine(s.problem)}`}`,
    );
    if (remote.error !== null) lines.push(`           ${safeLine(remote.error)}`);
  }
  for (const local of locals) lines.push(...hostLines(local, remote));
  return lines;
}

/** This machine's names in the store: `--as` alone, else the host name and every name pushed under from here. */
function hostsOf(env: Io['env'], url: string, as: string | undefined): string[] {
  if (as !== undefined) return [hostName(as)];
  return [...new Set([hostName(undefined), ...pushedHosts(env, url)])];
}

/** Local and remote status of every name. */
async function statusOf(env: Io['env'], url: string, hosts: readonly string[]) {
  const locals = hosts.map((h) => localStatus(env, url, h));
  return { locals, remote: await remoteStatus(env, url, hosts) };
}

async function statusCommand(io: Io, url: string, as: string | undefined, json: boolean): Promise<number> {
  const { locals, remote } = await statusOf(io.env, url, hostsOf(io.env, url, as));
  const ok =
    remote.reachable &&
    remote.schema.problem === null &&
    remote.error === null &&
    locals.every((l) => l.queue.rows === 0);
  if (json) io.out(terminalJson({ machines: locals, remote }));
  else for (const line of statusLines(locals, remote)) io.out(line);
  return ok ? 0 : 1;
}

/**
 * `cctop doctor`'s "Team store" lines, or null when no store is configured (CCTOP_STORE_URL or the
 * config's store.url): the host name and every `--as` name pushed under from here.
 */
export async function storeDoctorLines(env: Io['env']): Promise<string[] | null> {
  const { loadConfig } = await import('../../config/index.js');
  const { storeTarget } = await import('../../store/connect.js');
  const target = storeTarget(undefined, env, loadConfig(env).config.store.url);
  if (target.kind === 'none') return null;
  let hosts: string[];
  try {
    hosts = hostsOf(env, target.url, undefined);
  } catch (e) {
    return [safeLine((e as Error).message)];
  }
  const { locals, remote } = await statusOf(env, target.url, hosts);
  return statusLines(locals, remote);
}
