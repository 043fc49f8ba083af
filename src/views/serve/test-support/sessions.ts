/**
 * Session documents made up for the serve tests that need many sessions (thousands, more than the
 * corpus holds) with the size and shape of real ones: a Claude Code or Codex session of a working
 * day, with its hourly and daily spend, two models and a handful of tools. About 2 KB of JSON each,
 * as the sessions of a heavy user's history are (1.1 MB for 622 of them).
 */
import type { SessionDoc, SessionDocument } from '../../../model/document.js';
import { PROVIDERS, type ProviderId } from '../../../model/facts.js';
import { totalsOf } from '../../../model/totals.js';

/** Hours in `byHour` (two days) and days in `byDay` (a month), as the document keeps them. */
const HOURS = 48;
const DAYS = 30;
const HOUR_MS = 3_600_000;
/** The newest session's last activity; the others go back a minute each. */
export const NOW = Date.parse('2026-03-02T12:00:00Z');

const TOOLS = ['Bash', 'Read', 'Edit', 'Write', 'Grep', 'Glob', 'TodoWrite', 'WebFetch'];

/** Session `i`: active `i` minutes before `NOW`, so the sessions sort by `i`. */
export function syntheticSession(i: number): SessionDoc {
  const provider: ProviderId = PROVIDERS[i % PROVIDERS.length]!;
  const last = NOW - i * 60_000;
  const usd = Math.round(i * 7.3) / 100;
  const hourly = Array.from({ length: HOURS }, (_, h) => (h >= HOURS - 3 ? Math.round(usd * 33) / 100 : 0));
  const daily = Array.from({ length: DAYS }, (_, d) => (d === DAYS - 1 ? usd : 0));
  const byTool = Object.fromEntries(TOOLS.map((t, k) => [t, { calls: 3 + ((i + k) % 40), failed: k % 3 }]));
  const tokens = {
    input: 1200 + i,
    output: 30_000 + i,
    cacheRead: 2_400_000 + i,
    cacheWrite: 90_000,
    reasoning: null,
  };
  return {
    provider,
    id: `${String(i).padStart(8, '0')}-7d1c-4b8e-9a51-3f0e2c6d${String(i % 10_000).padStart(4, '0')}`,
    file: `/home/dev/.claude/projects/-home-dev-src-project-${i % 40}/${i}.jsonl`,
    deleted: false,
    subagentFiles: i % 3,
    project: `/home/dev/src/project-${i % 40}`,
    title: `Refactor the scanner so that warm starts stay fast (${i})`,
    branch: `feature/issue-${i % 97}`,
    model: 'claude-sonnet-4-5-20250929',
    models: ['claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001'],
    reasoningEffort: null,
    permissionMode: 'acceptEdits',
    permission: 'edits',
    startedAt: new Date(last - 2 * HOUR_MS).toISOString(),
    lastActiveAt: new Date(last).toISOString(),
    state: i === 0 ? 'working' : 'idle',
    stateDetail: null,
    stateSource: 'inferred',
    running: i === 0,
    process: null,
    pendingTool: null,
    inferred: null,
    tokens,
    requests: 120 + (i % 50),
    cost: {
      usd,
      source: 'estimated',
      included: false,
      unpriced: [],
      byModel: [
        { model: 'claude-sonnet-4-5-20250929', tokens, usd: Math.round(usd * 90) / 100, requests: 100 },
        {
          model: 'claude-haiku-4-5-20251001',
          tokens: { input: 300, output: 2000, cacheRead: 40_000, cacheWrite: 1000, reasoning: null },
          usd: Math.round(usd * 10) / 100,
          requests: 20 + (i % 50),
        },
      ],
      byHour: { start: new Date(NOW - (HOURS - 1) * HOUR_MS).toISOString(), usd: hourly },
      byDay: { start: '2026-02-01', usd: daily },
    },
    context: { used: 84_000 + i, window: 200_000, compactAt: 167_000 },
    tools: { calls: 200 + (i % 300), failed: 4, byTool },
    lines: { added: 420 + i, removed: 130 },
    compactions: 1,
    aborts: 0,
    rateLimits: null,
  };
}

/** A document of `count` sessions in document order, with its totals. */
export function syntheticDocument(count: number): SessionDocument {
  const sessions = Array.from({ length: count }, (_, i) => syntheticSession(i));
  return {
    version: 1,
    generatedAt: new Date(NOW).toISOString(),
    plan: 'retail',
    timeZone: 'UTC',
    sessions,
    problems: [],
    totals: totalsOf(sessions),
  };
}
