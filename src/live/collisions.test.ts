/**
 * The collision rule, over the calls the providers read from transcripts shaped as the harnesses
 * write them (trimmed): Claude Code 2.1.80's `Edit`, `Write` and `MultiEdit` tool_use blocks, and
 * Codex 0.169's freeform `apply_patch`, in a temporary folder that holds real repositories (`.git`
 * directories) and a worktree (a `.git` file).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallLog } from '../model/calls.js';
import { claude } from '../providers/claude/index.js';
import { codex } from '../providers/codex/index.js';
import { jsonl, tempDir } from '../test-support/corpus.js';
import {
  absolutePath,
  COLLISION_WINDOW_MS,
  collisionMarks,
  exempt,
  findCollisions,
  MAX_PATHS_CONSIDERED,
  MAX_WRITES_PER_SESSION,
  recentWrites,
  type Writer,
} from './collisions.js';
import { RepoRoots } from './repo-root.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

const NOW = Date.parse('2026-12-01T12:00:00Z');
const minutesAgo = (m: number) => new Date(NOW - m * 60_000).toISOString();

function repo(...parts: string[]): string {
  const root = join(dir, ...parts);
  mkdirSync(join(root, '.git'), { recursive: true });
  return root;
}

let n = 0;
/** A Claude Code 2.1.80 session whose assistant writes with `tools` (name, input, minutes ago). */
function claudeSession(cwd: string, tools: [string, object, number][]): string {
  const id = `5c7d2f0e-1b3a-4c5d-8e9f-${String(++n).padStart(12, '0')}`;
  const base = { cwd, sessionId: id, version: '2.1.80', gitBranch: 'main', userType: 'external' };
  const records: unknown[] = [
    {
      ...base,
      type: 'user',
      uuid: `u-${n}`,
      timestamp: minutesAgo(60),
      message: { role: 'user', content: 'go' },
    },
  ];
  for (const [i, [name, input, ago]] of tools.entries())
    records.push(
      {
        ...base,
        type: 'assistant',
        uuid: `a-${n}-${i}`,
        timestamp: minutesAgo(ago),
        requestId: `req_${n}_${i}`,
        message: {
          model: 'claude-opus-4-6',
          id: `msg_${n}_${i}`,
          type: 'message',
          role: 'assistant',
          content: [{ type: 'tool_use', id: `toolu_${n}_${i}`, name, input }],
          usage: {
            input_tokens: 3,
            cache_creation_input_tokens: 10,
            cache_read_input_tokens: 100,
            output_tokens: 9,
          },
        },
      },
      {
        ...base,
        type: 'user',
        uuid: `r-${n}-${i}`,
        timestamp: minutesAgo(ago),
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: `toolu_${n}_${i}`, content: 'ok', is_error: false }],
        },
      },
    );
  const path = join(dir, 'transcripts', `${id}.jsonl`);
  mkdirSync(join(dir, 'transcripts'), { recursive: true });
  writeFileSync(path, jsonl(...records));
  return path;
}

/** A Codex 0.169 rollout whose model sends one freeform `apply_patch`, `ago` minutes ago. */
function codexPatch(cwd: string, patch: string, ago: number): string {
  const id = `019cb0aa-0000-7000-8000-${String(++n).padStart(12, '0')}`;
  const path = join(dir, 'rollouts', `rollout-2026-12-01T11-00-00-${id}.jsonl`);
  mkdirSync(join(dir, 'rollouts'), { recursive: true });
  writeFileSync(
    path,
    jsonl(
      {
        timestamp: minutesAgo(61),
        type: 'session_meta',
        payload: { id, cwd, originator: 'codex_exec', cli_version: '0.169.0' },
      },
      {
        timestamp: minutesAgo(60),
        type: 'response_item',
        payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'patch it' }] },
      },
      {
        timestamp: minutesAgo(ago),
        type: 'response_item',
        payload: {
          type: 'custom_tool_call',
          status: 'completed',
          call_id: `call_${n}`,
          name: 'apply_patch',
          input: patch,
        },
      },
    ),
  );
  return path;
}

const roots = () => {
  const r = new RepoRoots();
  return (path: string) => r.of(path);
};

/** A running Claude Code session of `log`, as the rule takes it. */
function writer(id: string, log: CallLog, project: string, over: Partial<Writer> = {}): Writer {
  return {
    provider: 'claude',
    id,
    title: `task ${id}`,
    project,
    running: true,
    deleted: false,
    writes: recentWrites(log, project, NOW, roots()),
    ...over,
  };
}

describe('which writes count', () => {
  it('an Edit, a Write and a MultiEdit each write the file they name, made absolute against the session folder', () => {
    const app = repo('app');
    const log = claude.calls!(
      claudeSession(app, [
        ['Edit', { file_path: join(app, 'src/a.ts'), old_string: 'a', new_string: 'b' }, 9],
        ['Write', { file_path: 'src/new.ts', content: 'x' }, 8],
        [
          'MultiEdit',
          { file_path: join(app, 'src/../src/c.ts'), edits: [{ old_string: 'c', new_string: 'd' }] },
          7,
        ],
        ['Read', { file_path: join(app, 'src/read-only.ts') }, 6],
      ]),
    );
    expect(
      recentWrites(log, app, NOW, roots())
        .map((w) => w.path)
        .sort(),
    ).toEqual([join(app, 'src/a.ts'), join(app, 'src/c.ts'), join(app, 'src/new.ts')]);
  });

  it('every file of a Codex apply_patch counts, each in its own repository', () => {
    const app = repo('app');
    const lib = repo('lib');
    const patch = `*** Begin Patch\n*** Update File: src/a.ts\n-x\n+y\n*** Add File: ${join(lib, 'b.ts')}\n+b\n*** End Patch`;
    const log = codex.calls!(codexPatch(app, patch, 3));
    expect(recentWrites(log, app, NOW, roots()).map((w) => [w.path, w.repoRoot])).toEqual([
      [join(app, 'src/a.ts'), app],
      [join(lib, 'b.ts'), lib],
    ]);
  });

  it('prose, lock files, files outside any repository and writes older than the window do not count', () => {
    const app = repo('app');
    mkdirSync(join(dir, 'scratch'));
    const log = claude.calls!(
      claudeSession(app, [
        ['Edit', { file_path: join(app, 'README.md'), old_string: 'a', new_string: 'b' }, 5],
        ['Write', { file_path: join(app, 'package-lock.json'), content: '{}' }, 5],
        ['Write', { file_path: join(app, 'Cargo.lock'), content: '' }, 5],
        ['Write', { file_path: join(dir, 'scratch', 'x.ts'), content: '' }, 5],
        ['Edit', { file_path: join(app, 'src/old.ts'), old_string: 'a', new_string: 'b' }, 31],
        ['Edit', { file_path: join(app, 'src/now.ts'), old_string: 'a', new_string: 'b' }, 29],
      ]),
    );
    expect(recentWrites(log, app, NOW, roots()).map((w) => w.path)).toEqual([join(app, 'src/now.ts')]);
  });

  it(`a session keeps its ${MAX_WRITES_PER_SESSION} newest files, each once`, () => {
    const app = repo('app');
    const tools: [string, object, number][] = [];
    for (let i = 0; i < MAX_WRITES_PER_SESSION + 10; i++)
      tools.push(['Write', { file_path: join(app, `f${i}.ts`), content: '' }, 20 - i * 0.1]);
    tools.push(['Write', { file_path: join(app, 'f0.ts'), content: '' }, 1]);
    const writes = recentWrites(claude.calls!(claudeSession(app, tools)), app, NOW, roots());
    expect(writes).toHaveLength(MAX_WRITES_PER_SESSION);
    expect(writes[0]!.path).toBe(join(app, 'f0.ts'));
    expect(new Set(writes.map((w) => w.path)).size).toBe(MAX_WRITES_PER_SESSION);
  });

  it(`a patch naming thousands of files outside any repository looks up at most ${MAX_PATHS_CONSIDERED} of them`, () => {
    const files = Array.from({ length: 5000 }, (_, i) => `*** Add File: /nowhere/d${i}/f.ts\n+x`);
    const log = codex.calls!(
      codexPatch('/nowhere', `*** Begin Patch\n${files.join('\n')}\n*** End Patch`, 2),
    );
    expect(log.calls[0]!.files).toHaveLength(5000);
    let lookups = 0;
    const writes = recentWrites(log, '/nowhere', NOW, () => {
      lookups++;
      return null;
    });
    expect(writes).toEqual([]);
    expect(lookups).toBe(MAX_PATHS_CONSIDERED);
  });

  it('a relative path with no folder to place it in, or a path with a NUL, is not placed', () => {
    expect(absolutePath('src/a.ts', null)).toBeNull();
    expect(absolutePath('/w/a\u0000.ts', '/w')).toBeNull();
    expect(absolutePath('src/../b.ts', '/w/app')).toBe('/w/app/b.ts');
  });

  it('exempts prose and machine-written files by name, in any case', () => {
    for (const f of [
      '/r/CHANGELOG.md',
      '/r/docs/x.RST',
      '/r/notes.txt',
      '/r/yarn.lock',
      '/r/go.sum',
      '/r/pnpm-lock.yaml',
    ])
      expect(exempt(f)).toBe(true);
    for (const f of ['/r/src/a.ts', '/r/Makefile', '/r/.md/x.ts', '/r/package.json'])
      expect(exempt(f)).toBe(false);
  });
});

describe('collisions', () => {
  it('two running sessions that wrote the same file collide on that file', () => {
    const app = repo('app');
    const file = join(app, 'src', 'shared.ts');
    const a = claude.calls!(
      claudeSession(app, [['Edit', { file_path: file, old_string: 'a', new_string: 'b' }, 10]]),
    );
    const patch = '*** Begin Patch\n*** Update File: src/shared.ts\n-b\n+c\n*** End Patch';
    const b = codex.calls!(codexPatch(app, patch, 2));
    const found = findCollisions([writer('a', a, app), writer('b', b, app, { provider: 'codex' })], NOW);
    expect(found).toEqual([
      {
        key: `file:${file}`,
        level: 'file',
        repoRoot: app,
        path: file,
        sessions: [
          {
            provider: 'codex',
            id: 'b',
            title: 'task b',
            project: app,
            wroteAt: minutesAgo(2),
            paths: [file],
          },
          {
            provider: 'claude',
            id: 'a',
            title: 'task a',
            project: app,
            wroteAt: minutesAgo(10),
            paths: [file],
          },
        ],
      },
    ]);
    expect(collisionMarks(found)).toEqual(
      new Map([
        ['codex\u0000b', 'file'],
        ['claude\u0000a', 'file'],
      ]),
    );
  });

  it('two running sessions writing different files of one repository collide at the repository level', () => {
    const app = repo('app');
    const a = claude.calls!(claudeSession(app, [['Write', { file_path: 'src/a.ts', content: '' }, 4]]));
    const b = claude.calls!(claudeSession(app, [['Write', { file_path: 'src/b.ts', content: '' }, 3]]));
    const [c, ...rest] = findCollisions([writer('a', a, app), writer('b', b, app)], NOW);
    expect(rest).toEqual([]);
    expect(c).toMatchObject({ key: `repo:${app}`, level: 'repo', repoRoot: app, path: null });
    expect(c!.sessions.map((s) => [s.id, s.paths])).toEqual([
      ['b', [join(app, 'src/b.ts')]],
      ['a', [join(app, 'src/a.ts')]],
    ]);
  });

  it('two worktrees of one project are two repositories: the same relative file does not collide', () => {
    const main = repo('app');
    const wt = join(dir, 'app-feature');
    mkdirSync(wt);
    writeFileSync(join(wt, '.git'), `gitdir: ${join(main, '.git', 'worktrees', 'app-feature')}\n`);
    const a = claude.calls!(
      claudeSession(main, [['Edit', { file_path: 'src/x.ts', old_string: 'a', new_string: 'b' }, 2]]),
    );
    const b = claude.calls!(
      claudeSession(wt, [['Edit', { file_path: 'src/x.ts', old_string: 'a', new_string: 'b' }, 1]]),
    );
    expect(findCollisions([writer('a', a, main), writer('b', b, wt)], NOW)).toEqual([]);
  });

  it('a session no process runs, or deleted, collides with nobody', () => {
    const app = repo('app');
    const file = join(app, 'src', 'shared.ts');
    const edit = (): CallLog =>
      claude.calls!(claudeSession(app, [['Edit', { file_path: file, old_string: 'a', new_string: 'b' }, 5]]));
    const running = writer('a', edit(), app);
    expect(findCollisions([running, writer('b', edit(), app, { running: false })], NOW)).toEqual([]);
    expect(findCollisions([running, writer('c', edit(), app, { running: null })], NOW)).toEqual([]);
    expect(findCollisions([running, writer('d', edit(), app, { deleted: true })], NOW)).toEqual([]);
  });

  it('a write that left the window since it was read no longer collides', () => {
    const app = repo('app');
    const file = join(app, 'src', 'shared.ts');
    const a = claude.calls!(
      claudeSession(app, [['Edit', { file_path: file, old_string: 'a', new_string: 'b' }, 25]]),
    );
    const b = claude.calls!(
      claudeSession(app, [['Edit', { file_path: file, old_string: 'b', new_string: 'c' }, 1]]),
    );
    const writers = [writer('a', a, app), writer('b', b, app)];
    expect(findCollisions(writers, NOW)).toHaveLength(1);
    expect(findCollisions(writers, NOW + 6 * 60_000)).toEqual([]);
    expect(COLLISION_WINDOW_MS).toBe(30 * 60_000);
  });

  it('a shared file is listed, and a repository where two share a file is not listed again as a repository', () => {
    const app = repo('app');
    const other = repo('other');
    const shared = join(app, 'src', 'shared.ts');
    const a = claude.calls!(
      claudeSession(app, [
        ['Edit', { file_path: shared, old_string: 'a', new_string: 'b' }, 6],
        ['Write', { file_path: join(other, 'a.ts'), content: '' }, 5],
      ]),
    );
    const b = claude.calls!(
      claudeSession(app, [
        ['Edit', { file_path: shared, old_string: 'b', new_string: 'c' }, 4],
        ['Write', { file_path: join(other, 'b.ts'), content: '' }, 3],
      ]),
    );
    const found = findCollisions([writer('a', a, app), writer('b', b, app)], NOW);
    expect(found.map((c) => c.key)).toEqual([`file:${shared}`, `repo:${other}`]);
  });
});
