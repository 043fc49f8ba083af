/**
 * A row of the process table as the tests write one: a pid, its parent and its command line, the
 * rest plain. For the tests of what is proven from a table (the pane an agent runs in, who waits).
 */
import type { ProcessInfo } from '../live/processes.js';

export const processRow = (pid: number, ppid: number, argv: string[]): ProcessInfo => ({
  pid,
  ppid,
  argv,
  startMs: 0,
  cwd: '/w',
  cpuSeconds: 0,
  rssBytes: 0,
});
