/**
 * What loading the scan costs: a run answering from the index (no file changed) reads no
 * transcript, so importing discovery, the session build and the refresh must not load a parser.
 * Checked on the build `npm test` makes first, in a child process so that nothing is loaded already.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist');

/** A loader hook that prints every module loaded, as a `MOD <url>` line on stderr. */
const HOOKS = `export async function load(url, context, next) {
  if (url.startsWith('file:')) process._rawDebug('MOD ' + url);
  return next(url, context);
}`;
const REGISTER = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

/** The providers' modules that read transcripts and conversations: a warm run has no use for any of them. */
const READERS =
  /^providers\/(.+\/)?(bytes|parser|parse|record|conversation|conversation-util|skim|jsonl|read|index)\.js$/;

/** Record readers discovery itself needs: OpenCode's legacy session files and Windsurf's tab list. */
const DISCOVERY_READS = ['providers/opencode/record.js', 'providers/windsurf/record.js'];

/** The modules of `dist` a script loads, in order, as paths under `dist/`. */
function loadedBy(script: string): string[] {
  const run = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, '--input-type=module', '-e', script],
    { encoding: 'utf8' },
  );
  expect(run.status, run.stderr).toBe(0);
  const dist = pathToFileURL(DIST).href;
  // Ours as paths under `dist/`, packages as their URLs.
  return run.stderr
    .split('\n')
    .filter((l) => l.startsWith('MOD '))
    .map((l) => (l.startsWith(`MOD ${dist}/`) ? l.slice(`MOD ${dist}/`.length) : l.slice('MOD '.length)));
}

describe('importing the warm snapshot', () => {
  it('loads no SQLite, no session build, no index and no transcript parser', () => {
    const loaded = loadedBy(
      `await import(${JSON.stringify(pathToFileURL(join(DIST, 'index', 'warm.js')).href)});`,
    );
    expect(loaded).toContain('providers/places.js');
    expect(loaded.filter((m) => m.includes('better-sqlite3'))).toEqual([]);
    const index = ['index/store.js', 'index/session-index.js', 'index/sessions.js', 'index/kept-store.js'];
    expect(
      loaded.filter((m) => index.includes(m) || (READERS.test(m) && !DISCOVERY_READS.includes(m))),
    ).toEqual([]);
  });
});

describe('importing the warm path', () => {
  it('loads discovery, the session build, the refresh and the kept sessions without loading a transcript parser', () => {
    const imports = ['scan', 'sessions', 'refresh', 'session-index', 'strategies', 'patch', 'kept-store']
      .map((m) => `await import(${JSON.stringify(pathToFileURL(join(DIST, 'index', `${m}.js`)).href)});`)
      .join(' ');
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        `data:text/javascript,${encodeURIComponent(REGISTER)}`,
        '--input-type=module',
        '-e',
        imports,
      ],
      { encoding: 'utf8' },
    );
    expect(run.status, run.stderr).toBe(0);
    const dist = pathToFileURL(DIST).href;
    const loaded = run.stderr
      .split('\n')
      .filter((l) => l.startsWith(`MOD ${dist}/`))
      .map((l) => l.slice(`MOD ${dist}/`.length));
    expect(loaded).toContain('providers/places.js');
    const readers = loaded.filter((m) => READERS.test(m) && !DISCOVERY_READS.includes(m));
    expect(readers).toEqual([]);
  });
});
