import { execFileSync } from 'node:child_process';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test-support/corpus.js';
import { cachedQuota, claudeConfigFile, MAX_CLAUDE_JSON_BYTES, readClaudeQuota } from './quota.js';

const NOW = Date.parse('2026-12-07T12:00:00Z');
const ACCOUNT = '1a2b3c4d-0000-4000-8000-000000000001';

/**
 * `cachedUsageUtilization` as Claude Code 2.1.328 keeps it (the shape its bundle validates: each
 * window `{utilization, resets_at}`, utilization in percent, `extra_usage` and `limits` beside them).
 */
const cache = (over: Record<string, unknown> = {}) => ({
  fetchedAtMs: NOW - 90_000,
  accountUuid: ACCOUNT,
  utilization: {
    five_hour: { utilization: 37, resets_at: '2026-12-07T14:00:00.000000+00:00' },
    seven_day: { utilization: 12.5, resets_at: '2026-12-10T09:00:00+00:00' },
    seven_day_oauth_apps: null,
    seven_day_opus: null,
    seven_day_sonnet: { utilization: 3, resets_at: '2026-12-10T09:00:00+00:00' },
    extra_usage: {
      is_enabled: true,
      monthly_limit: 5000,
      used_credits: 1250,
      utilization: 25,
      currency: 'USD',
    },
    limits: [],
  },
  ...over,
});

const t = tempDir('cctop-claude-quota-');
afterAll(t.cleanup);

describe("Claude Code's cached quota", () => {
  it('each window reads with its reset time, the account and when Claude Code fetched it', () => {
    const read = cachedQuota(
      { oauthAccount: { accountUuid: ACCOUNT }, cachedUsageUtilization: cache() },
      NOW,
    );
    expect(read.kind).toBe('figures');
    if (read.kind !== 'figures') return;
    expect(read.figures.map((f) => [f.window, f.usedPercent, f.resetsAt, f.stale])).toEqual([
      ['5h', 37, '2026-12-07T14:00:00.000Z', false],
      ['7d', 12.5, '2026-12-10T09:00:00.000Z', false],
      ['7d-sonnet', 3, '2026-12-10T09:00:00.000Z', false],
      ['extra', 25, null, false],
    ]);
    expect(new Set(read.figures.map((f) => `${f.account} ${f.source} ${f.fetchedAt}`))).toEqual(
      new Set([`${ACCOUNT} agent-cache 2026-12-07T11:58:30.000Z`]),
    );
  });

  it('a window that has reset since Claude Code fetched it is stale', () => {
    const read = cachedQuota({ cachedUsageUtilization: cache() }, Date.parse('2026-12-07T15:00:00Z'));
    if (read.kind !== 'figures') throw new Error(read.kind);
    expect(read.figures.find((f) => f.window === '5h')?.stale).toBe(true);
    expect(read.figures.find((f) => f.window === '7d')?.stale).toBe(false);
  });

  it('a cache of another account than the one logged in is not read (Claude Code drops it too)', () => {
    const read = cachedQuota(
      {
        oauthAccount: { accountUuid: 'ffffffff-0000-4000-8000-000000000002' },
        cachedUsageUtilization: cache(),
      },
      NOW,
    );
    expect(read.kind).toBe('none');
  });

  it('a window Claude Code has no figure for reads as unknown, never as 0%', () => {
    const u = { five_hour: { utilization: null, resets_at: null } };
    const read = cachedQuota({ cachedUsageUtilization: cache({ utilization: u }) }, NOW);
    if (read.kind !== 'figures') throw new Error(read.kind);
    expect(read.figures).toMatchObject([{ window: '5h', usedPercent: null, resetsAt: null }]);
  });

  it('an API-key login (no cache) and a cache of the wrong shape read as none', () => {
    expect(cachedQuota({ numStartups: 3 }, NOW).kind).toBe('none');
    expect(
      cachedQuota({ cachedUsageUtilization: { fetchedAtMs: 'yesterday', utilization: {} } }, NOW).kind,
    ).toBe('none');
    expect(cachedQuota('not an object', NOW).kind).toBe('none');
  });

  it('the file is .claude.json in the home, or in $CLAUDE_CONFIG_DIR when set', () => {
    expect(claudeConfigFile({ HOME: '/home/u' })).toBe('/home/u/.claude.json');
    expect(claudeConfigFile({ HOME: '/home/u', CLAUDE_CONFIG_DIR: '/cfg/claude' })).toBe(
      '/cfg/claude/.claude.json',
    );
  });

  it('a file on disk reads the same as its parsed text', () => {
    const path = join(t.dir, 'plain.json');
    writeFileSync(path, JSON.stringify({ cachedUsageUtilization: cache() }));
    const read = readClaudeQuota(path, NOW);
    expect(read.kind === 'figures' && read.figures.length).toBe(4);
    expect(readClaudeQuota(join(t.dir, 'missing.json'), NOW).kind).toBe('absent');
  });
});

describe('hostile files at the path', () => {
  it('a FIFO is refused at once, never waited on', () => {
    const fifo = join(t.dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    expect(readClaudeQuota(fifo, NOW)).toEqual({ kind: 'refused', why: 'not a regular file' });
  });

  it('a directory is refused', () => {
    const dir = join(t.dir, 'dir.json');
    mkdirSync(dir);
    expect(readClaudeQuota(dir, NOW).kind).toBe('refused');
  });

  it('a file past the bound is not read', () => {
    const big = join(t.dir, 'big.json');
    writeFileSync(big, '');
    // Sparse: the size is past the bound without writing 64 MiB.
    truncateSync(big, MAX_CLAUDE_JSON_BYTES + 1);
    expect(readClaudeQuota(big, NOW)).toEqual({ kind: 'refused', why: 'larger than 64 MiB' });
  });

  it('a value nested past the depth bound reads as none, not a crash', () => {
    const deep = join(t.dir, 'deep.json');
    writeFileSync(deep, `{"cachedUsageUtilization":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expect(readClaudeQuota(deep, NOW).kind).toBe('none');
  });
});

describe('finding the cache in a large file', () => {
  it('a prompt in the history that quotes the key is not taken for the cache', () => {
    const path = join(t.dir, 'quoted.json');
    const quoted = `{"cachedUsageUtilization": {"fetchedAtMs": 1, "utilization": {"five_hour": {"utilization": 99}}}}`;
    writeFileSync(
      path,
      JSON.stringify({
        projects: { '/w': { history: [{ display: quoted }] } },
        cachedUsageUtilization: cache(),
      }),
    );
    const read = readClaudeQuota(path, NOW);
    if (read.kind !== 'figures') throw new Error(read.kind);
    expect(read.figures.find((f) => f.window === '5h')?.usedPercent).toBe(37);
  });

  it('the cache is read wherever it sits among the members, spaced as any writer spaces it', () => {
    const path = join(t.dir, 'spaced.json');
    writeFileSync(
      path,
      JSON.stringify(
        { numStartups: 4, oauthAccount: { accountUuid: ACCOUNT }, cachedUsageUtilization: cache() },
        null,
        2,
      ),
    );
    expect(readClaudeQuota(path, NOW).kind).toBe('figures');
  });

  it('a cache object that never closes reads as none', () => {
    const path = join(t.dir, 'unclosed.json');
    writeFileSync(path, `{"cachedUsageUtilization": {"fetchedAtMs": 1, "utilization": {"five_hour": {`);
    expect(readClaudeQuota(path, NOW).kind).toBe('none');
  });

  it('the other account’s cache is still refused when the login is written after it', () => {
    const path = join(t.dir, 'order.json');
    writeFileSync(
      path,
      JSON.stringify({
        cachedUsageUtilization: cache(),
        oauthAccount: { accountUuid: 'ffffffff-0000-4000-8000-000000000002' },
      }),
    );
    expect(readClaudeQuota(path, NOW).kind).toBe('none');
  });
});
