/**
 * Whether an agent may have a say in the warm document's sessions, asked by the warm answer
 * (`warm-answer.ts`) before it prints `cctop --json`: the document was printed as if no process ran
 * and no hook spoke, so it is only true while nothing an agent said has a say in its sessions (the
 * hook journal as it was when the document was written and its newest event too old to count, or
 * empty; no registry record) and no agent process could be running one of them (a scan of the process
 * table for the words every agent's command line holds).
 *
 * It exists apart so that the warm answer reads as its proof in order, and this part, the one that
 * looks at other processes, can be read alone. Like the warm answer it loads nothing but `node:fs`:
 * no SQLite, no provider, no process matcher (`live/processes.ts` matches processes to sessions on
 * the full route; this only says whether one could be matched). Not here: the document's key, the
 * transcripts' freshness, or the spend reports (which show no state and do not ask).
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import type { DocHeader } from './index/warm-doc-layout.js';
import { WORKING_TTL_MS } from './model/state.js';

/** Why an agent may have a say in the sessions' states at `nowMs`, or null when none can. */
export function agentsHaveASay(
  h: DocHeader,
  nowMs: number,
  proc: string,
  platform: NodeJS.Platform,
): string | null {
  return agentsSpeak(h, nowMs) ?? mayRun(h, proc, platform);
}

/**
 * Whether an agent may have said something of its sessions (`live/agent-word.ts`): the hook journal
 * holds something else than when the document was written, or something in it still has a say (a
 * hook's word on a session no process runs lapses `WORKING_TTL_MS` after its newest event, and the
 * process scan below proves no process runs one); or a registry holds a record.
 */
function agentsSpeak(h: DocHeader, nowMs: number): string | null {
  const [path, size, mtimeMs, ino] = h.key.journal;
  const st = statSync(path, { throwIfNoEntry: false });
  if (st !== undefined && st.size > 0) {
    if (st.size !== size || st.mtimeMs !== mtimeMs || st.ino !== ino)
      return 'the hook journal changed since the document was written';
    if (h.key.journalQuietAt !== null && nowMs <= h.key.journalQuietAt)
      return `an agent's hook spoke less than ${WORKING_TTL_MS / 60_000} minutes ago`;
  }
  for (const dir of h.key.registries) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      // No registry there.
      continue;
    }
    if (names.some((n) => n.endsWith('.json'))) return 'an agent registered a running session';
  }
  return null;
}

/**
 * The kernel's clock ticks per second in /proc's start times (`live/processes.ts` reads them alike).
 */
const CLK_TCK = 100;

/**
 * A process start is read to the tick (10 ms) and the boot time to the second: a process this close
 * to the last moment a session could be matched counts as started before it.
 */
const START_MARGIN_MS = 2_000;

/**
 * Why an agent process could run one of the sessions, or null when none can: no process holds an
 * agent's word, or every one that does started after every session of each harness whose word it
 * holds was last active (a process is matched only to sessions active since it started,
 * `live/processes.ts`).
 */
function mayRun(h: DocHeader, proc: string, platform: NodeJS.Platform): string | null {
  const agents = h.key.agents
    .filter((g): g is [string[], number] => g[1] !== null)
    .map(([words, until]) => ({ words: words.map((w) => Buffer.from(w)), until }));
  if (agents.length === 0) return null;
  if (platform !== 'linux') return 'the processes are read by the full route here';
  let names: string[];
  try {
    names = readdirSync(proc);
  } catch {
    // No process table to read: the full route says so.
    return 'the process table cannot be read';
  }
  let boot: number | null = null;
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    let cmdline: Buffer;
    try {
      cmdline = readCmdline(`${proc}/${name}/cmdline`);
    } catch {
      // Exited while we looked.
      continue;
    }
    const kinds = agents.filter((g) => g.words.some((w) => cmdline.includes(w)));
    if (kinds.length === 0) continue;
    let stat: string;
    try {
      stat = readFileSync(`${proc}/${name}/stat`, 'latin1');
    } catch {
      // Exited while we looked.
      continue;
    }
    boot ??= bootTimeMs(proc);
    const start = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const startMs = boot + (start / CLK_TCK) * 1000;
    if (kinds.some((g) => !(startMs > g.until + START_MARGIN_MS)))
      return 'an agent process may run one of the sessions';
  }
  return null;
}

/**
 * A process's command line, in a buffer shared by every process of one scan (valid until the next
 * call): `readFileSync` would stat each file (the kernel says 0 bytes for all of them), allocate a
 * buffer and read twice, which cost a warm answer more than the rest of its proof.
 */
function readCmdline(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    let at = 0;
    for (;;) {
      if (at === cmdlineBuf.length) {
        const grown = Buffer.allocUnsafe(cmdlineBuf.length * 2);
        cmdlineBuf.copy(grown);
        cmdlineBuf = grown;
      }
      const got = readSync(fd, cmdlineBuf, at, cmdlineBuf.length - at, null);
      if (got === 0) return cmdlineBuf.subarray(0, at);
      at += got;
    }
  } finally {
    closeSync(fd);
  }
}

/** Most command lines are under a page; a longer one grows the buffer for the rest of the scan. */
let cmdlineBuf = Buffer.allocUnsafe(16 * 1024);

function bootTimeMs(proc: string): number {
  const m = /^btime (\d+)$/m.exec(readFileSync(`${proc}/stat`, 'latin1'));
  return m ? Number(m[1]) * 1000 : 0;
}
