/**
 * The newest main-thread response at the end of one Claude Code transcript: its model, its prompt
 * size and whether it ran in fast mode, for the status line of a session the index has not built yet
 * (a new session, or one that moved on since the last refresh), and for the `fast` mark of any. Only the last `TAIL_BYTES` are read, newest line first, and the
 * first response found answers; the lines go through the same projection the parser uses
 * (`lineFromJson`), so "prompt size" means here what it means in the index.
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

/** The last `TAIL_BYTES` of `path`, starting at a line; null when it cannot be read. */
function tailText(path: string): string | null {
  // The path is what Claude Code's stdin says: opened without waiting, and read only when it is a
  // regular file (a named pipe there would hold the status line for good).
  const opened = openRegular(path);
  if (opened.kind !== 'file') return null;
  const fd = opened.fd;
  try {
    const size = opened.stat.size;
    const start = Math.max(0, size - TAIL_BYTES);
    const buf = Buffer.alloc(size - start);
    const got = readSync(fd, buf, 0, buf.length, start);
    const text = buf.toString('utf8', 0, got);
    // Started inside a line: that line's head is not here, so it is not read.
    return start === 0 ? text : text.slice(text.indexOf('\n') + 1);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
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
  const text = tailText(path);
  if (text === null) return null;
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
