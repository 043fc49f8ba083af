/**
 * Where Grok Build CLI's sessions are: `sessions/<url-encoded cwd>/<session id>/updates.jsonl` (with a
 * `summary.json` beside it) under `$GROK_HOME` or `~/.grok`. The half of the provider a run answering
 * from the index needs; reading a session is `parse.ts`.
 */
import { join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { home, isDir, isFile, list, sourceFile } from '../fsutil.js';
import { type Env, type ProviderPlace, type Root, reportedOrKnownWindow, type SourceFile } from '../types.js';

export const UPDATES_FILE = 'updates.jsonl';

export function grokRoots(env: Env): Root[] {
  const set = env.GROK_HOME?.trim();
  if (set) return [{ path: set, origin: '$GROK_HOME' }];
  return [{ path: join(home(env), '.grok'), origin: 'default' }];
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) {
    const sessions = join(root.path, 'sessions');
    for (const project of list(sessions, problems) ?? []) {
      if (!isDir(sessions, project)) continue;
      const projectDir = join(sessions, project.name);
      for (const session of list(projectDir, problems) ?? []) {
        if (!isDir(projectDir, session)) continue;
        const dir = join(projectDir, session.name);
        if (!(list(dir, problems) ?? []).some((e) => e.name === UPDATES_FILE && isFile(dir, e))) continue;
        const f = sourceFile(
          {
            provider: 'grok',
            path: join(dir, UPDATES_FILE),
            root: root.path,
            sessionHint: session.name,
            role: 'main',
          },
          problems,
        );
        if (f) out.push(f);
      }
    }
  }
  return out;
}

export const grokPlace: ProviderPlace<'grok'> = {
  id: 'grok',
  label: 'Grok Build',
  vendor: null,
  appendOnly: true,
  bundledUnderMax: false,
  roots: grokRoots,
  discover,
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
  noConversation: "cctop reads Grok Build's usage, prompts and tools, not its conversation yet",
};
