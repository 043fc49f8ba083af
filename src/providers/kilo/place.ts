/**
 * Where Kilo Code's CLI keeps its sessions: `kilo.db` in its data folder (`$KILO_DATA_DIR`, a
 * comma-separated list as ccusage reads it, else `~/.local/share/kilo`). Kilo's CLI is a fork of
 * OpenCode and keeps OpenCode's database unchanged (`session`, `message` and `part` tables), so the
 * sessions are listed by OpenCode's listing; where they are, and their names, are Kilo's.
 * A session is named `<kilo.db>#<id>`; a child session (a task) counts toward the one that ran it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describeFsError, type ProblemLog } from '../../model/problems.js';
import { dirList, home, statOf } from '../fsutil.js';
import { listSessions } from '../opencode/place.js';
import { type Env, type ProviderPlace, type Root, reportedOrKnownWindow, type SourceFile } from '../types.js';

export const DATABASE = 'kilo.db';

export function kiloRoots(env: Env): Root[] {
  const dirs = dirList(env.KILO_DATA_DIR);
  if (dirs.length > 0) return dirs.map((path) => ({ path, origin: '$KILO_DATA_DIR' }));
  return [{ path: join(home(env), '.local', 'share', 'kilo'), origin: 'default' }];
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) {
    const path = join(root.path, DATABASE);
    // A folder without a database has no sessions yet: not a problem.
    if (!existsSync(path)) continue;
    const st = statOf(path, problems);
    if (!st) continue;
    try {
      for (const s of listSessions(path)) {
        out.push({
          provider: 'kilo',
          path: s.path,
          root: root.path,
          sessionHint: s.root,
          role: s.isChild ? 'subagent' : 'main',
          size: s.rows,
          mtimeMs: s.updatedMs,
          ino: st.ino,
        });
      }
    } catch (err) {
      problems.add({
        kind: 'unreadable',
        path,
        count: null,
        detail: `the Kilo database could not be read (${describeFsError(err)}); its sessions are not shown`,
      });
    }
  }
  return out;
}

export const kiloPlace: ProviderPlace<'kilo'> = {
  id: 'kilo',
  label: 'Kilo Code',
  vendor: null,
  // Rows change in place: a changed session is read again whole.
  appendOnly: false,
  bundledUnderMax: false,
  roots: kiloRoots,
  discover,
  // As OpenCode, it compacts when the next request would not fit.
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
};
