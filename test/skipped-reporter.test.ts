/**
 * The skip reporter as `npm test` meets it: vitest run on a small suite of its own (in a temporary
 * folder under `.cache/`, so it resolves this repository's vitest), once with every skip saying why
 * and once with one that does not. The run ends with the skips grouped by reason, and fails for the
 * silent one.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../src/test-support/corpus.js';

const dir = (() => {
  mkdirSync(join(REPO, '.cache'), { recursive: true });
  return mkdtempSync(join(REPO, '.cache', 'skip-reporter-'));
})();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Run vitest on `suite` (a test file's text) with the reporter; its exit code and what it printed. */
function vitestOn(suite: string): { code: number | null; out: string } {
  writeFileSync(join(dir, 'suite.test.ts'), suite);
  writeFileSync(
    join(dir, 'vitest.config.mjs'),
    `export default { test: { include: ['suite.test.ts'], reporters: ['default', ${JSON.stringify(join(REPO, 'test', 'skipped-reporter.ts'))}] } };\n`,
  );
  const r = spawnSync(
    process.execPath,
    [
      join(REPO, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--root',
      dir,
      '--config',
      'vitest.config.mjs',
    ],
    { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', CI: '1' }, timeout: 60_000 },
  );
  return { code: r.status, out: r.stdout + r.stderr };
}

describe('the skip reporter', () => {
  it('lists skips by the reason their suite or test gives, and the run passes', () => {
    const r = vitestOn(`import { describe, it } from 'vitest';
describe.skipIf(true)('a suite (skipped: tmux is not installed; apt-get install tmux)', () => {
  it('one', () => {});
  describe('nested', () => { it('two', () => {}); });
});
describe.runIf(false)('another (skipped: tmux is not installed; apt-get install tmux)', () => { it('three', () => {}); });
it.skipIf(true)('a test (skipped: no PostgreSQL; apt-get install postgresql)', () => {});
it('runs', () => {});
`);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(
      'skipped: 4 test(s)\n     3 × tmux is not installed; apt-get install tmux\n     1 × no PostgreSQL; apt-get install postgresql\n',
    );
    expect(r.out).not.toContain('without saying why');
  });

  it('fails the run for a skip that gives no reason, naming it, describe.runIf included', () => {
    const r = vitestOn(`import { describe, it } from 'vitest';
describe.runIf(false)('the page in Chromium', () => { it('draws', () => {}); });
it('runs', () => {});
`);
    expect(r.code).toBe(1);
    expect(r.out).toContain('1 test(s) skipped without saying why');
    expect(r.out).toContain('suite.test.ts > the page in Chromium > draws');
  });
});
