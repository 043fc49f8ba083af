/**
 * Where Copilot CLI's sessions are and how they are sized: the half of the provider a run answering
 * from the index needs. Reading a session, its title or its conversation is not here (see
 * `index.ts`): a warm run never reads one, so it should not load the parser to find the files.
 */
import { statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { isUuid, nodeRuns, programName } from '../argv.js';
import { home, isDir, isFile, list, sourceFile } from '../fsutil.js';
import {
  type Env,
  type ProcessRule,
  type ProviderPlace,
  type Root,
  reportedOrKnownWindow,
  type SourceFile,
} from '../types.js';

const first = (v: string | undefined): string | null => (v && v.length > 0 ? v : null);

export function copilotRoots(env: Env): Root[] {
  const dir = first(env.COPILOT_HOME);
  if (dir) return [{ path: dir, origin: '$COPILOT_HOME' }];
  return [{ path: join(home(env), '.copilot'), origin: 'default' }];
}

function add(out: SourceFile[], path: string, root: string, hint: string, problems: ProblemLog): void {
  const f = sourceFile({ provider: 'copilot', path, root, sessionHint: hint, role: 'main' }, problems);
  if (f) out.push(f);
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) {
    for (const sub of ['session-state', 'history-session-state']) {
      const dir = join(root.path, sub);
      for (const e of list(dir, problems) ?? []) {
        if (e.name.endsWith('.jsonl') && isFile(dir, e)) {
          add(out, join(dir, e.name), root.path, basename(e.name, '.jsonl'), problems);
        } else if (isDir(dir, e)) {
          const events = join(dir, e.name, 'events.jsonl');
          // A session folder without events yet (only `workspace.yaml`) is not a session to show.
          if (statSync(events, { throwIfNoEntry: false })?.isFile())
            add(out, events, root.path, e.name, problems);
        }
      }
    }
  }
  return out;
}

/**
 * `copilot` itself, or node running the npm package's `copilot` bin. 1.0.102 runs its CLI in a child
 * of that node, in the first one's tree, so the first is the agent. A session is named by
 * `--resume=<id>` or `--resume <id>`.
 */
const processes: ProcessRule = {
  isAgent: (argv) => programName(argv) === 'copilot' || nodeRuns(argv, /(^|\/)copilot$/),
  sessionArg(argv) {
    for (let i = 0; i < argv.length; i++) {
      const eq = /^--resume=(.+)$/.exec(argv[i]!);
      if (eq && isUuid(eq[1])) return eq[1];
      if (argv[i] === '--resume' && isUuid(argv[i + 1])) return argv[i + 1]!;
    }
    return null;
  },
};

export const copilotPlace: ProviderPlace<'copilot'> = {
  id: 'copilot',
  label: 'Copilot CLI',
  vendor: null,
  appendOnly: true,
  bundledUnderMax: false,
  roots: copilotRoots,
  discover,
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
  // `-p` runs one prompt and exits; `--interactive` runs it and stays.
  startCommand: (prompt, dirs) => [
    'copilot',
    ...dirs.flatMap((d) => ['--add-dir', d]),
    '--interactive',
    prompt,
  ],
  resumeCommand: (id) => ['copilot', `--resume=${id}`],
  processes,
};
