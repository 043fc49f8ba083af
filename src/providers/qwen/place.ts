/**
 * Where Qwen Code's chats are and how they are sized: the half of the provider a run answering from
 * the index needs. Reading a chat or its conversation is not here (see `index.ts`): a warm run never
 * reads one, so it should not load the parser to find the files.
 */
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

export function qwenRoots(env: Env): Root[] {
  const runtime = first(env.QWEN_RUNTIME_DIR);
  if (runtime) return [{ path: runtime, origin: '$QWEN_RUNTIME_DIR' }];
  const qwenHome = first(env.QWEN_HOME);
  if (qwenHome) return [{ path: qwenHome, origin: '$QWEN_HOME' }];
  return [{ path: join(home(env), '.qwen'), origin: 'default' }];
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) {
    const projects = join(root.path, 'projects');
    for (const p of list(projects, problems) ?? []) {
      if (!isDir(projects, p)) continue;
      const chats = join(projects, p.name, 'chats');
      for (const e of list(chats, problems) ?? []) {
        if (!e.name.endsWith('.jsonl') || !isFile(chats, e)) continue;
        const path = join(chats, e.name);
        const sessionHint = basename(e.name, '.jsonl');
        const f = sourceFile(
          { provider: 'qwen', path, root: root.path, sessionHint, role: 'main' },
          problems,
        );
        if (f) out.push(f);
      }
    }
  }
  return out;
}

/**
 * `qwen` itself, or node running its script (the npm package's `qwen` bin or
 * `@qwen-code/qwen-code/cli.js`). 0.24.4 starts its own children with node; they sit in the first
 * one's tree, so the first is the agent. A session is named by `--resume <id>` or `-r <id>`, which
 * it prints as it quits ("To continue this session, run").
 */
const processes: ProcessRule = {
  // Each command line `isAgent` accepts names `qwen`: the program, or the script node runs.
  words: ['qwen'],
  isAgent: (argv) =>
    programName(argv) === 'qwen' || nodeRuns(argv, /(^|\/)qwen$|@qwen-code\/qwen-code\/cli\.js$/),
  sessionArg(argv) {
    for (let i = 0; i < argv.length; i++) {
      const eq = /^--resume=(.+)$/.exec(argv[i]!);
      if (eq && isUuid(eq[1])) return eq[1];
      const next = argv[i + 1];
      if ((argv[i] === '--resume' || argv[i] === '-r') && isUuid(next)) return next;
    }
    return null;
  },
};

export const qwenPlace: ProviderPlace<'qwen'> = {
  id: 'qwen',
  label: 'Qwen Code',
  vendor: null,
  appendOnly: true,
  bundledUnderMax: false,
  roots: qwenRoots,
  discover,
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
  // A positional prompt is one-shot; `-i` keeps the session open. Files outside the workspace as Gemini CLI.
  startCommand: (prompt, dirs) => [
    'qwen',
    ...dirs.flatMap((d) => ['--include-directories', d]),
    '--prompt-interactive',
    prompt,
  ],
  resumeCommand: (id) => ['qwen', '--resume', id],
  processes,
};
