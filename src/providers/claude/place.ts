/**
 * Where Claude Code's transcripts are and how its sessions are sized: the half of the provider a
 * run answering from the index needs. Reading a transcript or a conversation is not here (see
 * `index.ts`): a warm run never reads one, so it should not load the parser to find the files.
 */

import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { ProblemLog } from '../../model/problems.js';
import { MAX_SETTINGS_READ_BYTES, readRegularText } from '../../regular-file.js';
import { isUuid, nodeRuns, programName } from '../argv.js';
import { child, dirList, home, isDir, isFile, list, sourceFile } from '../fsutil.js';
import type { Env, ProcessRule, ProviderPlace, Root, SourceFile, WindowQuery } from '../types.js';

/** Claude Code compacts at 83.5% of its window unless told otherwise. */
export const DEFAULT_COMPACT_RATIO = 0.835;

export function claudeRoots(env: Env): Root[] {
  const configured = dirList(env.CLAUDE_CONFIG_DIR);
  if (configured.length > 0) return configured.map((path) => ({ path, origin: '$CLAUDE_CONFIG_DIR' }));
  const h = home(env);
  return [
    { path: join(h, '.claude'), origin: 'default' },
    { path: join(h, '.config', 'claude'), origin: 'default' },
  ];
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) {
    const projects = join(root.path, 'projects');
    for (const slug of list(projects, problems) ?? []) {
      if (!isDir(projects, slug)) continue;
      const dir = child(projects, slug.name);
      for (const e of list(dir, problems) ?? []) {
        if (e.name.endsWith('.jsonl') && isFile(dir, e)) {
          const stem = e.name.slice(0, -'.jsonl'.length);
          // `agent-<id>.jsonl` beside a main file is an older subagent; its records name the parent.
          const sub = stem.startsWith('agent-');
          const f = sourceFile(
            {
              provider: 'claude',
              path: child(dir, e.name),
              root: root.path,
              sessionHint: sub ? null : stem,
              role: sub ? 'subagent' : 'main',
            },
            problems,
          );
          if (f) out.push(f);
        } else if (isDir(dir, e)) {
          const subDir = join(dir, e.name, 'subagents');
          for (const s of list(subDir, problems) ?? []) {
            if (!s.name.endsWith('.jsonl') || !isFile(subDir, s)) continue;
            const path = join(subDir, s.name);
            const f = sourceFile(
              { provider: 'claude', path, root: root.path, sessionHint: e.name, role: 'subagent' },
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

/** The window every current Claude model has unless a 1M-token variant is pinned. */
export const DEFAULT_WINDOW = 200_000;
export const LONG_WINDOW = 1_000_000;

const pinCache = new Map<string, boolean>();

const ABSENT = { kind: 'missing' } as const;

/** Whether `path` is certainly not there; anything else (it is, or the stat failed) is left to the read to say. */
function surelyAbsent(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) === undefined;
  } catch {
    // ENOTDIR, EACCES, a name too long: the read meets the same and says which, as it always did.
    return false;
  }
}

/** Whether a settings file pins a `[1m]` model. */
function settingsPin(path: string): boolean {
  let pinned = pinCache.get(path);
  if (pinned === undefined) {
    pinned = false;
    // Most projects have no such file, and its absence is kept per path. A failed open throws, which
    // costs twenty times a stat that may find nothing: on a history of a few hundred projects (two
    // files each), a first build's serial tail spent tens of milliseconds on them.
    const read = surelyAbsent(path) ? ABSENT : readRegularText(path, MAX_SETTINGS_READ_BYTES);
    // A lookup that could not be made (a name too long, no permission) is said, by the fence.
    if (read.kind === 'failed') throw Object.assign(new Error(read.reason), { code: read.code ?? undefined });
    if (read.kind === 'read') {
      try {
        const model = (JSON.parse(read.text) as { model?: unknown }).model;
        pinned = typeof model === 'string' && model.includes('[1m]');
      } catch {
        pinned = false;
      }
    }
    pinCache.set(path, pinned);
  }
  return pinned;
}

const projectPins = new Map<string, boolean>();

/** Whether a project's own settings pin a 1M-token model (looked up once per project). */
function projectPin(cwd: string): boolean {
  let pinned = projectPins.get(cwd);
  if (pinned === undefined) {
    pinned =
      settingsPin(join(cwd, '.claude', 'settings.local.json')) ||
      settingsPin(join(cwd, '.claude', 'settings.json'));
    projectPins.set(cwd, pinned);
  }
  return pinned;
}

function contextWindow(q: WindowQuery): number | null {
  const pinned =
    (q.model?.includes('[1m]') ?? false) ||
    (q.cwd !== null && projectPin(q.cwd)) ||
    settingsPin(join(q.root, 'settings.json'));
  const window = pinned ? LONG_WINDOW : (q.catalogueWindow ?? DEFAULT_WINDOW);
  // A window is never shown smaller than what it already held.
  return q.used !== null && q.used > window ? Math.max(LONG_WINDOW, q.used) : window;
}

/**
 * `claude` itself, the native build under `…/claude/versions/<version>`, or node running the npm
 * package's script; a session is named by `--resume <id>`, `-r <id>` or `--session-id <id>`.
 */
const processes: ProcessRule = {
  // Each test below names `claude`: the program, its versions folder or the script node runs.
  words: ['claude'],
  isAgent: (argv) =>
    programName(argv) === 'claude' ||
    (argv[0]?.includes('/claude/versions/') ?? false) ||
    nodeRuns(argv, /(^|\/)(claude|claude-code\/cli\.js)$/),
  sessionArg(argv) {
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i]!;
      const eq = /^--(?:resume|session-id)=(.+)$/.exec(a);
      if (eq && isUuid(eq[1])) return eq[1];
      const next = argv[i + 1];
      if ((a === '--resume' || a === '-r' || a === '--session-id') && isUuid(next)) return next;
    }
    return null;
  },
};

export const claudePlace: ProviderPlace<'claude'> = {
  id: 'claude',
  label: 'Claude Code',
  vendor: 'anthropic',
  appendOnly: true,
  bundledUnderMax: true,
  roots: claudeRoots,
  discover,
  compactRatio(env) {
    const override = Number(env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE);
    if (Number.isFinite(override) && override > 0 && override <= 100) return override / 100;
    return DEFAULT_COMPACT_RATIO;
  },
  contextWindow,
  resumeCommand: (id) => ['claude', '--resume', id],
  // The prompt before `--add-dir`, which takes every word after it as another directory.
  startCommand: (prompt, dirs) => ['claude', prompt, ...dirs.flatMap((d) => ['--add-dir', d])],
  processes,
};
