/**
 * `cctop statusline --codex`: Claude's status line parts for the newest Codex session in a
 * directory, over a rollout Codex 0.169.0 wrote in the lab (its directory moved to this test's).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, REPO } from '../src/test-support/corpus.js';
import { labFile } from '../src/test-support/lines.js';

const CLI = join(REPO, 'dist', 'cli.js');

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

const line = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, 'statusline', '--codex', ...args], {
    env: { PATH: process.env.PATH ?? '', ...home.env, NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: 30_000,
  });

function codexSessionIn(dir: string): void {
  const recorded = labFile('codex', 'call');
  const text = readFileSync(recorded, 'utf8').replace(
    /\/tmp\/cctop-lab-codex-[A-Za-z0-9]+\/call\/work/g,
    dir,
  );
  home.write(home.codexFile(basename(recorded), '2026/12/01'), text);
}

describe('cctop statusline --codex', () => {
  it("prints the model, the session's cost and its context for the Codex session in the directory", () => {
    const dir = join(home.dir, 'w');
    codexSessionIn(dir);
    const r = line('--cwd', dir, '--format', 'model,cost,context');
    expect(r.stdout).toBe('gpt-5-codex · $0.01 · ctx 4%\n');
    expect(r.status).toBe(0);
  });

  it('says there is no Codex session in a directory where none ran, and exits 0', () => {
    codexSessionIn(join(home.dir, 'w'));
    const r = line('--cwd', join(home.dir, 'elsewhere'));
    expect(r.stdout).toBe('cctop: no Codex session here\n');
    expect(r.status).toBe(0);
  });

  it('--cwd without --codex is a usage error', () => {
    const r = spawnSync(process.execPath, [CLI, 'statusline', '--cwd', '/w'], {
      env: { PATH: process.env.PATH ?? '', ...home.env, NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.stderr).toContain('--cwd is for cctop statusline --codex');
    expect(r.status).toBe(2);
  });
});
