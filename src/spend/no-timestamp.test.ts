/**
 * A request whose line has no timestamp (and no line before it has one) has no time: it counts in its
 * session, in no day, hour or block, and `cctop doctor` counts it. Before, it was billed on
 * 1970-01-01. The records are Claude Code 2.1.328 assistant responses (trimmed; see
 * `test-support/spend-history.ts`), the first with its `timestamp` removed.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, jsonl, REPO } from '../test-support/corpus.js';
import { spendResponse } from '../test-support/spend-history.js';

const CLI = join(REPO, 'dist', 'cli.js');

let home: FakeHome;
let path: string;
beforeEach(() => {
  home = new FakeHome();
  const { timestamp: _dropped, ...untimed } = spendResponse('s1', 0, '2026-11-02T09:00:00Z', 100_000);
  path = home.write(
    home.claudeFile('-w-app', 's1.jsonl'),
    jsonl(untimed, spendResponse('s1', 1, '2026-11-02T09:10:00Z', 50_000)),
    Date.parse('2026-11-10T00:00:00Z'),
  );
});
afterEach(() => home.cleanup());

const run = (args: string[]) => {
  const env = { PATH: process.env.PATH ?? '', ...home.env, XDG_CONFIG_HOME: join(home.dir, '.config') };
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe('a request without a timestamp', () => {
  it('is in no period of daily, and its session still counts it', () => {
    const daily = JSON.parse(run(['daily', '--json']).out);
    expect(
      daily.periods.map((p: { period: string; totalTokens: number }) => [p.period, p.totalTokens]),
    ).toEqual([['2026-11-02', 50_000]]);
    const session = JSON.parse(run(['--json']).out).sessions[0];
    expect([session.requests, session.tokens.output]).toEqual([2, 150_000]);
  });

  it('is counted by doctor, which still exits 0', () => {
    const r = run(['doctor']);
    expect(r.code).toBe(0);
    const at = r.out.split('\n').findIndex((l) => l.includes('Requests without a timestamp'));
    expect(r.out.split('\n').slice(at, at + 2)).toEqual([
      '  Requests without a timestamp (in their session, in no day or block) (1)',
      `    ${path.replace(home.dir, '~')}: 1 request without a timestamp: counted in the session, left out of daily, weekly, monthly and blocks`,
    ]);
  });
});
