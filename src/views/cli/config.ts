/**
 * `cctop config path` and `cctop config check`: where the config file is, and what cctop makes of
 * it: each setting it could not use, with its line, and a summary of what applies. Exits 1 when the
 * file as a whole cannot be used, 0 otherwise (warnings included: cctop runs with them).
 *
 * Not here: reading the file (`config/config.ts`) or what the settings mean (`docs/config.md`).
 */
import { type Config, loadConfig } from '../../config/index.js';
import { home } from '../../providers/fsutil.js';
import { safeLine } from '../terminal-text.js';
import { counted, padEnd, padStart, tildify, usd, width } from './format.js';
import type { Io } from './main.js';
import { UsageError } from './options.js';

/** Budget names in the summary are cut to this many cells. */
const NAME_CELLS = 24;

export function configCommand(io: Io, args: readonly string[]): number {
  const [sub, ...more] = args;
  if ((sub !== 'path' && sub !== 'check') || more.length > 0)
    throw new UsageError(
      `usage: cctop config path | cctop config check (got ${args.join(' ') || 'nothing'})`,
    );
  const loaded = loadConfig(io.env);
  if (sub === 'path') {
    io.out(loaded.path);
    return 0;
  }
  const where = tildify(loaded.path, home(io.env));
  if (loaded.error !== null) {
    io.out(`error: ${safeLine(loaded.error)}`);
    return 1;
  }
  if (!loaded.found) {
    io.out(
      `No config file at ${where}: cctop runs on its defaults (no budgets). docs/config.md says what it can set.`,
    );
    return 0;
  }
  const n = loaded.warnings.length;
  io.out(`${where}: ${n === 0 ? 'ok' : `${counted(n, 'warning')}`}`);
  for (const w of loaded.warnings) io.out(`warning: ${safeLine(w)}`);
  for (const line of summary(loaded.config, home(io.env))) io.out(line);
  return 0;
}

/** What applies, setting by setting, as the file (and the defaults) made it. */
function summary(config: Config, homeDir: string): string[] {
  const { budgets, alerts, reports } = config;
  const lines = [budgets.length === 0 ? 'budgets: none' : `budgets: ${budgets.length}`];
  const cells = Math.min(NAME_CELLS, Math.max(...budgets.map((b) => width(b.name)), 0));
  const limitCells = Math.max(...budgets.map((b) => width(usd(b.usd))), 0);
  for (const b of budgets) {
    const scope = [b.harness, b.project === null ? null : tildify(b.project, homeDir)].filter(
      (w) => w !== null,
    );
    const selects = scope.length === 0 ? 'every session' : scope.join(' in ');
    lines.push(
      `  ${padEnd(b.name, cells)}  ${padEnd(b.period, 5)}  ${padStart(usd(b.usd), limitCells)}  ${selects}`,
    );
  }
  const off = (v: number | null, on: (v: number) => string) => (v === null ? 'off' : on(v));
  lines.push(
    `alerts: error loop ${off(alerts.errorLoop, (v) => `after ${v} failures`)} · ` +
      `stall ${off(alerts.stallMinutes, (v) => `after ${v} min`)} · ` +
      `burn rate ${off(alerts.burnUsdPerHour, (v) => `over ${usd(v)}/h`)} · ` +
      `quota ${off(alerts.quotaPercent, (v) => `past ${v}%`)}`,
  );
  const zone = reports.timeZone === null ? 'the system zone' : safeLine(reports.timeZone);
  lines.push(`reports: days in ${zone} · weeks start ${reports.startOfWeek}`);
  if (config.acp.length > 0) {
    lines.push(`ACP agents (cctop exec NAME): ${config.acp.length}`);
    for (const a of config.acp) lines.push(`  ${a.name}  ${safeLine(a.command.join(' '))}`);
  }
  return lines;
}
