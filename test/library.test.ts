/**
 * The library entry point, used as a user's script uses it: `import { openIndex } from 'cctop'` in a
 * child Node process, resolved through the package's own `exports` (the built `dist/`), over a
 * history written here.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeResponse, FakeHome, REPO } from '../src/test-support/corpus.js';

describe("import { openIndex } from 'cctop'", () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  /** Run `script` as an ES module inside the package (so `cctop` resolves to this package). */
  function run(script: string): { status: number | null; out: string; err: string } {
    const path = join(REPO, `.library-test-${process.pid}.mjs`);
    writeFileSync(path, script);
    try {
      const r = spawnSync(process.execPath, [path], {
        encoding: 'utf8',
        env: { ...process.env, ...home.env },
      });
      return { status: r.status, out: r.stdout, err: r.stderr };
    } finally {
      rmSync(path, { force: true });
    }
  }

  it("lists today's sessions and their cost, as docs/library.md shows", () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 500, new Date().toISOString(), 1000));
    home.write(home.claudeFile('-w', 'old.jsonl'), claudeResponse('2', 9, '2020-01-01T00:00:00Z'));
    const r = run(`
      import { openIndex } from 'cctop';
      const midnight = new Date();
      midnight.setHours(0, 0, 0, 0);
      const index = openIndex({ since: midnight });
      const r = await index.refresh();
      console.log(JSON.stringify({ strategy: r.strategy, sessions: index.sessions().map((s) => [s.id, s.tokens.output, s.cost.usd > 0]), totals: index.totals().all }));
    `);
    expect(r.err).toBe('');
    const got = JSON.parse(r.out) as { strategy: string; sessions: unknown[]; totals: { sessions: number } };
    expect(got.strategy).toBe('built');
    expect(got.sessions).toEqual([['a', 500, true]]);
    expect(got.totals.sessions).toBe(1);
  });

  it('a second script peeks at what the first kept, reading no transcript', () => {
    home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-11-29T10:00:00Z'));
    expect(run(`import { openIndex } from 'cctop'; await openIndex().refresh();`).status).toBe(0);
    const r = run(`
      import { openIndex } from 'cctop';
      const index = openIndex();
      console.log(JSON.stringify([index.peek(), index.sessions().map((s) => s.id), index.discovery.files.length]));
    `);
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual([true, ['a'], 0]);
  });
});
