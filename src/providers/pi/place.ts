/**
 * Where Pi's sessions are and how they are sized: the half of the provider a run answering from the
 * index needs. Reading a session or its conversation is not here (see `index.ts`): a warm run never
 * reads one, so it should not load the parser to find the files.
 */
import { join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { nodeRuns, programName } from '../argv.js';
import { home, isFile, list, sourceFile } from '../fsutil.js';
import {
  type Env,
  type ProcessRule,
  type ProviderPlace,
  type Root,
  reportedOrKnownWindow,
  type SourceFile,
} from '../types.js';

/** Sessions sit one folder deep (per working directory); a little slack for layouts not seen yet. */
const MAX_DEPTH = 3;

const first = (v: string | undefined): string | null => (v && v.length > 0 ? v : null);

export function piRoots(env: Env): Root[] {
  const sessions = first(env.PI_CODING_AGENT_SESSION_DIR);
  if (sessions) return [{ path: sessions, origin: '$PI_CODING_AGENT_SESSION_DIR' }];
  const agent = first(env.PI_CODING_AGENT_DIR);
  if (agent) return [{ path: join(agent, 'sessions'), origin: '$PI_CODING_AGENT_DIR' }];
  return [{ path: join(home(env), '.pi', 'agent', 'sessions'), origin: 'default' }];
}

function walk(dir: string, root: string, depth: number, problems: ProblemLog, out: SourceFile[]): void {
  if (depth > MAX_DEPTH) return;
  for (const e of list(dir, problems) ?? []) {
    if (e.name.endsWith('.jsonl') && isFile(dir, e)) {
      const path = join(dir, e.name);
      const f = sourceFile({ provider: 'pi', path, root, sessionHint: null, role: 'main' }, problems);
      if (f) out.push(f);
    } else if (e.isDirectory()) {
      // Real directories only below the root: a symbolic link loop cannot trap the walk.
      walk(join(dir, e.name), root, depth + 1, problems, out);
    }
  }
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) walk(root.path, root.path, 0, problems, out);
  return out;
}

/**
 * Pi as the process table shows it: 0.73.1 sets its process title to `pi`, which takes the place of
 * its whole command line (so no session can be read there: it is matched by its directory); before
 * that, node running the package's `cli.js`.
 */
const processes: ProcessRule = {
  // Each command line `isAgent` accepts holds `pi` (the program, or `pi-coding-agent`): a short word
  // that other command lines hold too, which only sends more warm answers to the full route.
  words: ['pi'],
  isAgent: (argv) =>
    (argv.length === 1 && programName(argv) === 'pi') || nodeRuns(argv, /pi-coding-agent\/dist\/cli\.js$/),
  sessionArg: () => null,
};

export const piPlace: ProviderPlace<'pi'> = {
  id: 'pi',
  label: 'Pi',
  vendor: null,
  appendOnly: true,
  bundledUnderMax: false,
  roots: piRoots,
  discover,
  // Pi compacts a fixed number of tokens before the window fills, not at a fraction of it.
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
  // Messages on the command line start its interactive session; its tools read any path.
  startCommand: (prompt) => ['pi', prompt],
  resumeCommand: (id) => ['pi', '--session', id],
  processes,
};
