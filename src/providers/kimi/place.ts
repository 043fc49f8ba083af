/**
 * Where Kimi CLI's sessions are: `sessions/<work dir hash>/<session id>/wire.jsonl` under
 * `$KIMI_DATA_DIR` (comma-separated roots, as ccusage reads it), Kimi's own `$KIMI_SHARE_DIR`, or
 * `~/.kimi`; and its successor Kimi Code's, `sessions/<bucket>/<session id>/agents/<agent>/wire.jsonl`
 * under `$KIMI_CODE_HOME` or `~/.kimi-code` (ccusage 20.0.24 does not read those). The half of the
 * provider a run answering from the index needs; reading a wire file is `parse.ts`.
 *
 * Known limit: Kimi's work directories are named by a hash here (the paths are in `kimi.json`), so a
 * session's working directory is not shown.
 */
import { join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { dirList, groupedSessionFiles, home, isDir, isFile, list, sourceFile } from '../fsutil.js';
import { type Env, type ProviderPlace, type Root, reportedOrKnownWindow, type SourceFile } from '../types.js';

/** The one file of a session that records its usage (`context.jsonl` beside it holds the prompt history). */
export const WIRE_FILE = 'wire.jsonl';

/**
 * `$KIMI_DATA_DIR` first (comma-separated, as ccusage reads it), then Kimi's own `$KIMI_SHARE_DIR`
 * (where a user who moved Kimi's folder told Kimi it is), then `~/.kimi`.
 */
export function kimiRoots(env: Env): Root[] {
  return [...cliRoots(env), codeRoot(env)];
}

function cliRoots(env: Env): Root[] {
  const set = dirList(env.KIMI_DATA_DIR);
  if (set.length > 0) return set.map((path) => ({ path, origin: '$KIMI_DATA_DIR' }));
  const share = env.KIMI_SHARE_DIR?.trim();
  if (share) return [{ path: share, origin: '$KIMI_SHARE_DIR' }];
  return [{ path: join(home(env), '.kimi'), origin: 'default' }];
}

/** Kimi Code's home: `$KIMI_CODE_HOME`, else `~/.kimi-code`. */
function codeRoot(env: Env): Root {
  const set = env.KIMI_CODE_HOME?.trim();
  return set
    ? { path: set, origin: '$KIMI_CODE_HOME' }
    : { path: join(home(env), '.kimi-code'), origin: 'default' };
}

/** The folder of a Kimi Code session that holds one folder per agent, each with its `wire.jsonl`. */
export const CODE_AGENTS_DIR = 'agents';

/** The agent a Kimi Code session starts with; the others are the subagents it ran. */
const MAIN_AGENT = 'main';

/** Kimi Code's agent wires: `<sessions>/<bucket>/<session>/agents/<agent>/wire.jsonl`. */
function codeWires(sessions: string, root: string, problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const bucket of list(sessions, problems) ?? []) {
    if (!isDir(sessions, bucket)) continue;
    const bucketDir = join(sessions, bucket.name);
    for (const session of list(bucketDir, problems) ?? []) {
      if (!isDir(bucketDir, session)) continue;
      const agents = join(bucketDir, session.name, CODE_AGENTS_DIR);
      for (const agent of list(agents, problems) ?? []) {
        if (!isDir(agents, agent)) continue;
        const dir = join(agents, agent.name);
        if (!(list(dir, problems) ?? []).some((e) => e.name === WIRE_FILE && isFile(dir, e))) continue;
        const role = agent.name === MAIN_AGENT ? 'main' : 'subagent';
        const f = sourceFile(
          { provider: 'kimi', path: join(dir, WIRE_FILE), root, sessionHint: session.name, role },
          problems,
        );
        if (f) out.push(f);
      }
    }
  }
  return out;
}

/** Each root in both layouts: Kimi CLI's session folders, and Kimi Code's agent folders. */
function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  return roots.flatMap((root) => {
    const sessions = join(root.path, 'sessions');
    return [
      ...groupedSessionFiles('kimi', sessions, WIRE_FILE, root.path, problems),
      ...codeWires(sessions, root.path, problems),
    ];
  });
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
