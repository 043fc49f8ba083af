/**
 * The live table's figures while the demo replays old records: what a row's data says must stay
 * true of a session that is plainly moving. A replayed record carries the moment it was written
 * (LAST reads 0s, not `4m`); a session whose tokens grow is not stalled, whatever its records' times;
 * a token total that falls (the replay starting over) restarts the rate instead of making it negative.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Config, defaultConfig } from '../config/index.js';
import type { SessionDoc, SessionDocument } from '../model/document.js';
import { LocalTime } from '../model/time.js';
import { totalsOf } from '../model/totals.js';
import { prepareDemo } from '../views/cli/demo.js';
import { startReplay } from '../views/tui/demo-replay.js';
import { AlertWatcher } from './alerts.js';
import { type Sample, updateRates } from './token-rates.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-12-07T06:00:00Z');

function session(over: Partial<SessionDoc>): SessionDoc {
  return {
    provider: 'claude',
    id: 's',
    file: '/h/s.jsonl',
    deleted: false,
    subagentFiles: 0,
    project: '/w',
    title: 'a task',
    branch: null,
    model: 'claude-sonnet-4-5-20250929',
    models: ['claude-sonnet-4-5-20250929'],
    reasoningEffort: null,
    permissionMode: 'default',
    permission: 'ask',
    startedAt: new Date(T0 - 60 * MINUTE).toISOString(),
    lastActiveAt: new Date(T0 - 30 * MINUTE).toISOString(),
    state: 'working',
    stateDetail: null,
    stateSource: 'inferred',
    running: true,
    process: null,
    pendingTool: null,
    inferred: null,
    tokens: { input: 10, output: 1000, cacheRead: 100_000, cacheWrite: 0, reasoning: null },
    requests: 1,
    cost: {
      usd: 1,
      source: 'estimated',
      included: false,
      unpriced: [],
      byModel: [],
      byHour: null,
      byDay: null,
    },
    context: { used: null, window: null, compactAt: null },
    tools: { calls: 0, failed: 0, byTool: {} },
    lines: { added: null, removed: null },
    compactions: 0,
    aborts: 0,
    rateLimits: null,
    ...over,
  };
}

const doc = (sessions: SessionDoc[], atMs: number): SessionDocument => ({
  version: 1,
  generatedAt: new Date(atMs).toISOString(),
  plan: 'retail',
  timeZone: 'UTC',
  sessions,
  problems: [],
  totals: totalsOf(sessions),
});

const STALL: Config = {
  ...defaultConfig(),
  alerts: { errorLoop: null, stallMinutes: 10, burnUsdPerHour: null, quotaPercent: null, secrets: false },
};

const withOutput = (output: number) =>
  session({ tokens: { input: 10, output, cacheRead: 100_000, cacheWrite: 0, reasoning: null } });

describe('the demo replay', () => {
  it('a replayed record carries the moment it was written, so a working row reads LAST 0s', () => {
    const home = prepareDemo(T0);
    // The replay takes the two newest transcripts, as the table shows them first.
    const newest = transcripts(home)
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
      .slice(0, 2);
    const at = T0 + 5 * MINUTE;
    const replay = startReplay(home, () => at);
    try {
      replay.step();
      for (const file of newest) {
        const last = readFileSync(file, 'utf8').trimEnd().split('\n').at(-1)!;
        expect((JSON.parse(last) as { timestamp: string }).timestamp).toBe(new Date(at).toISOString());
      }
    } finally {
      replay.stop();
    }
  });
});

function transcripts(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => join(dir, p))
    .filter((p) => p.endsWith('.jsonl') && !p.includes('/subagents/'));
}

describe('a stall on a session whose tokens grow', () => {
  it('does not fire while the tokens grow, though its newest record is 30 minutes old', () => {
    const w = new AlertWatcher({
      env: {},
      calls: () => Promise.reject(new Error('not read')),
      later: () => {},
    });
    const time = new LocalTime('UTC');
    const feed = (s: SessionDoc, nowMs: number) =>
      w.update({ doc: doc([s], nowMs), usage: () => [], config: STALL, nowMs, time });
    expect(feed(withOutput(1000), T0)).toEqual([]);
    for (let i = 1; i <= 14; i++) expect(feed(withOutput(1000 + i * 50), T0 + i * MINUTE)).toEqual([]);
    // The tokens stop: after the stall minutes of no growth, it fires, once.
    const stopped = T0 + 14 * MINUTE;
    expect(feed(withOutput(1700), stopped + 9 * MINUTE)).toEqual([]);
    expect(feed(withOutput(1700), stopped + 10 * MINUTE)).toMatchObject([
      { kind: 'stall', quietMinutes: 10 },
    ]);
    expect(feed(withOutput(1700), stopped + 11 * MINUTE)).toEqual([]);
  });
});

describe('TOK/M when a total falls', () => {
  it('the rate starts over instead of going negative', () => {
    const rates = new Map<string, number>();
    const previous = new Map<string, Sample>();
    const key = (s: SessionDoc) => s.id;
    updateRates(rates, previous, [withOutput(1000)], T0, key);
    updateRates(rates, previous, [withOutput(2000)], T0 + MINUTE, key);
    expect(rates.get('s')).toBe(1000);
    // The replay starts over: the transcript holds less than it did.
    updateRates(rates, previous, [withOutput(500)], T0 + 2 * MINUTE, key);
    expect(rates.has('s')).toBe(false);
    updateRates(rates, previous, [withOutput(800)], T0 + 3 * MINUTE, key);
    expect(rates.get('s')).toBe(300);
  });
});
