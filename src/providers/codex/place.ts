/**
 * Where Codex's rollouts are and how its sessions are sized: the half of the provider a run
 * answering from the index needs. Reading a rollout or a conversation is not here (see `index.ts`):
 * a warm run never reads one, so it should not load the parser to find the files.
 */
import { join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { isUuid, nodeRuns, programName } from '../argv.js';
import { child, dirList, home, isFile, list, sourceFile } from '../fsutil.js';
import type { Env, ProcessRule, ProviderPlace, Root, SourceFile } from '../types.js';

/** `rollout-2025-09-25T15-12-14-<uuid>.jsonl`: the session id is the trailing uuid. */
const ROLLOUT_ID = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

/** The date folders nest three deep (YYYY/MM/DD); a little slack for layouts we have not seen. */
const MAX_DEPTH = 5;

export function codexRoots(env: Env): Root[] {
  const configured = dirList(env.CODEX_HOME);
  if (configured.length > 0) return configured.map((path) => ({ path, origin: '$CODEX_HOME' }));
  return [{ path: join(home(env), '.codex'), origin: 'default' }];
}

/** The session id a rollout's file name ends with, or null. */
export const rolloutId = (path: string): string | null => ROLLOUT_ID.exec(path)?.[1]?.toLowerCase() ?? null;

function walk(dir: string, root: string, depth: number, problems: ProblemLog, out: SourceFile[]): void {
  if (depth > MAX_DEPTH) return;
  for (const e of list(dir, problems) ?? []) {
    if (e.name.endsWith('.jsonl') && isFile(dir, e)) {
      const path = child(dir, e.name);
      const sessionHint = rolloutId(e.name);
      const f = sourceFile({ provider: 'codex', path, root, sessionHint, role: 'main' }, problems);
      if (f) out.push(f);
    } else if (e.isDirectory()) {
      // Real directories only below the root: a symbolic link loop cannot trap the walk.
      walk(child(dir, e.name), root, depth + 1, problems, out);
    }
  }
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) {
    for (const sub of ['sessions', 'archived_sessions']) {
      const dir = join(root.path, sub);
      walk(dir, root.path, 0, problems, out);
    }
  }
  return out;
}

/**
 * `codex` itself or node running its script (not `codex-linux-sandbox`, a helper it runs); a session
 * is named by `resume <id>`.
 */
const processes: ProcessRule = {
  // Each test below names `codex`: the program, its versions folder or the script node runs.
  words: ['codex'],
  isAgent: (argv) => programName(argv) === 'codex' || nodeRuns(argv, /(^|\/)codex(\.js)?$/),
  sessionArg(argv) {
    for (let i = 0; i < argv.length; i++) {
      const next = argv[i + 1];
      if (argv[i] === 'resume' && isUuid(next)) return next;
    }
    return null;
  },
};

export const codexPlace: ProviderPlace<'codex'> = {
  id: 'codex',
  label: 'Codex',
  vendor: 'openai',
  appendOnly: true,
  bundledUnderMax: false,
  roots: codexRoots,
  discover,
  // Codex does not write down where it auto-compacts; the window is the honest denominator.
  compactRatio: () => null,
  contextWindow: (q) => q.reportedWindow ?? q.catalogueWindow,
  resumeCommand: (id) => ['codex', 'resume', id],
  // Every Codex sandbox reads the whole disk; `--add-dir` is for writing, which a brief needs not.
  startCommand: (prompt) => ['codex', prompt],
  processes,
};
