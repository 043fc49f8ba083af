/**
 * The runs the pty host holds now, read from the list it keeps beside its socket. Every one-shot
 * (`cctop --json`, `--list`) marks these runs in its table, so this reader stands apart from the
 * host's client (`pty-client.ts`), which loads node's process and socket modules that a one-shot
 * that only reads the list never uses.
 *
 * Not here: reaching the host or anything said to it (`pty-client.ts`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Env } from '../providers/types.js';
import { runtimeDir } from './dir.js';
import { PTY_RUNS_FILE, type PtyRun, runsOf } from './pty-wire.js';

/** The runs the host holds now, from the file beside its socket (empty when there is no host). */
export function ptyRuns(env: Env): PtyRun[] {
  const dir = runtimeDir(env);
  if (dir.kind === 'refused') return [];
  try {
    return runsOf(JSON.parse(readFileSync(join(dir.path, PTY_RUNS_FILE), 'utf8')));
  } catch {
    // No host (no file), or one replacing it this instant: no runs to show.
    return [];
  }
}
