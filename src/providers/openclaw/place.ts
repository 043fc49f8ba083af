/**
 * Where OpenClaw's sessions are: `agents/<agent>/sessions/<id>.jsonl` under `~/.openclaw` (and the
 * names it had before, `~/.clawdbot`, `~/.moltbot`, `~/.moldbot`), or the comma-separated roots
 * `$OPENCLAW_DIR` names, as ccusage reads them. A session the user reset or deleted is kept beside
 * it as `<id>.jsonl.reset.<time>` or `<id>.jsonl.deleted.<time>`: still paid for, so still counted,
 * with the session it belonged to. The half of the provider a run answering from the index needs.
 *
 * Since 2026.8 OpenClaw keeps each agent's sessions in `agents/<agent>/agent/openclaw-agent.sqlite`
 * (`store.ts`), and what stays in `sessions/` are the files the migration left and the reset and
 * deleted generations it still writes out; both are read, and a session in both counts once.
 */
import { join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { dirList, home, isDir, isFile, list, sourceFile } from '../fsutil.js';
import { type Env, type ProviderPlace, type Root, reportedOrKnownWindow, type SourceFile } from '../types.js';
import { STORE_FILE, storeSessions } from './store.js';

/** `agents/<agent>/sessions/` is two folders below the root; a little slack for layouts not seen yet. */
const MAX_DEPTH = 5;

export function openclawRoots(env: Env): Root[] {
  const set = dirList(env.OPENCLAW_DIR);
  if (set.length > 0) return set.map((path) => ({ path, origin: '$OPENCLAW_DIR' }));
  return ['.openclaw', '.clawdbot', '.moltbot', '.moldbot'].map((d) => ({
    path: join(home(env), d),
    origin: 'default',
  }));
}

/** The session a file belongs to: its name up to `.jsonl`, or null when it is not a session file. */
export function sessionOf(name: string): string | null {
  const at = name.indexOf('.jsonl');
  if (at <= 0) return null;
  const rest = name.slice(at);
  return rest === '.jsonl' || rest.startsWith('.jsonl.reset.') || rest.startsWith('.jsonl.deleted.')
    ? name.slice(0, at)
    : null;
}

function walk(dir: string, root: string, depth: number, problems: ProblemLog, out: SourceFile[]): void {
  if (depth > MAX_DEPTH) return;
  for (const e of list(dir, problems) ?? []) {
    const session = sessionOf(e.name);
    if (e.name === STORE_FILE && isFile(dir, e))
      out.push(...storeSessions(join(dir, e.name), root, problems));
    else if (session !== null && isFile(dir, e)) {
      const path = join(dir, e.name);
      const f = sourceFile(
        { provider: 'openclaw', path, root, sessionHint: session, role: 'main' },
        problems,
      );
      if (f) out.push(f);
    } else if (isDir(dir, e)) walk(join(dir, e.name), root, depth + 1, problems, out);
  }
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) walk(join(root.path, 'agents'), root.path, 0, problems, out);
  return out;
}

export const openclawPlace: ProviderPlace<'openclaw'> = {
  id: 'openclaw',
  label: 'OpenClaw',
  vendor: null,
  appendOnly: true,
  bundledUnderMax: false,
  roots: openclawRoots,
  discover,
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
};
