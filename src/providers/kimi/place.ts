/**
 * Where Kimi CLI's sessions are: `sessions/<work dir hash>/<session id>/wire.jsonl` under
 * `$KIMI_DATA_DIR` (comma-separated roots, as ccusage reads it), Kimi's own `$KIMI_SHARE_DIR`, or
 * `~/.kimi`. The half of the provider a run answering from the index needs; reading a wire file is
 * `parse.ts`.
 *
 * Known limit: Kimi's work directories are named by a hash here (the paths are in `kimi.json`), so a
 * session's working directory is not shown.
 */
import { join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { dirList, groupedSessionFiles, home } from '../fsutil.js';
import { type Env, type ProviderPlace, type Root, reportedOrKnownWindow, type SourceFile } from '../types.js';

/** The one file of a session that records its usage (`context.jsonl` beside it holds the prompt history). */
export const WIRE_FILE = 'wire.jsonl';

/**
 * `$KIMI_DATA_DIR` first (comma-separated, as ccusage reads it), then Kimi's own `$KIMI_SHARE_DIR`
 * (where a user who moved Kimi's folder told Kimi it is), then `~/.kimi`.
 */
export function kimiRoots(env: Env): Root[] {
  const set = dirList(env.KIMI_DATA_DIR);
  if (set.length > 0) return set.map((path) => ({ path, origin: '$KIMI_DATA_DIR' }));
  const share = env.KIMI_SHARE_DIR?.trim();
  if (share) return [{ path: share, origin: '$KIMI_SHARE_DIR' }];
  return [{ path: join(home(env), '.kimi'), origin: 'default' }];
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  return roots.flatMap((root) =>
    groupedSessionFiles('kimi', join(root.path, 'sessions'), WIRE_FILE, root.path, problems),
  );
}

export const kimiPlace: ProviderPlace<'kimi'> = {
  id: 'kimi',
  label: 'Kimi CLI',
  vendor: null,
  appendOnly: true,
  bundledUnderMax: false,
  roots: kimiRoots,
  discover,
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
  // `kimi --session <id>` reopens a session by the id its folder is named after.
  resumeCommand: (id) => ['kimi', '--session', id],
};
