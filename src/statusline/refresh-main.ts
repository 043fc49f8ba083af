/**
 * The detached process a status line starts to refresh the index (`background.ts`): one refresh and
 * its digest (`refresh.ts`), a line in the refresh log, and the lock given back, whatever happened.
 * The status line that starts it lowers its priority (`background.ts`), so that on a busy machine it
 * yields to the agent the user is watching.
 *
 * Its one argument is the lock's token; everything else comes from the environment it inherited
 * (HOME, CLAUDE_CONFIG_DIR, CCTOP_CACHE_DIR), as `cctop --json` would read it.
 */
import { cacheDir } from '../paths.js';
import { readDigest } from './digest.js';
import { logRefresh, refreshDigest } from './refresh.js';
import { release } from './refresh-lock.js';

const token = process.argv[2] ?? '';
/** When the digest the status line that started this read was built (`none`), if it said. */
const seen = process.argv[3];
const dir = cacheDir(process.env);
const startedMs = Date.now();
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
