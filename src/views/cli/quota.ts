/**
 * `cctop quota`: how much of each rate-limit window the accounts on this machine have used, when each
 * starts again, where each figure came from and how old it is, and cctop's own pace for it (when the
 * window runs out at today's burn, and which running session spends it fastest). `--json` prints the
 * same as `{ version, generatedAt, quota: [...], pace: [...], problems: [...] }` (docs/quota.md).
 *
 * A stale figure (its window has reset since it was read) is printed as `stale`, never as a current
 * percentage; what no source says is `─`.
 *
 * Not here: reading the sources (`quota/gather.ts`), or the arithmetic (`model/quota.ts`).
 */
import { type QuotaFigure, type QuotaPace, SOURCE_LABEL } from '../../model/quota.js';
import type { QuotaReport } from '../../quota/gather.js';
import { safeLine, terminalJson } from '../terminal-text.js';
import { ago, duration, padEnd, padStart, tokens, UNKNOWN } from './format.js';

/** Claude's account ids are UUIDs; their first eight characters tell accounts apart in a column. */
const ACCOUNT_CHARS = 8;

const COLUMNS = [
  { title: 'HARNESS', cells: 8, right: false },
  { title: 'ACCOUNT', cells: 10, right: false },
  { title: 'WINDOW', cells: 10, right: false },
  { title: 'USED', cells: 5, right: true },
  { title: 'RESETS IN', cells: 10, right: true },
  { title: 'SOURCE', cells: 14, right: false },
  { title: 'AGE', cells: 4, right: true },
] as const;

function row(cells: readonly string[]): string {
  return COLUMNS.map((c, i) => {
    const s = cells[i] ?? '';
    return c.right ? padStart(s, c.cells) : padEnd(s, c.cells);
  })
    .join('  ')
    .trimEnd();
}

const ms = (iso: string | null): number | null => {
  const v = iso === null ? Number.NaN : Date.parse(iso);
  return Number.isFinite(v) ? v : null;
};

/** The account column: Claude's account (its id's start), else the plan the source names. */
function accountCell(f: QuotaFigure): string {
  if (f.account !== null) return safeLine(f.account.slice(0, ACCOUNT_CHARS));
  if (f.plan !== null) return safeLine(f.plan);
  return UNKNOWN;
}

function usedCell(f: QuotaFigure): string {
  if (f.stale) return 'stale';
  return f.usedPercent === null ? UNKNOWN : `${Math.round(f.usedPercent)}%`;
}

function resetCell(f: QuotaFigure, nowMs: number): string {
  const at = ms(f.resetsAt);
  if (at === null) return UNKNOWN;
  return at <= nowMs ? 'passed' : duration(at - nowMs);
}

/** One line of pace under the table. */
function paceLine(p: QuotaPace, nowMs: number): string {
  const head = `${p.harness} ${p.window}`;
  const spent = `${tokens(p.windowTokens)} tokens in the window`;
  const burn = p.burnPerHour === null ? 'no burn today' : `${tokens(Math.round(p.burnPerHour))}/h today`;
  let outlook: string;
  if (p.beforeReset === null) outlook = 'when it runs out cannot be told';
  else if (p.beforeReset && p.runsOutAt !== null)
    outlook = `runs out in ${duration(Math.max(0, (ms(p.runsOutAt) ?? nowMs) - nowMs))}, before it resets`;
  else outlook = 'lasts until it resets';
  const fastest =
    p.fastest === null
      ? ''
      : `; fastest running session ${safeLine(p.fastest.provider)} ${safeLine(p.fastest.id.slice(0, 8))} (${Math.round(p.fastest.share * 100)}% of the window's tokens)`;
  return `  ${padEnd(head, 16)} ${spent}, ${burn}: ${outlook}${fastest}`;
}

/** The text `cctop quota` prints for `r` at `nowMs`. */
export function quotaText(r: QuotaReport, nowMs: number): string {
  const lines: string[] = [];
  if (r.quota.length === 0) {
    lines.push(
      `No quota figures on this machine. Claude Code keeps its account's in ~/.claude.json once it has
asked (a subscription login: run /usage once), and sends them to cctop's status line (cctop
statusline install); Codex writes them in its rollouts on a ChatGPT login.`,
    );
  } else {
    lines.push(row(COLUMNS.map((c) => c.title)));
    for (const f of r.quota)
      lines.push(
        row([
          f.harness,
          accountCell(f),
          f.window,
          usedCell(f),
          resetCell(f, nowMs),
          SOURCE_LABEL[f.source],
          ago(ms(f.fetchedAt), nowMs),
        ]),
      );
    lines.push('');
    if (r.pace.length === 0) lines.push(`Pace: ${UNKNOWN} (no current figure with a reset time to project)`);
    else {
      lines.push(`Pace (${SOURCE_LABEL.estimate}, from this machine's tokens in each window):`);
      for (const p of r.pace) lines.push(paceLine(p, nowMs));
    }
  }
  for (const p of r.problems) lines.push(`cctop: ${safeLine(p)}`);
  return lines.join('\n');
}

/** What `cctop quota --json` prints. */
export function quotaJson(r: QuotaReport, nowMs: number): string {
  return terminalJson({
    version: 1,
    generatedAt: new Date(nowMs).toISOString(),
    quota: r.quota,
    pace: r.pace,
    problems: r.problems,
  });
}
