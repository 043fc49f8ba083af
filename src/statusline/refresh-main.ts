/**
 * The detached process a status line starts to refresh the index (`background.ts`): one refresh and
 * its digest (`refresh.ts`), a line in the refresh log, and the lock given back, whatever happened.
 * The status line that starts it lowers its priority (`background.ts`), so that on a busy machine it
 * yields to the agent the user is watching.
 *
 * It stops itself past its budget (`REFRESH_BUDGET_MS`): a refresh stuck for good would hold the
 * lock until it went stale and the next status line started another beside it, one more each time.
 *
 * Its arguments are the lock's token, when the digest its status line read was built, and its budget; everything else comes from the environment it inherited
 * (HOME, CLAUDE_CONFIG_DIR, CCTOP_CACHE_DIR), as `cctop --json` would read it.
 */
import { Worker } from 'node:worker_threads';
import { cacheDir } from '../paths.js';
import { REFRESH_BUDGET_MS } from './background.js';
import { readDigest } from './digest.js';
import { logRefresh, refreshDigest } from './refresh.js';
import { release } from './refresh-lock.js';

const token = process.argv[2] ?? '';
/** When the digest the status line that started this read was built (`none`), if it said. */
const seen = process.argv[3];
/** How long this refresh may run (`REFRESH_BUDGET_MS`, unless the status line said otherwise). */
const given = Number(process.argv[4]);
const budgetMs = Number.isInteger(given) && given > 0 ? given : REFRESH_BUDGET_MS;
const dir = cacheDir(process.env);
const startedMs = Date.now();
// Ends this process when it runs past its budget, even with this thread stuck (refresh-watchdog.ts).
new Worker(new URL('./refresh-watchdog.js', import.meta.url), {
  workerData: { dir, token, budgetMs, startedMs },
}).unref();
// Another refresh wrote a digest after that status line looked: it is what this one would write.
const overtaken = seen !== undefined && String(readDigest(dir)?.builtAtMs ?? 'none') !== seen;
if (overtaken) release(dir, token);
else await refresh();

async function refresh(): Promise<void> {
  try {
    const r = await refreshDigest(process.env, startedMs);
    logRefresh(
      dir,
      `${new Date(startedMs).toISOString()} pid ${process.pid}: ${r.strategy}, ${r.sessions} sessions, ${Date.now() - startedMs} ms`,
    );
  } catch (err) {
    logRefresh(
      dir,
      `${new Date(startedMs).toISOString()} pid ${process.pid}: failed: ${(err as Error).message}`,
    );
    process.exitCode = 1;
  } finally {
    release(dir, token);
  }
}
