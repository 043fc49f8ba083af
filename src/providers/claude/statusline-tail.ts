/**
 * The newest main-thread response at the end of one Claude Code transcript: its model, its prompt
 * size and whether it ran in fast mode, for the status line of a session the index has not built yet
 * (a new session, or one that moved on since the last refresh), and for the `fast` mark of any. Only
 * the last `TAIL_BYTES` are read, newest line first, and the first response found answers; the lines
 * go through the same projection the parser uses (`lineFromJson`), so "prompt size" means here what
 * it means in the index. The last `FIRST_TAIL_BYTES` are read first, and the rest of the tail only
 * when no response is found there: the answer is the same (the newest lines are the same lines, in
 * the same order), and the status line, which asks on every run, reads and decodes a quarter as much.
 *
 * And where Claude compacts, for a window the caller knows (Claude Code says it on stdin): the
 * provider's own rule (`compactRatio`), so the status line's context % is cctop's everywhere.
 *
 * What this does not do: cost (a tail holds part of a session; Claude Code's own figure is on stdin),
 * subagents, or anything past the first response found.
 */

import { closeSync, readSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { parseObject } from '../../model/json.js';
import { openRegular } from '../../regular-file.js';
import type { Env } from '../types.js';
import { claudePlace } from './place.js';
import { lineFromJson } from './record.js';

/**
 * How much of the end of a transcript is read. A response record is a few KiB, but one carrying a
 * large tool result or a long thinking block can be 100 KiB or more; 256 KiB holds the newest
 * response behind all but the largest, and reads in well under a millisecond.
 */
export const TAIL_BYTES = 256 * 1024;

export interface ClaudeTail {
  model: string | null;
  /** Prompt size of the newest main-thread response (input + cache read + cache write). */
  contextUsed: number | null;
  /** Where Claude compacts this session, when its window is known. */
  compactAt: number | null;
  /** When that response was written. */
  atMs: number | null;
  /** True when that response was served in fast mode (`usage.speed: "fast"`); absent when not. */
  fast?: true;
}

/**
 * How much is read first. Half the newest responses in a long generated history lie within the last
 * 10 KiB, and most real ones within a few KiB (a tool result after them is what pushes them further);
 * 64 KiB finds most at once, and a tail that needs more reads `TAIL_BYTES` in all, as before.
 */
export const FIRST_TAIL_BYTES = 64 * 1024;

/** The last `bytes` of the open file `fd` of `size` bytes, starting at a line; null when it cannot be read. */
function tailText(fd: number, size: number, bytes: number): string | null {
  const start = Math.max(0, size - bytes);
  const buf = Buffer.allocUnsafe(size - start);
  let got: number;
  try {
    got = readSync(fd, buf, 0, buf.length, start);
  } catch {
    return null;
  }
  const text = buf.toString('utf8', 0, got);
  // Started inside a line: that line's head is not here, so it is not read.
  return start === 0 ? text : text.slice(text.indexOf('\n') + 1);
}

/** `<root>/projects/<slug>/<session>.jsonl`: the config directory it is under, when it is one. */
function rootOf(path: string): string | null {
  const projects = dirname(dirname(path));
  return basename(projects) === 'projects' ? dirname(projects) : null;
}

/**
 * The newest response in the tail of the transcript at `path`; null when it cannot be read or holds
 * no response. `window` is the context window when the caller knows it (else the model's own).
 */
export function claudeTail(path: string, env: Env, window: number | null): ClaudeTail | null {
  // The path is what Claude Code's stdin says: opened without waiting, and read only when it is a
  // regular file (a named pipe there would hold the status line for good).
  const opened = openRegular(path);
  if (opened.kind !== 'file') return null;
  const { fd, stat } = opened;
  try {
    const first = tailText(fd, stat.size, FIRST_TAIL_BYTES);
    if (first === null) return null;
    const found = newestResponse(first, path, env, window);
    if (found !== null || stat.size <= FIRST_TAIL_BYTES) return found;
    const whole = tailText(fd, stat.size, TAIL_BYTES);
    return whole === null ? null : newestResponse(whole, path, env, window);
  } finally {
    closeSync(fd);
  }
}

/** The newest response in `text` (whole lines of the transcript at `path`); null when it holds none. */
function newestResponse(text: string, path: string, env: Env, window: number | null): ClaudeTail | null {
  const lines = text.split('\n');
  let cwd: string | null = null;
  for (let i = lines.length - 1; i >= 0; i--) {
    const raw = lines[i]!;
    // Most lines are not responses; only those naming usage are parsed.
    if (!raw.includes('"usage"')) continue;
    const o = parseObject(raw);
    if (o === null) continue;
    const l = lineFromJson(o);
    cwd ??= l.cwd;
    if (l.usage === null || l.sidechain || l.model === '<synthetic>') continue;
    const used = l.usage.input + l.usage.cacheRead + l.usage.cacheWrite;
    const root = rootOf(path);
    const known =
      root === null
        ? window
        : claudePlace.contextWindow({
            model: l.model,
            used,
            reportedWindow: null,
            catalogueWindow: window,
            cwd,
            root,
          });
    return {
      model: l.model,
      contextUsed: used,
      compactAt: claudeCompactAt(env, known),
      atMs: l.ms,
      ...(l.usage.fast ? { fast: true as const } : {}),
    };
  }
  return null;
}

/** Where Claude compacts in a window of `window` tokens (its default ratio, or the user's override). */
export function claudeCompactAt(env: Env, window: number | null): number | null {
  const ratio = claudePlace.compactRatio(env);
  return window === null || ratio === null ? null : Math.round(window * ratio);
}
