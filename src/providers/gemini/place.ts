/**
 * Where Gemini CLI's chats are and how its sessions are sized (its compression threshold from
 * `settings.json`): the half of the provider a run answering from the index needs. Reading a chat or
 * a conversation is not here (see `index.ts`): a warm run never reads one, so it should not load
 * the parser to find the files.
 */

import { join } from 'node:path';
import { parseObject } from '../../model/json.js';
import type { ProblemLog } from '../../model/problems.js';
import { MAX_SETTINGS_READ_BYTES, readRegularText } from '../../regular-file.js';
import { isUuid, nodeRuns, programName } from '../argv.js';
import { home, isDir, isFile, list, sourceFile } from '../fsutil.js';
import type { Env, ProcessRule, ProviderPlace, Root, SourceFile, WindowQuery } from '../types.js';

/** Gemini CLI compresses the chat at half the model's window unless settings say otherwise. */
export const DEFAULT_COMPACT_RATIO = 0.5;

/** The window of every current Gemini model (`tokenLimit` in Gemini CLI) when the catalogue lacks it. */
export const DEFAULT_WINDOW = 1_048_576;

/** Session ids name subagent folders; anything but a plain token is not one. */
export const SESSION_ID = /^[A-Za-z0-9_.-]{1,128}$/;

const first = (v: string | undefined): string | null => (v && v.length > 0 ? v : null);

export function geminiRoots(env: Env): Root[] {
  const dir = first(env.GEMINI_DIR);
  if (dir) return [{ path: dir, origin: '$GEMINI_DIR' }];
  const cliHome = first(env.GEMINI_CLI_HOME);
  if (cliHome) return [{ path: join(cliHome, '.gemini'), origin: '$GEMINI_CLI_HOME' }];
  return [{ path: join(home(env), '.gemini'), origin: 'default' }];
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) {
    const tmp = join(root.path, 'tmp');
    for (const project of list(tmp, problems) ?? []) {
      if (!isDir(tmp, project)) continue;
      const chats = join(tmp, project.name, 'chats');
      const entries = list(chats, problems) ?? [];
      const names = new Set(entries.map((e) => e.name));
      for (const e of entries) {
        if (e.name.startsWith('session-') && (e.name.endsWith('.jsonl') || e.name.endsWith('.json'))) {
          if (!isFile(chats, e)) continue;
          // Migrated on resume into `<name>.jsonl`, which repeats it: read that one only.
          if (e.name.endsWith('.json') && names.has(`${e.name}l`)) continue;
          const path = join(chats, e.name);
          const f = sourceFile(
            { provider: 'gemini', path, root: root.path, sessionHint: null, role: 'main' },
            problems,
          );
          if (f) out.push(f);
        } else if (SESSION_ID.test(e.name) && isDir(chats, e)) {
          const dir = join(chats, e.name);
          for (const s of list(dir, problems) ?? []) {
            if (!s.name.endsWith('.jsonl') || !isFile(dir, s)) continue;
            const path = join(dir, s.name);
            const f = sourceFile(
              { provider: 'gemini', path, root: root.path, sessionHint: e.name, role: 'subagent' },
              problems,
            );
            if (f) out.push(f);
          }
        }
      }
    }
  }
  return out;
}

const ratios = new Map<string, number>();

/** `model.compressionThreshold` (or the older `chatCompression.contextPercentageThreshold`). */
function settingsRatio(path: string): number {
  let ratio = ratios.get(path);
  if (ratio === undefined) {
    ratio = DEFAULT_COMPACT_RATIO;
    const read = readRegularText(path, MAX_SETTINGS_READ_BYTES);
    if (read.kind === 'read') {
      try {
        const s = parseObject(read.text);
        const model = s?.model as { compressionThreshold?: unknown } | undefined;
        const older = s?.chatCompression as { contextPercentageThreshold?: unknown } | undefined;
        const v = model?.compressionThreshold ?? older?.contextPercentageThreshold;
        if (typeof v === 'number' && v > 0 && v <= 1) ratio = v;
      } catch {
        // unreadable settings: Gemini CLI falls back to its default too
      }
    }
    ratios.set(path, ratio);
  }
  return ratio;
}

function contextWindow(q: WindowQuery): number | null {
  const known =
    q.reportedWindow ??
    q.catalogueWindow ??
    (q.model?.toLowerCase().startsWith('gemini') ? DEFAULT_WINDOW : null);
  if (known === null) return null;
  // A window is never shown smaller than what it already held.
  return q.used !== null && q.used > known ? q.used : known;
}

/**
 * `gemini` itself, or node running its script (the npm package's `gemini` bin or its
 * `@google/gemini-cli` bundle). 0.61.0 relaunches itself as a child node with a larger heap; that
 * child sits in the first one's tree, so the first is the agent. A session is named by
 * `--resume <id>` or `-r <id>`, which its quit screen prints ("To resume this session").
 */
const processes: ProcessRule = {
  // Each command line `isAgent` accepts names `gemini`: the program, or the script node runs.
  words: ['gemini'],
  isAgent: (argv) =>
    programName(argv) === 'gemini' || nodeRuns(argv, /(^|\/)gemini(\.js)?$|@google\/gemini-cli\/.+\.js$/),
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

export const geminiPlace: ProviderPlace<'gemini'> = {
  id: 'gemini',
  label: 'Gemini CLI',
  vendor: 'google',
  // `.jsonl` chats only grow; a whole-file `.json` is always read from its start by `parse`.
  appendOnly: true,
  bundledUnderMax: false,
  roots: geminiRoots,
  discover,
  compactRatio: (env) => settingsRatio(join(geminiRoots(env)[0]!.path, 'settings.json')),
  contextWindow,
  // Its file tools refuse paths outside the workspace unless they are included in it.
  startCommand: (prompt, dirs) => [
    'gemini',
    ...dirs.flatMap((d) => ['--include-directories', d]),
    '--prompt-interactive',
    prompt,
  ],
  resumeCommand: (id) => ['gemini', '--resume', id],
  processes,
};
