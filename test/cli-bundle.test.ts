/**
 * The command line as the build bundles it (`scripts/cli-bundle.mjs`, `dist/cli-bundle/`): what
 * `dist/cli.js` runs past the warm entry. A module held in the bundle and loaded again from dist/
 * would be two instances of one module, each with its own state; a tree built without the bundle
 * must still run. Checked on the build `npm test` makes first, in child processes.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Reply, Task } from '../src/index/worker.js';
import { CLI } from '../src/test-support/cli-run.js';
import { FakeHome } from '../src/test-support/corpus.js';
import { addClaude, labTranscript } from '../src/test-support/owned.js';

const DIST = join(CLI, '..');
const BUNDLE = join(DIST, 'cli-bundle');

/** A loader hook that prints every module loaded, as a `MOD <url>` line on stderr. */
const HOOKS = `export async function load(url, context, next) {
  if (url.startsWith('file:')) process._rawDebug('MOD ' + url);
  return next(url, context);
}`;
const REGISTER = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

/** `cli` run with `args` in `env`: its output, and the files of `dist` it loaded, as paths under it. */
function run(cli: string, args: string[], env: Record<string, string>) {
  const r = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, cli, ...args],
    { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 60_000 },
  );
  const dist = `${pathToFileURL(join(cli, '..')).href}/`;
  const loaded = r.stderr
    .split('\n')
    .filter((l) => l.startsWith(`MOD ${dist}`))
    .map((l) => l.slice(`MOD ${dist}`.length));
  return { code: r.status, out: r.stdout, err: r.stderr.replace(/^MOD .*\n/gm, ''), loaded };
}

/** The modules of dist/ the bundle holds: rolldown opens each with a comment naming its file. */
function held(): Set<string> {
  const out = new Set<string>();
  for (const f of readdirSync(BUNDLE))
    for (const m of readFileSync(join(BUNDLE, f), 'utf8').matchAll(/^\/\/ dist\/(\S+\.js)$/gm))
      out.add(m[1]!);
  return out;
}

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
  addClaude(home.dir, labTranscript('claude', 'call'));
});
afterEach(() => home.cleanup());

describe('the command line from the bundle', () => {
  it('runs every one-shot from the bundle, and loads no module of dist/ the bundle also holds', () => {
    const inBundle = held();
    expect(inBundle).toContain('views/cli/main.js');
    expect(inBundle).toContain('index/snapshot.js');
    // The first run builds the index, the second answers from the warm snapshot; `--list` and a
    // report take routes of their own.
    for (const args of [
      ['--json', '--plan', 'retail'],
      ['--json', '--plan', 'retail'],
      ['--list', '--plan', 'retail'],
      ['daily', '--json'],
    ]) {
      const r = run(CLI, args, home.env);
      expect(r.code, r.err).toBe(0);
      expect(r.loaded).toContain('cli-bundle/main.js');
      const twice = r.loaded.filter((m) => !m.startsWith('cli-bundle/') && inBundle.has(m));
      expect(twice, args.join(' ')).toEqual([]);
    }
  });

  it("opens the index with better-sqlite3's JavaScript as the one file the build made of it", () => {
    const script = `
      import { createRequire } from 'node:module';
      const { sqliteModule } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'sqlite-module.js')).href)});
      const { Database, options } = sqliteModule();
      const one = new Database(':memory:', options).prepare('SELECT 1 AS one').get().one;
      console.log(JSON.stringify({ one, files: Object.keys(createRequire(import.meta.url).cache) }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const { one, files } = JSON.parse(r.stdout) as { one: number; files: string[] };
    expect(one).toBe(1);
    const sqlite = files.filter((f) => /better-sqlite3|better_sqlite3|[\\/]bindings[\\/]/.test(f));
    expect(sqlite.map((f) => f.replace(/.*[\\/]/, ''))).toEqual([
      expect.stringMatching(/^better-sqlite3-\d+\.\d+\.\d+\.cjs$/),
      'better_sqlite3.node',
    ]);
    expect(sqlite[0]).toBe(join(BUNDLE, sqlite[0]!.replace(/.*[\\/]/, '')));
  });

  it("answers a warm one-shot from the warm entry's chunk alone, and hands a declined one to the command line", () => {
    const inBundle = held();
    expect(inBundle).toContain('warm-answer.js');
    expect(inBundle).toContain('warm-list.js');
    // The first run builds the index and writes the warm document; the next ones are answered from it.
    const first = run(CLI, ['--json'], home.env);
    expect(first.code, first.err).toBe(0);
    expect(first.loaded).toContain('cli-bundle/main.js');
    for (const args of [['--json'], ['--list']]) {
      const r = run(CLI, args, home.env);
      expect(r.code, r.err).toBe(0);
      const code = r.loaded.map((m) => m.replace(/-[\w-]{8}\.js$/, '-#.js'));
      expect(code, args.join(' ')).toEqual(['cli.js', 'cli-bundle/warm.js', 'cli-bundle/warm-#.js']);
    }
    const json = run(CLI, ['--json'], home.env);
    expect(JSON.parse(json.out)).toEqual({
      ...JSON.parse(first.out),
      generatedAt: JSON.parse(json.out).generatedAt,
    });
  });

  it('answers as the modules answer in a tree built without it', () => {
    // A copy of the build without the bundle: a plain `tsc` makes one like it.
    const tree = join(home.dir, 'tree');
    cpSync(DIST, join(tree, 'dist'), { recursive: true, filter: (src) => src !== BUNDLE });
    cpSync(join(DIST, '..', 'package.json'), join(tree, 'package.json'));
    symlinkSync(join(DIST, '..', 'node_modules'), join(tree, 'node_modules'));
    const plain = join(tree, 'dist', 'cli.js');
    const args = ['--list', '--plan', 'retail'];
    const bundled = run(CLI, args, home.env);
    const modules = run(plain, args, home.env);
    expect(modules.code, modules.err).toBe(0);
    expect(modules.loaded).toContain('views/cli/main.js');
    expect(modules.loaded.filter((m) => m.startsWith('cli-bundle/'))).toEqual([]);
    expect(modules.out).toBe(bundled.out);
    expect(modules.out).toContain('1 session');
  });

  it('starts the scan worker from its one file, which reads a transcript as the modules do', async () => {
    const worker = join(DIST, 'index', 'worker-bundle.js');
    expect(readFileSync(worker, 'utf8')).toMatch(/^\/\/ dist\/index\/worker\.js$/m);
    const path = labTranscript('claude', 'call');
    const st = statSync(path);
    const task: Task = {
      id: 7,
      file: { provider: 'claude', path, root: join(path, '..'), sessionHint: null, role: 'main', ...st },
      previous: null,
    };
    const read = async (url: string): Promise<Reply[]> => {
      const w = new Worker(url);
      try {
        return await new Promise<Reply[]>((resolve, reject) => {
          w.once('message', resolve);
          w.once('error', reject);
          w.postMessage([task]);
        });
      } finally {
        await w.terminate();
      }
    };
    const bundled = await read(worker);
    expect(bundled[0]).toMatchObject({ id: 7, ok: true });
    expect(bundled).toEqual(await read(join(DIST, 'index', 'worker.js')));
  });
});
