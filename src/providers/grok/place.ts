/**
 * Where Grok Build CLI's sessions are: `sessions/<url-encoded cwd>/<session id>/updates.jsonl` (with a
 * `summary.json` beside it) under `$GROK_HOME` or `~/.grok`. The half of the provider a run answering
 * from the index needs; reading a session is `parse.ts`.
 */
import { join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { groupedSessionFiles, home } from '../fsutil.js';
import { type Env, type ProviderPlace, type Root, reportedOrKnownWindow, type SourceFile } from '../types.js';

export const UPDATES_FILE = 'updates.jsonl';

export function grokRoots(env: Env): Root[] {
  const set = env.GROK_HOME?.trim();
  if (set) return [{ path: set, origin: '$GROK_HOME' }];
  return [{ path: join(home(env), '.grok'), origin: 'default' }];
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  return roots.flatMap((root) =>
    groupedSessionFiles('grok', join(root.path, 'sessions'), UPDATES_FILE, root.path, problems),
  );
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
