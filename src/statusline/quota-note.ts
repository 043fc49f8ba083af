/**
 * The quota Claude Code last sent the status line, kept for the rest of cctop: the status line is
 * the freshest source while a session runs (Claude Code sends `rate_limits` after every response),
 * but it arrives on one process's stdin and is gone when that process ends. So each status line that
 * receives limits writes them, with the time, to a small file in cctop's own cache directory
 * (`statusline-quota.json`, never an agent's file), and `cctop quota` reads it beside Claude Code's
 * own cache.
 *
 * Not here: parsing stdin (`input.ts`), choosing between this and Claude Code's cache
 * (`model/quota.ts`).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { num, obj, parseJson } from '../model/json.js';
import { type QuotaFigure, type QuotaWindow, resetPassed } from '../model/quota.js';
import { readWholeFile } from '../providers/fsutil.js';
import type { Limits, LimitWindow } from './input.js';

export const NOTE_FILE = 'statusline-quota.json';

/** The note is about 200 bytes; a larger file at its path is not ours to trust. */
const MAX_NOTE_BYTES = 4096;

const NOTE_VERSION = 1;

/**
 * A note holding the same figures is written again only when older than this: the status line runs
 * after every message, and an unchanged figure needs no write (and no fsync) each time, while its age
 * (what `cctop quota` shows) stays within a minute of the truth.
 */
export const NOTE_REFRESH_MS = 60_000;

/**
 * Keep what Claude Code sent at `nowMs`; a failure to write costs only this source's freshness. The
 * writer is loaded only to write, which is at most once a minute.
 */
export async function keepLimits(dir: string, limits: Limits, nowMs: number): Promise<void> {
  const w = (l: LimitWindow | null) =>
    l === null ? null : { usedPercent: l.usedPercent, resetsAtMs: l.resetsAtMs };
  const figures = JSON.stringify({ fiveHour: w(limits.fiveHour), sevenDay: w(limits.sevenDay) });
  const path = join(dir, NOTE_FILE);
  const had = readWholeFile(path, MAX_NOTE_BYTES);
  if (had.kind === 'read') {
    const o = obj(parseJson(had.text));
    const atMs = num(o?.atMs);
    const same = o !== null && JSON.stringify({ fiveHour: o.fiveHour, sevenDay: o.sevenDay }) === figures;
    if (same && atMs !== null && nowMs >= atMs && nowMs - atMs < NOTE_REFRESH_MS) return;
  }
  try {
    const { writeAtomically } = await import('../install/atomic.js');
    mkdirSync(dir, { recursive: true });
    writeAtomically(
      path,
      JSON.stringify({
        v: NOTE_VERSION,
        atMs: nowMs,
        fiveHour: w(limits.fiveHour),
        sevenDay: w(limits.sevenDay),
      }),
      null,
    );
  } catch {
    // A read-only or full cache directory: the status line itself still prints; `cctop quota` then
    // has only Claude Code's own cache, which is what it would have had without a status line.
  }
}

/** The figures the last status line kept, or none. */
export function readLimitsNote(dir: string, nowMs: number): QuotaFigure[] {
  const file = readWholeFile(join(dir, NOTE_FILE), MAX_NOTE_BYTES);
  if (file.kind !== 'read') return [];
  const o = obj(parseJson(file.text));
  const atMs = num(o?.atMs);
  if (o === null || o.v !== NOTE_VERSION || atMs === null || atMs <= 0) return [];
  const fetchedAt = new Date(atMs).toISOString();
  const out: QuotaFigure[] = [];
  for (const [key, window] of [
    ['fiveHour', '5h'],
    ['sevenDay', '7d'],
  ] as const satisfies readonly [string, QuotaWindow][]) {
    const w = obj(o[key]);
    const used = num(w?.usedPercent);
    if (w === null || used === null || used < 0) continue;
    const reset = num(w.resetsAtMs);
    const resetsAt = reset !== null && reset > 0 ? new Date(reset).toISOString() : null;
    out.push({
      harness: 'claude',
      account: null,
      plan: null,
      window,
      usedPercent: used,
      resetsAt,
      source: 'statusline',
      fetchedAt,
      stale: resetPassed(resetsAt, nowMs),
    });
  }
  return out;
}
