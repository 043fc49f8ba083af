/**
 * The commands about money, wired to the config file: the spend reports (`daily`, `weekly`,
 * `monthly`, `blocks`, `spend`), `budget`, and the budgets line under `cctop --list`. The config's
 * `[reports]` settings apply under the command line's (`--timezone` wins), and what is wrong with the
 * file is said on stderr while the command runs on its defaults.
 *
 * Not here: the reports (`src/spend/`), their printing (`spend.ts`, `spend-table.ts`, `budget.ts`).
 */
// Not the folder's index: that loads the TOML parser and `drive/` even when there is no file to read.
import { budgetStates } from '../../config/budgets.js';
import { loadConfigIfAny } from '../../config/load.js';
import type { LoadedConfig } from '../../config/types.js';
import type { LocalTime } from '../../model/time.js';
import type { SessionUsage } from '../../model/usage-cells.js';
import type { Env } from '../../providers/types.js';
import type { Paint } from './color.js';
import { demoEnv } from './demo.js';
import type { Io } from './main.js';
import type { CommonOptions } from './options.js';

export type MoneyCommand = 'daily' | 'weekly' | 'monthly' | 'blocks' | 'spend' | 'budget';

interface Configured {
  o: CommonOptions;
  env: Env;
  loaded: LoadedConfig;
}

/** The options with the config's zone under them; `tell`: say the file's problems on stderr. */
async function withConfig(io: Io, o: CommonOptions, tell: boolean): Promise<Configured> {
  const loaded = await loadConfigIfAny(io.env);
  if (tell) for (const w of [...loaded.warnings, loaded.error ?? []].flat()) io.err(`cctop: ${w}`);
  // As `zoneFor` says, from the file already read.
  const timeZone = o.timeZone ?? loaded.config.reports.timeZone ?? undefined;
  return { o: { ...o, timeZone }, env: o.demo ? demoEnv(io.env) : io.env, loaded };
}

export async function moneyCommand(
  io: Io,
  command: MoneyCommand,
  options: CommonOptions,
  values: Record<string, unknown>,
): Promise<number> {
  // `cctop budget` says what is wrong with the file itself, and fails on it.
  const { o, env, loaded } = await withConfig(io, options, command !== 'budget');
  if (command === 'budget') return (await import('./budget-hosts.js')).budgetRun(io, o, env, loaded, values);
  const spend = await import('./spend.js');
  values['start-of-week'] ??= loaded.config.reports.startOfWeek;
  if (command === 'blocks') return spend.blocksCommand(io, o, env, values);
  if (command === 'spend') return spend.whereCommand(io, o, env, values);
  return spend.periodCommand(io, command, o, env, values);
}

/** The budgets of the config file on one line (the foot of `cctop --list`), or null when there are none. */
export async function budgetLine(
  io: Io,
  /** Asked only when a budget is set: decoding every session's cells is not free. */
  usage: () => SessionUsage[],
  time: LocalTime,
  colors: Paint,
): Promise<string | null> {
  const { config, error } = await loadConfigIfAny(io.env);
  if (error !== null) io.err(`cctop: ${error}`);
  if (config.budgets.length === 0) return null;
  const [{ spentOver }, { budgetSummary }] = await Promise.all([
    import('../../spend/spent.js'),
    import('./budget.js'),
  ]);
  const states = budgetStates(
    config.budgets,
    spentOver(usage()),
    Date.now(),
    time,
    config.reports.startOfWeek,
  );
  return budgetSummary(states, colors);
}
