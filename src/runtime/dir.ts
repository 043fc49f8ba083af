/**
 * The runtime directory: where running cctops meet. Each long-running cctop listens on a socket here,
 * `cctop hook` keeps its small journal here, and the one process per machine that sends desktop and
 * webhook notifications holds its lock here. `docs/protocol.md` describes what goes through it.
 *
 * `$XDG_RUNTIME_DIR/cctop` when the session has one (per login, cleared at logout), else
 * `$TMPDIR/cctop-<uid>`. Either way it must be a directory of ours, mode 0700: anyone who can write
 * here could feed every cctop false states, so a directory that another user owns, or that others
 * can enter, is refused rather than used.
 *
 * Not here: sockets (`peers.ts`), the journal (`hooks/journal.ts`), locks (their owners).
 */
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '../providers/types.js';

/** The hook journal's name in the directory (`hooks/journal.ts` keeps it). */
export const JOURNAL_FILE = 'hooks.jsonl';

/** The mode the directory must have: its owner alone may list, enter or write it. */
export const RUNTIME_DIR_MODE = 0o700;

export type RuntimeDir = { kind: 'ok'; path: string } | { kind: 'refused'; path: string; why: string };

const uid = (): number => (typeof process.getuid === 'function' ? process.getuid() : 0);

/** Where the runtime directory is for `env`, without touching the disk. */
export function runtimeDirPath(env: Env): string {
  if (env.CCTOP_RUNTIME_DIR) return env.CCTOP_RUNTIME_DIR;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'cctop');
  return join(env.TMPDIR || tmpdir(), `cctop-${uid()}`);
}

/**
 * The runtime directory, made when missing (mode 0700) and checked: a directory (not a link), owned
 * by this user, that no one else may enter. A directory of ours with a looser mode is tightened; one
 * that is not ours is refused.
 */
export function runtimeDir(env: Env): RuntimeDir {
  const path = runtimeDirPath(env);
  try {
    try {
      mkdirSync(path, { recursive: true, mode: RUNTIME_DIR_MODE });
    } catch (err) {
      // Something else has the name (a file): the check below says what.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const st = lstatSync(path);
    if (!st.isDirectory()) return { kind: 'refused', path, why: 'it is not a directory' };
    if (st.uid !== uid()) return { kind: 'refused', path, why: `it belongs to user ${st.uid}, not to you` };
    if ((st.mode & 0o777) !== RUNTIME_DIR_MODE) chmodSync(path, RUNTIME_DIR_MODE);
    return { kind: 'ok', path };
  } catch (err) {
    return { kind: 'refused', path, why: (err as Error).message };
  }
}
