/**
 * A title is redacted once, when a build stores it; what the rules were is part of the build's key.
 * After an upgrade of secretlint's rules (and the build that follows it, which records their
 * versions), a session kept from before is titled again by the new rules: a secret only they find
 * is hidden at once, not when its transcript next changes. With the same versions, what was kept is
 * answered as it is.
 *
 * The built CLI runs from a copy of `dist/` whose `node_modules` is the project's, but for the preset:
 * first the installed one, then a stand-in release of it, which re-exports the installed rules and
 * adds one that finds a made-up token (no released rule can be installed that finds a new kind of
 * secret on cue). The stand-in's package.json names its rules as the real preset's does.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionDocument } from '../src/model/document.js';
import { PRESET } from '../src/secrets/rules.js';
import { FakeHome, jsonl, REPO, tempDir } from '../src/test-support/corpus.js';

/** Longer than any of these runs takes, shorter than the test timeout: a hang shows as a failure. */
const HANG_MS = 30_000;

/** A token no released rule finds; the stand-in release's new rule does. */
const TOKEN = 'zq-canary-0123456789abcdef01234567';
const TOKEN_RULE = /zq-canary-[0-9a-f]{24}/g;

const MODULES = realpathSync(join(REPO, 'node_modules'));
const INSTALLED = join(MODULES, ...PRESET.split('/'));
const installedPackage = JSON.parse(readFileSync(join(INSTALLED, 'package.json'), 'utf8')) as {
  version: string;
  devDependencies: Record<string, string>;
};

let home: FakeHome;
let tree: ReturnType<typeof tempDir>;
beforeEach(() => {
  home = new FakeHome();
  tree = tempDir('cctop-tree-');
  // The built CLI as the build left it (times kept: the recorded versions are trusted only while no
  // compiled module is newer), with the scripts a build runs after the compiler.
  cpSync(join(REPO, 'dist'), join(tree.dir, 'dist'), { recursive: true, preserveTimestamps: true });
  cpSync(join(REPO, 'package.json'), join(tree.dir, 'package.json'));
  cpSync(join(REPO, 'scripts'), join(tree.dir, 'scripts'), { recursive: true });
  // The project's packages, every secretlint package but the preset linked as it is.
  const modules = join(tree.dir, 'node_modules');
  mkdirSync(join(modules, '@secretlint'), { recursive: true });
  for (const name of readdirSync(MODULES)) {
    if (name !== '@secretlint') symlinkSync(join(MODULES, name), join(modules, name));
  }
  for (const name of readdirSync(join(MODULES, '@secretlint'))) {
    symlinkSync(join(MODULES, '@secretlint', name), join(modules, '@secretlint', name));
  }
});
afterEach(() => {
  home.cleanup();
  tree.cleanup();
});

const presetDir = () => join(tree.dir, 'node_modules', ...PRESET.split('/'));

/**
 * Put a release of the preset in the tree, as an upgrade does, and run the build's steps that record
 * the code's versions (as `npm install`, through `prepare`, does after it). The
 * release is the installed rules and one more that finds `TOKEN`; its package.json says `version`,
 * and names the new rule among those it bundles when `listed`.
 */
function release(version: string, listed: boolean): void {
  rmSync(presetDir(), { recursive: true, force: true });
  mkdirSync(join(presetDir(), 'module'), { recursive: true });
  const devDependencies = { ...installedPackage.devDependencies };
  if (listed) devDependencies['@secretlint/secretlint-rule-zq-canary'] = version;
  writeFileSync(
    join(presetDir(), 'package.json'),
    JSON.stringify({
      name: PRESET,
      version,
      type: 'module',
      exports: { '.': { import: './module/index.js', default: './module/index.js' } },
      main: './module/index.js',
      devDependencies,
    }),
  );
  const installed = pathToFileURL(join(INSTALLED, 'module', 'index.js')).href;
  writeFileSync(
    join(presetDir(), 'module', 'index.js'),
    [
      `import { creator as installed } from ${JSON.stringify(installed)};`,
      'const zq = {',
      "  meta: { id: '@secretlint/secretlint-rule-zq-canary' },",
      '  create(context) {',
      '    return {',
      '      file(source) {',
      `        for (const m of source.content.matchAll(${TOKEN_RULE})) {`,
      "          context.report({ message: { messageId: 'ZQ' }, range: [m.index, m.index + m[0].length] });",
      '        }',
      '      },',
      '    };',
      '  },',
      '};',
      'export const creator = { ...installed, rules: [...installed.rules, zq] };',
      '',
    ].join('\n'),
  );
  // The build's steps after the compiler that the versions reach: recorded, then bundled with the
  // command line (the bundle holds them, so that a run reads no other module to learn them).
  for (const script of ['code-versions.mjs', 'cli-bundle.mjs']) {
    const built = spawnSync(process.execPath, [join(tree.dir, 'scripts', script)], {
      encoding: 'utf8',
      timeout: HANG_MS,
    });
    expect(built.stderr).toBe('');
    expect(built.status).toBe(0);
  }
}

/** The title of the one session, as `cctop --json` of the tree prints it. */
function title(...args: string[]): string | null {
  const r = spawnSync(process.execPath, [join(tree.dir, 'dist', 'cli.js'), '--json', ...args], {
    env: { PATH: process.env.PATH ?? '', ...home.env },
    encoding: 'utf8',
    timeout: HANG_MS,
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const sessions = (JSON.parse(r.stdout) as SessionDocument).sessions;
  expect(sessions).toHaveLength(1);
  return sessions[0]!.title;
}

/** Remove the warm snapshots and document beside the index, so the next answer comes from the index's kept build. */
const dropWarm = () => {
  const cache = home.env.CCTOP_CACHE_DIR!;
  for (const n of readdirSync(cache)) if (n.startsWith('warm-')) rmSync(join(cache, n), { force: true });
};

const PROMPT = `deploy with ${TOKEN} please`;
const MASKED = 'deploy with zq-c…[redacted: zq-canary] please';

describe('an upgrade of the secret-redaction rules', () => {
  beforeEach(() => {
    home.write(
      home.claudeFile('-w', 'a.jsonl'),
      jsonl({
        type: 'user',
        sessionId: 'a',
        cwd: '/w',
        uuid: 'u-1',
        timestamp: '2026-11-29T10:00:00Z',
        message: { role: 'user', content: PROMPT },
      }),
      Date.parse('2026-11-29T10:01:00Z'),
    );
  });

  it('titles a kept session again by the new rules: a secret only they find is hidden at once', () => {
    expect(title()).toBe(PROMPT);
    expect(title()).toBe(PROMPT);

    release('99.0.0', true);
    expect(title()).toBe(MASKED);
    expect(title()).toBe(MASKED);
    expect(title('--no-cache')).toBe(MASKED);
  });

  it('with the same versions, the kept build and its warm answer are used as they are', () => {
    expect(title()).toBe(PROMPT);
    // Rules that changed under the same versions (no release does that): only a build that did not
    // reuse what was kept would find the token.
    release(installedPackage.version, false);
    expect(title()).toBe(PROMPT);
    dropWarm();
    expect(title()).toBe(PROMPT);
    // A cold read does use the rules as they are now.
    expect(title('--no-cache')).toBe(MASKED);
  });
});
