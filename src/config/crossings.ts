/**
 * Which budget crossings are new: crossing 80% and then 100% of a budget notifies once each per
 * period, and not again when cctop restarts. What was notified is kept in a small JSON file in
 * cctop's cache: per budget key, the period (its first day), the limit then, and the highest level
 * notified in it. Spend falling back under a level does not arm it again (a repriced catalogue or a
 * half-built index must not repeat a notice); a changed limit does, for the levels it leaves unreached.
 *
 * Several processes may ask at once (the live table, `serve`, a statusline). Each write is atomic (a
 * temporary file renamed over the old one), so a reader never sees half a file; but two processes
 * crossing the same level in the same moment may both read "not notified" and both notify.
 * known limit: accepted; one duplicate notice at a crossing is cheaper than a lock that a crashed
 * process could leave held.
 *
 * A damaged, unreadable or oversized file is read as empty: at worst a crossing is notified again.
 * When the file cannot be written (a read-only cache), this process still remembers what it notified,
 * so the live table does not repeat itself on every refresh.
 *
 * Not here: deciding levels (`budgets.ts`) or sending the notice (the view that asked).
 */
import { readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheDir } from '../paths.js';
import { PRIVATE_FILE_MODE, privateDir } from '../private.js';
import type { Env } from '../providers/types.js';
import type { BudgetState, Level } from './budgets.js';

/** The file's name in the cache directory. */
export const CROSSINGS_FILE = 'budget-crossings.json';

/**
 * Budgets remembered. Twice `MAX_BUDGETS`, so the budgets in use always fit beside ones since removed
 * from the config; the entries whose period ended longest ago are dropped first.
 */
export const MAX_REMEMBERED_BUDGETS = 128;

/**
 * The largest file read. An entry is its key (period, harness, a project path of up to 4 KiB and a
 * name) and three numbers: 128 entries even of the longest paths come to about 600 KB.
 */
export const MAX_CROSSINGS_BYTES = 1 << 20;

const VERSION = 1;

interface Notified {
  /** The first day of the period the level was notified in: a new period starts from nothing. */
  fromDay: number;
  /** Its last day, to drop what ended longest ago first. */
  toDay: number;
  /** The limit then: when it changes, the levels no longer reached are armed again. */
  usd: number;
  level: Exclude<Level, 'ok'>;
}

type Memory = Map<string, Notified>;

const RANK: Record<Level, number> = { ok: 0, near: 1, over: 2 };

/** What this process notified but could not write down, per file. */
const unsaved = new Map<string, Memory>();

export function crossingsPath(env: Env): string {
  return join(cacheDir(env), CROSSINGS_FILE);
}

/**
 * The states that reached a level not yet notified for their budget in this period, recorded as
 * notified before they are returned. Pass every budget's state: it is what each is compared with.
 * Never throws.
 */
export function newCrossings(states: readonly BudgetState[], env: Env): BudgetState[] {
  const path = crossingsPath(env);
  const memory = merged(readMemory(path), unsaved.get(path));
  let changed = false;
  const crossed: BudgetState[] = [];
  for (const s of states) {
    const key = s.budget.key;
    let before = memory.get(key);
    // An entry from an earlier period says nothing about this one.
    if (before !== undefined && before.fromDay !== s.fromDay) before = undefined;
    if (before !== undefined && before.usd !== s.budget.usd) {
      before = rearmed(before, s);
      if (before === undefined) memory.delete(key);
      else memory.set(key, before);
      changed = true;
    }
    if (s.level === 'ok' || (before !== undefined && RANK[before.level] >= RANK[s.level])) continue;
    crossed.push(s);
    memory.set(key, { fromDay: s.fromDay, toDay: s.toDay, usd: s.budget.usd, level: s.level });
    changed = true;
  }
  if (!changed) return crossed;
  const kept = bounded(memory);
  if (writeMemory(path, kept)) unsaved.delete(path);
  else unsaved.set(path, kept);
  return crossed;
}

/**
 * After the limit changed: a level still reached under the new limit stays notified (raising the
 * limit of an exceeded budget says nothing new), one no longer reached is armed again, to notify when
 * spend reaches it under the new limit.
 */
function rearmed(before: Notified, s: BudgetState): Notified | undefined {
  if (RANK[s.level] >= RANK[before.level]) return { ...before, usd: s.budget.usd };
  return s.level === 'ok' ? undefined : { ...before, usd: s.budget.usd, level: s.level };
}

/** The file's entries; empty when it is missing, damaged or too large. */
function readMemory(path: string): Memory {
  const memory: Memory = new Map();
  try {
    if (statSync(path).size > MAX_CROSSINGS_BYTES) return memory;
    const doc: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof doc !== 'object' || doc === null || (doc as { version?: unknown }).version !== VERSION)
      return memory;
    const budgets = (doc as { budgets?: unknown }).budgets;
    if (!Array.isArray(budgets)) return memory;
    for (const e of budgets.slice(0, MAX_REMEMBERED_BUDGETS)) {
      const entry = readEntry(e);
      if (entry !== null) memory.set(entry.key, entry.notified);
    }
  } catch {
    // Missing, unreadable or not JSON: nothing was notified, as far as can be known.
  }
  return memory;
}

function readEntry(e: unknown): { key: string; notified: Notified } | null {
  if (typeof e !== 'object' || e === null) return null;
  const { key, fromDay, toDay, usd, level } = e as Record<string, unknown>;
  if (typeof key !== 'string' || !Number.isInteger(fromDay) || !Number.isInteger(toDay)) return null;
  if (typeof usd !== 'number' || (level !== 'near' && level !== 'over')) return null;
  return { key, notified: { fromDay: fromDay as number, toDay: toDay as number, usd, level } };
}

/** What the file says, with what this process could not write: the later period, then the higher level. */
function merged(file: Memory, mine: Memory | undefined): Memory {
  if (mine === undefined) return file;
  for (const [key, n] of mine) {
    const f = file.get(key);
    if (
      f === undefined ||
      n.fromDay > f.fromDay ||
      (n.fromDay === f.fromDay && RANK[n.level] > RANK[f.level])
    )
      file.set(key, n);
  }
  return file;
}

/** At most `MAX_REMEMBERED_BUDGETS` entries, keeping the periods that end last. */
function bounded(memory: Memory): Memory {
  if (memory.size <= MAX_REMEMBERED_BUDGETS) return memory;
  const latest = [...memory].sort((a, b) => b[1].toDay - a[1].toDay).slice(0, MAX_REMEMBERED_BUDGETS);
  return new Map(latest);
}

/** Writes the file atomically; false when it cannot be written. */
function writeMemory(path: string, memory: Memory): boolean {
  const budgets = [...memory].map(([key, n]) => ({ key, ...n }));
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    privateDir(dirname(path));
    writeFileSync(tmp, `${JSON.stringify({ version: VERSION, budgets })}\n`, { mode: PRIVATE_FILE_MODE });
    renameSync(tmp, path);
    return true;
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      // It was never written.
    }
    return false;
  }
}
