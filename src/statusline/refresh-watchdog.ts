/**
 * The background refresh's watchdog, on a worker thread of its own: when the refresh runs past its
 * budget it writes a line in the refresh log, gives the lock back and ends the whole process. A
 * thread, because the refresh's own thread may be the one stuck (a synchronous `open` or `read`
 * never returns to its event loop, so a timer there would never fire); a signal to the process ends
 * it whatever its main thread is doing.
 *
 * Not here: the refresh (`refresh-main.ts`), or the budget (`background.ts`).
 */
import { workerData } from 'node:worker_threads';
import { count, obj } from '../model/json.js';
import { logRefresh } from './refresh.js';
import { release } from './refresh-lock.js';

const o = obj(workerData);
const field = (k: string): unknown => o?.[k];
const w = {
  dir: typeof field('dir') === 'string' ? String(field('dir')) : null,
  token: typeof field('token') === 'string' ? String(field('token')) : '',
  budgetMs: count(field('budgetMs')),
  startedMs: count(field('startedMs')) ?? Date.now(),
};
// Started by refresh-main.ts with all four; anything else has nothing to watch.
if (w.dir !== null && w.budgetMs !== null) watch(w.dir, w.token, w.budgetMs, w.startedMs);

function watch(dir: string, token: string, budgetMs: number, startedMs: number): void {
  setTimeout(() => {
    logRefresh(
      dir,
      `${new Date(startedMs).toISOString()} pid ${process.pid}: over its budget of ${budgetMs} ms; stopped`,
    );
    release(dir, token);
    // SIGKILL: the main thread may be blocked in a system call, where nothing else reaches it.
    process.kill(process.pid, 'SIGKILL');
  }, budgetMs);
}
