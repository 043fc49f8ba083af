/**
 * Where Factory's Droid keeps its sessions: `~/.factory/sessions/<project>/<id>.settings.json` (the
 * session's model and its running token totals) beside `<id>.jsonl` (its conversation), or under
 * `$DROID_SESSIONS_DIR` (a comma-separated list, as ccusage reads it). A session is found by its
 * settings file, which holds what it cost; the conversation beside it is read with it.
 * Reading them is not here (see `index.ts`): a warm run never reads one.
 */
import { join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { dirList, home, isDir, isFile, list, sourceFile } from '../fsutil.js';
import { type Env, type ProviderPlace, type Root, reportedOrKnownWindow, type SourceFile } from '../types.js';

export const SETTINGS_SUFFIX = '.settings.json';

/**
 * How deep under a sessions directory a settings file is looked for: Droid writes one folder per
 * project; two more levels cover an archive of those copied in beside them, and a link loop stops.
 */
const MAX_SESSION_DEPTH = 4;

export function droidRoots(env: Env): Root[] {
  const dirs = dirList(env.DROID_SESSIONS_DIR);
  if (dirs.length > 0) return dirs.map((path) => ({ path, origin: '$DROID_SESSIONS_DIR' }));
  return [{ path: join(home(env), '.factory', 'sessions'), origin: 'default' }];
}

/** The folder under a sessions directory where copies of sessions are archived. */
const ARCHIVE_DIR = 'archive';

/**
 * Which copy of a session speaks for it, decided by where each is and never by what it holds, so
 * that a damaged copy cannot take the session from a sound one: the first sessions directory
 * `$DROID_SESSIONS_DIR` lists before a later one, and within one a project folder before the
 * archive. Two ranks per directory: its project folders, then its archive.
 */
const copyRank = (rootIndex: number, archived: boolean): number => rootIndex * 2 + (archived ? 1 : 0);

interface Walk {
  root: string;
  rank: number;
  problems: ProblemLog;
  out: SourceFile[];
}

function walk(dir: string, depth: number, w: Walk): void {
  for (const e of list(dir, w.problems) ?? []) {
    if (e.name.endsWith(SETTINGS_SUFFIX) && isFile(dir, e)) {
      const sessionHint = e.name.slice(0, -SETTINGS_SUFFIX.length);
      const f = sourceFile(
        { provider: 'droid', path: join(dir, e.name), root: w.root, sessionHint, role: 'main' },
        w.problems,
      );
      if (f) w.out.push({ ...f, copyRank: w.rank });
    } else if (depth + 1 < MAX_SESSION_DEPTH && isDir(dir, e)) {
      const archived = depth === 0 && e.name === ARCHIVE_DIR;
      walk(join(dir, e.name), depth + 1, archived ? { ...w, rank: w.rank + 1 } : w);
    }
  }
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const [i, root] of roots.entries())
    walk(root.path, 0, { root: root.path, rank: copyRank(i, false), problems, out });
  return out;
}

export const droidPlace: ProviderPlace<'droid'> = {
  id: 'droid',
  label: 'Droid',
  vendor: null,
  appendOnly: false,
  bundledUnderMax: false,
  roots: droidRoots,
  discover,
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
  resumeCommand: (id) => ['droid', '--resume', id],
};
