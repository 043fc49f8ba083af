/**
 * Where Antigravity's conversations are: one SQLite database per conversation (and per
 * sub-conversation) under `conversations/` in `~/.gemini/antigravity-cli` (the CLI), or
 * `~/.gemini/antigravity` and `~/.gemini/antigravity-ide`; `$ANTIGRAVITY_DATA_DIR` names the roots
 * instead, comma-separated, as ccusage reads it. The half of the provider a run answering from the
 * index needs; reading a database is `parse.ts`.
 */
import { basename, join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { dirList, home, isDir, isFile, list, sourceFile } from '../fsutil.js';
import { type Env, type ProviderPlace, type Root, reportedOrKnownWindow, type SourceFile } from '../types.js';

/** Sub-conversations nest a folder or two below `conversations/`; a little slack past that. */
const MAX_DEPTH = 4;

export function antigravityRoots(env: Env): Root[] {
  const set = dirList(env.ANTIGRAVITY_DATA_DIR);
  if (set.length > 0) return set.map((path) => ({ path, origin: '$ANTIGRAVITY_DATA_DIR' }));
  const gemini = join(home(env), '.gemini');
  return ['antigravity-cli', 'antigravity', 'antigravity-ide'].map((d) => ({
    path: join(gemini, d),
    origin: 'default',
  }));
}

function walk(dir: string, root: string, depth: number, problems: ProblemLog, out: SourceFile[]): void {
  if (depth > MAX_DEPTH) return;
  for (const e of list(dir, problems) ?? []) {
    if (e.name.endsWith('.db') && isFile(dir, e)) {
      const path = join(dir, e.name);
      const sessionHint = basename(e.name, '.db');
      const f = sourceFile({ provider: 'antigravity', path, root, sessionHint, role: 'main' }, problems);
      if (f) out.push(f);
    } else if (isDir(dir, e)) walk(join(dir, e.name), root, depth + 1, problems, out);
  }
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) walk(join(root.path, 'conversations'), root.path, 0, problems, out);
  return out;
}

export const antigravityPlace: ProviderPlace<'antigravity'> = {
  id: 'antigravity',
  label: 'Antigravity',
  vendor: 'google',
  // A database is rewritten in place: a changed one is read again whole.
  appendOnly: false,
  bundledUnderMax: false,
  roots: antigravityRoots,
  discover,
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
  noConversation:
    "Antigravity keeps a conversation's words in protobuf blobs without a published schema; cctop reads its usage only",
};
