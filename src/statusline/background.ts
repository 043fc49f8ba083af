/**
 * Starting the background refresh from a status line: the lock (`refresh-lock.ts`) decides whether
 * this status line starts it, and a detached node process runs it (`refresh-main.ts`) at a lower
 * priority, with its output thrown away and nothing left for the status line to wait on.
 *
 * Not here: the refresh itself (`refresh.ts`).
 */
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { later } from '../later.js';
import { packageRoot } from '../paths.js';
import type { Env } from '../providers/types.js';
import { LOCK_STALE_MS, type RefreshStart, startRefreshOnce } from './refresh-lock.js';

/**
 * How long a background refresh may run before it stops itself (`refresh-watchdog.ts`). Building a
 * 1.2 GiB history from nothing takes about 15 s on two cores; five minutes is twenty times that, and
 * half of `LOCK_STALE_MS`, so a stuck refresh is gone long before its lock could be taken over and a
 * second one started beside it.
 */
export const REFRESH_BUDGET_MS = LOCK_STALE_MS / 2;

/** Nice value of the refresh: below the agent's and the terminal's, so it yields to them on a busy machine. */
export const REFRESH_NICE = 10;

const childProcess = later<typeof import('node:child_process')>('node:child_process');

/** The refresh's script, in the built package (the status line runs from it too). */
export const refreshScript = (): string => join(packageRoot(), 'dist', 'statusline', 'refresh-main.js');

/**
 * Start `node <script> <token> <seen>` detached, returning its pid. `seen` is when the digest this
 * status line read was built (`none`): the refresh skips itself when another has written a newer one
 * since (a status line slow to start can take the lock just after another's refresh gave it back).
 */
export function launcher(
  env: Env,
  script: string = refreshScript(),
  seen: number | null = null,
): (token: string) => number {
  return (token) => {
    const options: SpawnOptions = { detached: true, stdio: 'ignore', env: { ...env } };
    const child: ChildProcess = childProcess().spawn(
      process.execPath,
      [script, token, String(seen ?? 'none'), String(REFRESH_BUDGET_MS)],
      options,
    );
    // A spawn that fails reports it as an event; the status line has nothing to do about it.
    child.on('error', () => {});
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${script}`);
    try {
      // From its first instruction, not once it has loaded: its start-up would compete with the agent's.
      setPriority(child.pid, REFRESH_NICE);
    } catch {
      // Not allowed here: it runs at the usual priority.
    }
    return child.pid;
  };
}

/** Start one refresh under `env`, unless one runs; `seen`: when the digest the caller read was built. */
export function startBackgroundRefresh(cacheDir: string, env: Env, seen: number | null = null): RefreshStart {
  return startRefreshOnce(cacheDir, launcher(env, refreshScript(), seen));
}
