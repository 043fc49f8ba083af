/**
 * `cctop quota` end to end, through the built `dist/cli.js`: one home holds Claude Code's cached quota
 * (`.claude.json`, as 2.1.328 keeps it), a fresher figure the status line received on stdin, a Codex
 * rollout whose `token_count` carries `rate_limits` (as 0.5x–0.169 write them), and Claude requests
 * inside the 5-hour window; the quota shows the freshest figure per window, labels each with its
 * source, marks the reset one stale, and paces the window from the requests' tokens.
 */
import { execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuotaFigure, QuotaPace } from '../src/model/quota.js';
import { CLI, ended, runCli } from '../src/test-support/cli-run.js';
import { THREAD } from '../src/test-support/codex-thread.js';
import { FakeHome } from '../src/test-support/corpus.js';
import { spendSession } from '../src/test-support/spend-history.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const ACCOUNT = '1a2b3c4d-0000-4000-8000-000000000001';
const SESSION = 'c0000000-0000-4000-8000-0000000000a1';

interface QuotaDoc {
  quota: QuotaFigure[];
  pace: QuotaPace[];
  problems: string[];
}

const home = new FakeHome();
const now = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const fiveHourReset = now + 2 * HOUR;

beforeAll(async () => {
  // Claude Code's own cache, fetched five minutes ago.
  home.write(
    join(home.dir, '.claude.json'),
    JSON.stringify({
      numStartups: 12,
      oauthAccount: { accountUuid: ACCOUNT },
      cachedUsageUtilization: {
        fetchedAtMs: now - 5 * MIN,
        accountUuid: ACCOUNT,
        utilization: {
          five_hour: { utilization: 40, resets_at: iso(fiveHourReset) },
          seven_day: { utilization: 10, resets_at: iso(now + 3 * 24 * HOUR) },
          seven_day_opus: null,
          seven_day_sonnet: null,
          extra_usage: null,
          limits: [],
        },
      },
    }),
  );
  // Two requests inside the 5-hour window (it began three hours ago), one before it.
  spendSession(home, SESSION, [
    [iso(now - 6 * HOUR), 70_000],
    [iso(now - 2 * HOUR), 30_000],
    [iso(now - 20 * MIN), 20_000],
  ]);
  // A Codex rollout whose newest snapshot says 85% of a 5-hour window that reset ten minutes ago.
  const wrote = now - 10 * MIN - 30_000;
  const rateLimits = {
    limit_id: 'codex',
    plan_type: 'plus',
    primary: { used_percent: 85, window_minutes: 300, resets_at: Math.round((now - 10 * MIN) / 1000) },
    secondary: {
      used_percent: 30,
      window_minutes: 10080,
      resets_at: Math.round((now + 2 * 24 * HOUR) / 1000),
    },
    credits: null,
  };
  home.write(
    home.codexFile(`rollout-2026-12-07T10-00-00-${THREAD}.jsonl`, '2026/12/07'),
    [
      {
        timestamp: iso(wrote - MIN),
        type: 'session_meta',
        payload: { id: THREAD, cwd: '/w/app', cli_version: '0.169.0' },
      },
      {
        timestamp: iso(wrote),
        type: 'event_msg',
        payload: {
          type: 'token_count',
          info: {
            total_token_usage: {
              input_tokens: 100,
              cached_input_tokens: 0,
              output_tokens: 10,
              reasoning_output_tokens: 0,
              total_tokens: 110,
            },
            last_token_usage: {
              input_tokens: 100,
              cached_input_tokens: 0,
              output_tokens: 10,
              reasoning_output_tokens: 0,
              total_tokens: 110,
            },
            model_context_window: 258400,
          },
          rate_limits: rateLimits,
        },
      },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n')
      .concat('\n'),
  );
  // The status line, a minute ago: Claude Code sent 42% of the same 5-hour window.
  const line = spawn(process.execPath, [CLI, 'statusline'], { env: home.env });
  line.stdin.end(
    JSON.stringify({
      session_id: SESSION,
      model: { id: 'claude-sonnet-4-5', display_name: 'Sonnet 4.5' },
      rate_limits: { five_hour: { used_percentage: 42, resets_at: Math.round(fiveHourReset / 1000) } },
    }),
  );
  expect((await ended(line)).code).toBe(0);
});
afterAll(home.cleanup);

const quota = async (): Promise<QuotaDoc> => {
  const r = await runCli(['quota', '--json'], home.env);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as QuotaDoc;
};

describe('cctop quota', () => {
  it("the status line's fresher figure wins the 5-hour window; Claude Code's cache gives the week", async () => {
    const doc = await quota();
    const claude = doc.quota.filter((f) => f.harness === 'claude');
    expect(claude.map((f) => [f.window, f.usedPercent, f.source, f.account, f.stale])).toEqual([
      ['5h', 42, 'statusline', ACCOUNT, false],
      ['7d', 10, 'agent-cache', ACCOUNT, false],
    ]);
    expect(claude[0]!.resetsAt).toBe(new Date(Math.round(fiveHourReset / 1000) * 1000).toISOString());
  });

  it("Codex's newest rollout snapshot gives its windows, and the one that has reset is stale", async () => {
    const codex = (await quota()).quota.filter((f) => f.harness === 'codex');
    expect(codex.map((f) => [f.window, f.usedPercent, f.source, f.plan, f.stale])).toEqual([
      ['5h', 85, 'rollout', 'plus', true],
      ['7d', 30, 'rollout', 'plus', false],
    ]);
  });

  it("the pace counts only the requests inside the window, and none for Codex's stale one", async () => {
    const { pace } = await quota();
    const five = pace.find((p) => p.harness === 'claude' && p.window === '5h');
    expect(five?.windowTokens).toBe(50_000);
    expect(pace.some((p) => p.harness === 'codex' && p.window === '5h')).toBe(false);
  });

  it('the text prints a stale figure as stale, never as its old percentage', async () => {
    const r = await runCli(['quota'], home.env);
    expect(r.code).toBe(0);
    const row = r.out.split('\n').find((l) => l.startsWith('codex') && l.includes(' 5h '));
    expect(row).toBe('codex     plus        5h          stale      passed  rollout          10m');
  });

  it('--provider codex leaves Claude out', async () => {
    const r = await runCli(['quota', '--json', '--provider', 'codex'], home.env);
    const doc = JSON.parse(r.out) as QuotaDoc;
    expect(new Set(doc.quota.map((f) => f.harness))).toEqual(new Set(['codex']));
  });
});

describe('the quota beside the sessions', () => {
  it("--list names each harness's quota in its heading, stale as stale", async () => {
    const r = await runCli(['--list'], { ...home.env, COLUMNS: '120' });
    expect(r.code, r.err).toBe(0);
    const headings = r.out.split('\n').filter((l) => / — \d+ sessions? · /.test(l));
    expect(headings).toEqual([
      'Claude Code — 1 session · $1.80 est. · quota 5h 42% · 7d 10%',
      'Codex — 1 session · no price · quota 5h stale · 7d 30%',
    ]);
    // Nothing changed: the next --list is printed from the warm snapshot, Codex's quota with it.
    const warm = await runCli(['--list'], { ...home.env, COLUMNS: '120' });
    expect(warm.out).toBe(r.out);
  });
});

describe('a hostile .claude.json', () => {
  it('a FIFO in its place does not block cctop quota: the source is said to be unreadable', async () => {
    const other = new FakeHome();
    try {
      execFileSync('mkfifo', [join(other.dir, '.claude.json')]);
      const r = await runCli(['quota'], other.env);
      expect(r.code).toBe(0);
      expect(r.out.trimEnd().split('\n').at(-1)).toBe(
        `cctop: ${join(other.dir, '.claude.json')} is not a regular file: its quota is not read`,
      );
    } finally {
      rmSync(join(other.dir, '.claude.json'), { force: true });
      other.cleanup();
    }
  });
});
