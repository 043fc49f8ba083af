import { describe, expect, it } from 'vitest';
import type { QuotaFigure } from '../../model/quota.js';
import type { QuotaReport } from '../../quota/gather.js';
import { quotaJson, quotaText } from './quota.js';

const NOW = Date.parse('2026-12-07T12:00:00Z');
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

const fig = (over: Partial<QuotaFigure>): QuotaFigure => ({
  harness: 'claude',
  account: '1a2b3c4d-0000-4000-8000-000000000001',
  plan: null,
  window: '5h',
  usedPercent: 37,
  resetsAt: iso(NOW + 134 * MIN),
  source: 'statusline',
  fetchedAt: iso(NOW - 12_000),
  stale: false,
  ...over,
});

const REPORT: QuotaReport = {
  quota: [
    fig({}),
    fig({
      window: '7d',
      usedPercent: 12.4,
      resetsAt: iso(NOW + 74 * 60 * MIN),
      source: 'agent-cache',
      fetchedAt: iso(NOW - 3 * MIN),
    }),
    fig({
      window: 'extra',
      usedPercent: null,
      resetsAt: null,
      source: 'agent-cache',
      fetchedAt: iso(NOW - 3 * MIN),
    }),
    fig({
      harness: 'codex',
      account: null,
      plan: 'pro',
      usedPercent: 85,
      resetsAt: iso(NOW - 20 * MIN),
      source: 'rollout',
      fetchedAt: iso(NOW - 6 * 60 * MIN),
      stale: true,
    }),
    fig({
      harness: 'codex',
      account: null,
      plan: 'pro',
      window: '7d',
      usedPercent: 12,
      resetsAt: iso(NOW + 4 * 24 * 60 * MIN),
      source: 'rollout',
      fetchedAt: iso(NOW - 6 * 60 * MIN),
    }),
  ],
  pace: [
    {
      harness: 'claude',
      window: '5h',
      windowTokens: 1_200_000,
      burnPerHour: 240_000,
      runsOutAt: iso(NOW + 100 * MIN),
      beforeReset: true,
      fastest: { provider: 'claude', id: '3f2a1b2c-9999-4000-8000-000000000000', share: 0.62 },
    },
    {
      harness: 'claude',
      window: '7d',
      windowTokens: 4_500_000,
      burnPerHour: 100_000,
      runsOutAt: null,
      beforeReset: false,
      fastest: null,
    },
    {
      harness: 'codex',
      window: '7d',
      windowTokens: 0,
      burnPerHour: null,
      runsOutAt: null,
      beforeReset: null,
      fastest: null,
    },
  ],
  problems: [],
};

describe('cctop quota, as text', () => {
  it('prints each window with its source and age, stale as stale, unknown as ─, and the pace under it', () => {
    expect(quotaText(REPORT, NOW)).toBe(
      [
        'HARNESS   ACCOUNT     WINDOW       USED   RESETS IN  SOURCE           AGE',
        'claude    1a2b3c4d    5h            37%        2h14  statusline       12s',
        "claude    1a2b3c4d    7d            12%       74h00  agent's cache     3m",
        "claude    1a2b3c4d    extra           ─           ─  agent's cache     3m",
        'codex     pro         5h          stale      passed  rollout           6h',
        'codex     pro         7d            12%       96h00  rollout           6h',
        '',
        "Pace (cctop's estimate, from this machine's tokens in each window):",
        "  claude 5h        1.2M tokens in the window, 240k/h today: runs out in 1h40, before it resets; fastest running session claude 3f2a1b2c (62% of the window's tokens)",
        '  claude 7d        4.5M tokens in the window, 100k/h today: lasts until it resets',
        '  codex 7d         0 tokens in the window, no burn today: when it runs out cannot be told',
      ].join('\n'),
    );
  });

  it('says where the figures come from when there are none', () => {
    expect(quotaText({ quota: [], pace: [], problems: [] }, NOW)).toBe(
      `No quota figures on this machine. Claude Code keeps its account's in ~/.claude.json once it has
asked (a subscription login: run /usage once), and sends them to cctop's status line (cctop
statusline install); Codex writes them in its rollouts on a ChatGPT login.`,
    );
  });

  it('a source that could not be read is said, and control bytes in it never reach the terminal', () => {
    const text = quotaText(
      {
        quota: [],
        pace: [],
        problems: ['/h/\u001b[2J.claude.json is not a regular file: its quota is not read'],
      },
      NOW,
    );
    expect(text.split('\n').at(-1)).toBe(
      'cctop: /h/\ufffd.claude.json is not a regular file: its quota is not read',
    );
  });

  it('an account or plan name from a file cannot write control sequences', () => {
    const text = quotaText(
      { quota: [fig({ account: null, plan: '\u001b]0;x\u0007' })], pace: [], problems: [] },
      NOW,
    );
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });
});

describe('cctop quota --json', () => {
  it('lists every figure with its harness, account, window, used, reset, source, age and staleness', () => {
    const doc = JSON.parse(quotaJson(REPORT, NOW)) as {
      version: number;
      generatedAt: string;
      quota: unknown[];
      pace: unknown[];
    };
    expect(doc.version).toBe(1);
    expect(doc.generatedAt).toBe(iso(NOW));
    expect(doc.quota[3]).toEqual({
      harness: 'codex',
      account: null,
      plan: 'pro',
      window: '5h',
      usedPercent: 85,
      resetsAt: iso(NOW - 20 * MIN),
      source: 'rollout',
      fetchedAt: iso(NOW - 6 * 60 * MIN),
      stale: true,
    });
    expect(doc.pace).toEqual(REPORT.pace);
  });
});
