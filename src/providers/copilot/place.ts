/**
 * Where Copilot CLI's sessions are and how they are sized: the half of the provider a run answering
 * from the index needs. Reading a session, its title or its conversation is not here (see
 * `index.ts`): a warm run never reads one, so it should not load the parser to find the files.
 *
 * Besides `session-state`, its OpenTelemetry exports (`otel.ts`): `<root>/otel/*.jsonl` and the file
 * `$COPILOT_OTEL_FILE_EXPORTER_PATH` names, each session in them a member `<export>#<session id>`
 * whose fingerprint is the export's own (any change to the export reads its sessions again).
 */
import { statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describeFsError, type ProblemLog } from '../../model/problems.js';
import { isUuid, nodeRuns, programName } from '../argv.js';
import { home, isDir, isFile, list, sourceFile } from '../fsutil.js';
import { memberPath } from '../sqlite-members.js';
import {
  type Env,
  type ProcessRule,
  type ProviderPlace,
  type Root,
  reportedOrKnownWindow,
  type SourceFile,
} from '../types.js';
import { conversationsIn } from './otel-names.js';

const first = (v: string | undefined): string | null => (v && v.length > 0 ? v : null);

/** The origin of the root that is the export file a user pointed Copilot CLI at. */
const EXPORTER = '$COPILOT_OTEL_FILE_EXPORTER_PATH';

export function copilotRoots(env: Env): Root[] {
  const dir = first(env.COPILOT_HOME);
  const roots: Root[] = dir
    ? [{ path: dir, origin: '$COPILOT_HOME' }]
    : [{ path: join(home(env), '.copilot'), origin: 'default' }];
  const exporter = first(env.COPILOT_OTEL_FILE_EXPORTER_PATH?.trim());
  // One already under `<root>/otel` is found there.
  if (exporter && !roots.some((r) => dirname(exporter) === join(r.path, 'otel')))
    roots.push({ path: exporter, origin: EXPORTER });
  return roots;
}

function add(out: SourceFile[], path: string, root: string, hint: string, problems: ProblemLog): void {
  const f = sourceFile({ provider: 'copilot', path, root, sessionHint: hint, role: 'main' }, problems);
  if (f) out.push(f);
}

/** Each session an export names, as a part of that session (`otel.ts`). */
function addExport(out: SourceFile[], path: string, root: string, problems: ProblemLog): void {
  const f = sourceFile({ provider: 'copilot', path, root, sessionHint: null, role: 'part' }, problems);
  if (!f) return;
  let ids: string[];
  try {
    ids = conversationsIn(path);
  } catch (err) {
    // One export that cannot be read (taken away, no permission) costs its own sessions, not every
    // Copilot session discovery would find: said, and passed over.
    problems.add({ kind: 'unreadable', path, count: null, detail: describeFsError(err) });
    return;
  }
  for (const id of ids) out.push({ ...f, path: memberPath(path, id), sessionHint: id });
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) {
    if (root.origin === EXPORTER) {
      if (statSync(root.path, { throwIfNoEntry: false })?.isFile())
        addExport(out, root.path, root.path, problems);
      continue;
    }
    const otel = join(root.path, 'otel');
    for (const e of list(otel, problems) ?? []) {
      if (e.name.endsWith('.jsonl') && isFile(otel, e))
        addExport(out, join(otel, e.name), root.path, problems);
    }
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
  // Each command line `isAgent` accepts names `copilot`: the program, or the script node runs.
  words: ['copilot'],
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
