/**
 * Where Amp's threads are: `threads/` under `$AMP_DATA_DIR` (a comma-separated list, as ccusage
 * reads it), else `~/.local/share/amp`. Each thread is one `T-<uuid>.json`, rewritten as it grows.
 * Reading a thread is not here (see `index.ts`): a warm run never reads one.
 */
import { basename, join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { dirList, home, isDir, isFile, list, sourceFile } from '../fsutil.js';
import { type Env, type ProviderPlace, type Root, reportedOrKnownWindow, type SourceFile } from '../types.js';

/**
 * How deep under `threads/` a thread is looked for: Amp writes them flat; one level of folders
 * covers an archive copied in beside them, and a link loop stops here.
 */
const MAX_THREAD_DEPTH = 2;

export function ampRoots(env: Env): Root[] {
  const dirs = dirList(env.AMP_DATA_DIR);
  if (dirs.length > 0) return dirs.map((path) => ({ path, origin: '$AMP_DATA_DIR' }));
  return [{ path: join(home(env), '.local', 'share', 'amp'), origin: 'default' }];
}

function walk(dir: string, root: string, depth: number, problems: ProblemLog, out: SourceFile[]): void {
  for (const e of list(dir, problems) ?? []) {
    if (e.name.endsWith('.json') && isFile(dir, e)) {
      const path = join(dir, e.name);
      const f = sourceFile(
        { provider: 'amp', path, root, sessionHint: basename(e.name, '.json'), role: 'main' },
        problems,
      );
      if (f) out.push(f);
    } else if (depth + 1 < MAX_THREAD_DEPTH && isDir(dir, e)) {
      walk(join(dir, e.name), root, depth + 1, problems, out);
    }
  }
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) walk(join(root.path, 'threads'), root.path, 0, problems, out);
  return out;
}

export const ampPlace: ProviderPlace<'amp'> = {
  id: 'amp',
  label: 'Amp',
  vendor: 'anthropic',
  appendOnly: false,
  bundledUnderMax: false,
  roots: ampRoots,
  discover,
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
  resumeCommand: (id) => ['amp', 'threads', 'continue', id],
};
