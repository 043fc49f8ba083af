/**
 * The one line `cctop statusline` prints, from figures already gathered: a pure function of them,
 * the parts asked for (`--format`) and the clock, so every layout is tested without a file or a
 * process. A figure nobody knows leaves its part out (a status line has no room for `─`).
 *
 * Parts: `model` (marked `fast` when the newest response ran in fast mode), `cost` (this session), `context` (the newest prompt against where Claude compacts),
 * `today` (every session's spend today), `block` (the active 5-hour block: cost and time left),
 * `limits` (Claude's own 5-hour and 7-day quota: used and when it resets), `quota` (the limits when
 * Claude sent them, since they are the real quota, else the block estimate) and `budget` (shown only
 * once a budget is near). When Claude Code sent no limits, the limits are those of its own cache in
 * `.claude.json`, labelled with where they came from and how old they are; a window that has reset
 * since the cache was written shows as stale, never as the current figure.
 *
 * Every string that came from a file or from Claude Code is made safe as it is placed (`safeLine`:
 * `clip` alone would keep an escape that looks like one of cctop's own colours), and the finished line goes through `printable`, so nothing but cctop's own
 * colours can reach the terminal.
 *
 * Not here: where the figures come from (`gather.ts`).
 */
import type { Paint } from '../views/cli/color.js';
import { duration, shortModel, usd } from '../views/format.js';
import { clip, printable, safeLine } from '../views/terminal-text.js';
import type { Limits, LimitWindow } from './input.js';

/** A window of Claude Code's cached quota: its figure, and whether the window has reset since. */
export interface CachedWindow extends LimitWindow {
  stale: boolean;
}

/** Claude Code's own cache of the quota (`.claude.json`), for when stdin carried no limits. */
export interface CachedLimits {
  fiveHour: CachedWindow | null;
  sevenDay: CachedWindow | null;
  /** When Claude Code fetched them; null when unsaid. */
  fetchedAtMs: number | null;
}

export interface StatusFigures {
  /** The model as named (Claude Code's id, or the transcript's); made safe here. */
  model: string | null;
  /** The session's newest response was served in fast mode (a multiple of the price): marked `fast`. */
  fast?: boolean;
  sessionUsd: number | null;
  /** The newest prompt over where the agent compacts: cctop's "context %" everywhere. */
  contextShare: number | null;
  todayUsd: number | null;
  /** The active 5-hour block: its cost so far and when it ends. */
  block: { usd: number; endsAtMs: number } | null;
  limits: Limits | null;
  /** Claude Code's cached limits, shown (labelled) only where `limits` is null; absent: none. */
  cachedLimits?: CachedLimits | null;
  /** The budget nearest its limit: its name and how much of it is spent (1 = all). */
  budget: { name: string; share: number } | null;
}

export const PARTS = ['model', 'cost', 'context', 'today', 'block', 'limits', 'quota', 'budget'] as const;
export type Part = (typeof PARTS)[number];

export const DEFAULT_FORMAT: readonly Part[] = ['model', 'cost', 'context', 'today', 'quota', 'budget'];

/** A model name is cut to this many cells: the line shares the bar with Claude Code's own. */
const MAX_MODEL_CELLS = 24;
/** A budget name, likewise. */
const MAX_BUDGET_CELLS = 16;

/** A budget is shown from this share on: before, it is not news. */
export const BUDGET_NEAR = 0.8;
/** Context and quota turn amber and red at these shares, as the live table's context column does. */
const WARN_AT = 0.8;
const ALARM_AT = 0.95;

const SEPARATOR = ' · ';

/** What prints when nothing at all is known (no input, no index). */
export const NOTHING = 'cctop: no session';

/** `--format model,cost,…`: the parts in order, or the word that is not one. */
export function parseFormat(spec: string): { kind: 'parts'; parts: Part[] } | { kind: 'bad'; word: string } {
  const parts: Part[] = [];
  for (const raw of spec.split(',')) {
    const word = raw.trim().toLowerCase();
    if (word === '') continue;
    const part = PARTS.find((p) => p === word);
    if (part === undefined) return { kind: 'bad', word: raw.trim() };
    if (!parts.includes(part)) parts.push(part);
  }
  return { kind: 'parts', parts };
}

function shade(share: number, p: Paint): (s: string) => string {
  if (share >= ALARM_AT) return p.red;
  if (share >= WARN_AT) return p.amber;
  return (s) => s;
}

const pct = (share: number): string => `${Math.round(share * 100)}%`;

function limitText(label: string, w: LimitWindow | null, nowMs: number, p: Paint): string | null {
  if (w === null) return null;
  const used = shade(w.usedPercent / 100, p)(`${label} ${Math.round(w.usedPercent)}%`);
  const left = w.resetsAtMs === null ? null : w.resetsAtMs - nowMs;
  return left !== null && left > 0 ? `${used} ↻${duration(left)}` : used;
}

/** A cached window: as a current one, or marked stale (its figure is of a window that has ended). */
function cachedText(label: string, w: CachedWindow | null, nowMs: number, p: Paint): string | null {
  if (w === null) return null;
  return w.stale ? p.dim(`${label} ${Math.round(w.usedPercent)}% stale`) : limitText(label, w, nowMs, p);
}

function limitsText(f: StatusFigures, nowMs: number, p: Paint): string | null {
  const l = f.limits;
  const c = f.cachedLimits ?? null;
  const both =
    l !== null
      ? [limitText('5h', l.fiveHour, nowMs, p), limitText('7d', l.sevenDay, nowMs, p)]
      : c !== null
        ? [cachedText('5h', c.fiveHour, nowMs, p), cachedText('7d', c.sevenDay, nowMs, p)]
        : [];
  const shown = both.filter((s): s is string => s !== null);
  if (shown.length === 0) return null;
  if (l !== null || c === null) return shown.join(SEPARATOR);
  // Not from Claude Code just now: say where from and how old.
  const age = c.fetchedAtMs === null ? '' : `, ${duration(Math.max(0, nowMs - c.fetchedAtMs))} old`;
  return `${shown.join(SEPARATOR)} ${p.dim(`(Claude's cache${age})`)}`;
}

function blockText(b: StatusFigures['block'], nowMs: number): string | null {
  if (b === null || b.endsAtMs <= nowMs) return null;
  return `block ${usd(b.usd)} ${duration(b.endsAtMs - nowMs)} left`;
}

function budgetText(b: StatusFigures['budget'], p: Paint): string | null {
  if (b === null || b.share < BUDGET_NEAR) return null;
  const text = `${clip(safeLine(b.name), MAX_BUDGET_CELLS)} budget ${pct(b.share)}`;
  return b.share >= 1 ? p.red(text) : p.amber(text);
}

/** One part's text, or null when what it shows is not known. */
function partText(part: Part, f: StatusFigures, nowMs: number, p: Paint): string | null {
  switch (part) {
    case 'model':
      if (f.model === null) return null;
      return `${clip(safeLine(shortModel(f.model)), MAX_MODEL_CELLS)}${f.fast === true ? ' fast' : ''}`;
    case 'cost':
      return f.sessionUsd === null ? null : usd(f.sessionUsd);
    case 'context':
      return f.contextShare === null ? null : shade(f.contextShare, p)(`ctx ${pct(f.contextShare)}`);
    case 'today':
      return f.todayUsd === null ? null : `today ${usd(f.todayUsd)}`;
    case 'block':
      return blockText(f.block, nowMs);
    case 'limits':
      return limitsText(f, nowMs, p);
    case 'quota':
      return limitsText(f, nowMs, p) ?? blockText(f.block, nowMs);
    case 'budget':
      return budgetText(f.budget, p);
  }
}

/** The status line: the parts known, in the order asked, safe to print. */
export function statusLine(f: StatusFigures, parts: readonly Part[], nowMs: number, p: Paint): string {
  const shown = parts.map((part) => partText(part, f, nowMs, p)).filter((s): s is string => s !== null);
  return printable(shown.length === 0 ? NOTHING : shown.join(SEPARATOR), p);
}
