/**
 * `cctop store budget set|list|remove`: the team budgets kept in the store's `budgets` table, which
 * the team dashboard (`cctop serve --store`) shows with the spend against each.
 *
 *   cctop store budget set NAME --period day|week|month --usd N [--developer ROLE] [--project DIR] [--harness H]
 *   cctop store budget list [--json]
 *   cctop store budget remove NAME
 *
 * Who may change a budget is the database's rule: members of `cctop_budgets` (docs/team.md). Any role
 * cctop's schema knows may list them. Exit codes: 0 done, 1 the store refused or could not be reached
 * (or `remove` found no such budget), 2 a bad argument.
 *
 * Not here: the queries (`store/budgets.ts`), the spend against a budget (`store/team-budgets.ts`).
 */
import { loadConfig } from '../../config/index.js';
import { PROVIDERS } from '../../model/facts.js';
import {
  type BudgetInput,
  budgetRefusal,
  invalidBudget,
  listBudgets,
  removeBudget,
  setBudget,
  TEAM_PERIODS,
  type TeamBudget,
} from '../../store/budgets.js';
import { storeError, storeTarget } from '../../store/connect.js';
import { openStore } from '../../store/team-connect.js';
import { safeLine, terminalJson } from '../terminal-text.js';
import { padEnd, usd } from './format.js';
import type { Io } from './main.js';
import { parse, UsageError } from './options.js';

export const STORE_BUDGET_HELP = `cctop store budget: the team's budgets, kept in the team store

Usage:
  cctop store budget set NAME --period day|week|month --usd N [--developer ROLE] [--project DIR] [--harness H]
  cctop store budget list [--json]
  cctop store budget remove NAME

  set        add a budget, or replace the one of that name: a limit in dollars over the current day,
             week or month, for the spend it selects (every developer, project and harness unless
             --developer, --project or --harness narrow it; --project takes a directory and what is
             under it, as the pushers recorded it)
  list       every budget (--json: as JSON)
  remove     remove a budget
  --to URL   the store (else CCTOP_STORE_URL, else store.url in the config file); the password comes
             from ~/.pgpass or PGPASSWORD

Changing budgets needs a role in cctop_budgets (docs/team.md, "Team budgets"). The team dashboard
(cctop serve --store) shows each budget with the spend against it.
`;

const FLAGS = {
  to: { type: 'string' },
  period: { type: 'string' },
  usd: { type: 'string' },
  developer: { type: 'string' },
  project: { type: 'string' },
  harness: { type: 'string' },
  json: { type: 'boolean', short: 'j' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parse>['values'];
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** An absolute directory as a pusher records it: `/home/a/src` or `C:\\src`. */
const ABSOLUTE = /^(\/|[A-Za-z]:[\\/])/;

function budgetInput(name: string | undefined, values: Values): BudgetInput {
  if (name === undefined)
    throw new UsageError('store budget set needs a NAME (try cctop store budget --help)');
  const period = TEAM_PERIODS.find((p) => p === values.period);
  if (period === undefined) throw new UsageError('store budget set needs --period day, week or month');
  const usdText = str(values.usd);
  if (usdText === null) throw new UsageError('store budget set needs --usd N (dollars, e.g. 500)');
  if (!/^\d+(\.\d{1,2})?$/.test(usdText))
    throw new UsageError(`--usd ${usdText}: expected dollars, e.g. 500 or 1250.50`);
  const project = str(values.project);
  if (project !== null && !ABSOLUTE.test(project))
    throw new UsageError(
      `--project ${project}: expected an absolute directory as the pushers record it (e.g. /home/alice/src/app)`,
    );
  const harness = str(values.harness);
  if (harness !== null && !PROVIDERS.some((p) => p === harness))
    throw new UsageError(`--harness ${harness}: expected one of ${PROVIDERS.join(', ')}`);
  const b: BudgetInput = {
    name,
    period,
    usd: Number(usdText),
    developer: str(values.developer),
    project: project === null ? null : project.replace(/(?<=.)[\\/]+$/, ''),
    harness,
  };
  const bad = invalidBudget(b);
  if (bad !== null) throw new UsageError(bad);
  return b;
}

const all = (v: string | null): string => (v === null ? 'all' : safeLine(v));

function printList(io: Io, budgets: TeamBudget[], more: boolean): void {
  if (budgets.length === 0) {
    io.out('No team budgets. Add one: cctop store budget set NAME --period month --usd 500');
    return;
  }
  const rows = budgets.map((b) => [
    safeLine(b.name),
    b.period,
    usd(b.usd),
    all(b.developer),
    all(b.project),
    all(b.harness),
    `${safeLine(b.updatedBy)} ${b.updatedAt.slice(0, 10)}`,
  ]);
  const head = ['NAME', 'PERIOD', 'LIMIT', 'DEVELOPER', 'PROJECT', 'HARNESS', 'SET BY'];
  const widths = head.map((h, i) => Math.min(40, Math.max(h.length, ...rows.map((r) => r[i]!.length))));
  for (const r of [head, ...rows])
    io.out(
      r
        .map((c, i) => padEnd(c, widths[i]!))
        .join('  ')
        .trimEnd(),
    );
  if (more) io.out('(more budgets are stored than are listed; the first by name are shown)');
}

type Action =
  | { kind: 'set'; budget: BudgetInput }
  | { kind: 'list'; json: boolean }
  | { kind: 'remove'; name: string };

function actionOf(positionals: string[], values: Values): Action {
  const [verb, name, ...rest] = positionals;
  if (rest.length > 0)
    throw new UsageError(`store budget ${verb} takes one NAME (got ${rest.join(' ')} too)`);
  switch (verb) {
    case 'set':
      return { kind: 'set', budget: budgetInput(name, values) };
    case 'list':
      if (name !== undefined) throw new UsageError('store budget list takes no NAME');
      return { kind: 'list', json: values.json === true };
    case 'remove':
      if (name === undefined) throw new UsageError('store budget remove needs the NAME of a budget');
      return { kind: 'remove', name };
    default:
      throw new UsageError(
        `${verb === undefined ? 'store budget needs' : `store budget ${verb}: expected`} set, list or remove (try cctop store budget --help)`,
      );
  }
}

/** `cctop store budget …` (the words after `budget`); returns the exit code. */
export async function storeBudgetCommand(io: Io, args: string[]): Promise<number> {
  let action: Action;
  let to: string | undefined;
  try {
    const { values, positionals } = parse(args, FLAGS, 'store budget');
    if (values.help) {
      io.out(STORE_BUDGET_HELP);
      return 0;
    }
    action = actionOf(positionals, values);
    to = str(values.to) ?? undefined;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    // Names and paths from the command line are echoed: made safe for the terminal like any other.
    io.err(`cctop: ${safeLine(err.message)}`);
    return 2;
  }
  const target = storeTarget(to, io.env, loadConfig(io.env).config.store.url);
  if (target.kind === 'none') {
    io.err(`cctop store budget: ${target.why}`);
    return 2;
  }
  for (const w of target.warnings) io.err(`cctop store budget: ${w}`);
  const opened = await openStore(target.url, io.env);
  if (opened.kind === 'failed') {
    io.err(`cctop store budget: ${opened.error}`);
    return 1;
  }
  const client = opened.client;
  try {
    return await act(io, client, action);
  } catch (e) {
    const role = await client
      .query<{ u: string }>('SELECT current_user AS u')
      .then((r) => r.rows[0]?.u ?? '?')
      .catch(() => '?');
    io.err(`cctop store budget: ${budgetRefusal(e, safeLine(role)) ?? storeError(e, target.url)}`);
    return 1;
  } finally {
    await client.end().catch(() => {});
  }
}

async function act(io: Io, client: Parameters<typeof listBudgets>[0], action: Action): Promise<number> {
  switch (action.kind) {
    case 'set': {
      const b = action.budget;
      const { replaced } = await setBudget(client, b);
      io.out(
        `${replaced ? 'Replaced' : 'Added'} team budget ${safeLine(b.name)}: ${usd(b.usd)} a ${b.period} for developer ${all(b.developer)}, project ${all(b.project)}, harness ${all(b.harness)}`,
      );
      return 0;
    }
    case 'list': {
      const { budgets, more } = await listBudgets(client);
      if (action.json) io.out(terminalJson({ budgets, more }));
      else printList(io, budgets, more);
      return 0;
    }
    case 'remove': {
      if (await removeBudget(client, action.name)) {
        io.out(`Removed team budget ${safeLine(action.name)}`);
        return 0;
      }
      io.err(
        `cctop store budget: no team budget is named ${safeLine(action.name)} (cctop store budget list)`,
      );
      return 1;
    }
  }
}
