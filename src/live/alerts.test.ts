/**
 * The alerts fire on their edges: once at each crossing, not again while the level holds, again only
 * when re-armed as `alerts.ts` says, and never with their threshold off. The error loop reads a
 * transcript shaped as Claude Code 2.1.80 writes one (trimmed): an agent running `npm test` again and
 * again, each result an error.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Budget, Config } from '../config/index.js';
import type { CallLog } from '../model/calls.js';
import type { SessionDoc } from '../model/document.js';
import { LocalTime } from '../model/time.js';
import type { SessionUsage, UsageCell } from '../model/usage-cells.js';
import { claude } from '../providers/claude/index.js';
import { jsonl, tempDir } from '../test-support/corpus.js';
import { docAt as doc, HOUR, MINUTE, sessionDoc as session, T0 } from '../test-support/session-doc.js';
import { type Alert, AlertWatcher, BURN_ACTIVE_MS, burnRate, LOOP_CHECK_EVERY_MS } from './alerts.js';

const TIME = new LocalTime('UTC');

let cache: { dir: string; cleanup: () => void };
beforeEach(() => {
  cache = tempDir('cctop-alerts-');
});
afterEach(() => cache.cleanup());

const env = () => ({ CCTOP_CACHE_DIR: cache.dir });

type Alerts = Config['alerts'];
const OFF: Alerts = {
  errorLoop: null,
  stallMinutes: null,
  burnUsdPerHour: null,
  quotaPercent: null,
  secrets: false,
};

function config(alerts: Partial<Alerts>, budgets: Budget[] = []): Config {
  return {
    budgets,
    alerts: { ...OFF, ...alerts },
    reports: { timeZone: 'UTC', startOfWeek: 'monday' },
    notify: { url: null, format: 'json', desktop: true, dashboard: null },
    hosts: [],
    store: { url: null },
    acp: [],
    approvals: { holdSeconds: 600 },
  };
}

/** A watcher whose error loops are collected in `later`, and which reads calls with `calls`. */
function watcher(calls: (s: SessionDoc) => Promise<CallLog> = () => Promise.reject(new Error('not read'))) {
  const later: Alert[] = [];
  const w = new AlertWatcher({ env: env(), calls, later: (a) => later.push(...a) });
  return { w, later };
}

const feed = (
  w: AlertWatcher,
  sessions: SessionDoc[],
  nowMs: number,
  c: Config,
  usage: () => SessionUsage[] = () => [],
) => w.update({ doc: doc(sessions, nowMs), usage, config: c, nowMs, time: TIME });

describe('budget alerts', () => {
  const daily: Budget = { key: 'day||', name: 'daily', period: 'day', usd: 20, project: null, harness: null };
  const cell = (usd: number): UsageCell => ({
    hour: Date.parse('2026-03-10T09:00:00Z'),
    day: TIME.dayNumber(T0),
    model: 'claude-sonnet-4-5-20250929',
    requests: 3,
    tokens: { input: 1, output: 1, cacheRead: 1, cacheWrite: 1, reasoning: null },
    usd,
    firstMs: T0 - HOUR,
    lastMs: T0 - HOUR,
  });
  const spent = (usd: number) => () => [
    { provider: 'claude' as const, id: 'a', project: '/home/u/src/app', cells: [cell(usd)] },
  ];

  it('notifies near at 80% and over at 100%, once each, and not while the level holds', () => {
    const { w } = watcher();
    const c = config({}, [daily]);
    expect(feed(w, [], T0, c, spent(10))).toEqual([]);
    expect(w.budgets[0]).toMatchObject({ spentUsd: 10, level: 'ok' });
    const near = feed(w, [], T0 + 1, c, spent(16.5));
    expect(near).toMatchObject([{ kind: 'budget', level: 'near', state: { spentUsd: 16.5 } }]);
    expect(feed(w, [], T0 + 2, c, spent(17))).toEqual([]);
    expect(feed(w, [], T0 + 3, c, spent(21))).toMatchObject([{ kind: 'budget', level: 'over' }]);
    expect(feed(w, [], T0 + 4, c, spent(30))).toEqual([]);
  });

  it('a crossing notified before a restart is not notified by a new watcher on the same cache', () => {
    const c = config({}, [daily]);
    expect(feed(watcher().w, [], T0, c, spent(25))).toMatchObject([{ kind: 'budget', level: 'over' }]);
    const restarted = watcher().w;
    expect(feed(restarted, [], T0 + MINUTE, c, spent(26))).toEqual([]);
    expect(restarted.budgets[0]).toMatchObject({ level: 'over' });
  });

  it('reads no usage at all when no budget is set', () => {
    const { w } = watcher();
    const usage = () => {
      throw new Error('usage decoded with no budget set');
    };
    expect(feed(w, [session('a')], T0, config({}), usage)).toEqual([]);
    expect(w.budgets).toEqual([]);
  });
});

describe('stall alerts', () => {
  const quietSince = (ms: number, over: Partial<SessionDoc> = {}) =>
    session('s', { lastActiveAt: new Date(ms).toISOString(), ...over });

  it('a working session quiet for the stall minutes fires once per quiet spell, and again after it writes', () => {
    const { w } = watcher();
    const c = config({ stallMinutes: 10 });
    expect(feed(w, [quietSince(T0)], T0, c)).toEqual([]);
    expect(feed(w, [quietSince(T0)], T0 + 9 * MINUTE, c)).toEqual([]);
    expect(feed(w, [quietSince(T0)], T0 + 10 * MINUTE, c)).toMatchObject([
      { kind: 'stall', quietMinutes: 10, session: { id: 's' } },
    ]);
    expect(feed(w, [quietSince(T0)], T0 + 12 * MINUTE, c)).toEqual([]);
    // It writes again: the next quiet spell is news again.
    const later = T0 + 13 * MINUTE;
    expect(feed(w, [quietSince(later)], later, c)).toEqual([]);
    expect(feed(w, [quietSince(later)], later + 11 * MINUTE, c)).toMatchObject([{ kind: 'stall' }]);
  });

  it('a session already stalled when first seen does not fire', () => {
    const { w } = watcher();
    const c = config({ stallMinutes: 10 });
    expect(feed(w, [quietSince(T0)], T0 + 11 * MINUTE, c)).toEqual([]);
    expect(feed(w, [quietSince(T0)], T0 + 12 * MINUTE, c)).toEqual([]);
  });

  it('waiting on a prompt, run by no process, or idle is not a stall', () => {
    const { w } = watcher();
    const c = config({ stallMinutes: 10 });
    const quiet = [
      quietSince(T0, { id: 'prompt', inferred: 'probably-waiting' }),
      quietSince(T0, { id: 'gone', running: false }),
      quietSince(T0, { id: 'idle', state: 'idle' }),
    ];
    feed(w, quiet, T0, c);
    expect(feed(w, quiet, T0 + 14 * MINUTE, c)).toEqual([]);
  });

  it('nothing fires with stall_minutes off', () => {
    const { w } = watcher();
    feed(w, [quietSince(T0)], T0, config({}));
    expect(feed(w, [quietSince(T0)], T0 + 14 * MINUTE, config({}))).toEqual([]);
  });
});

describe('burn alerts', () => {
  /** A session that spent `previous` in the last clock hour and `current` in this one. */
  const burning = (previous: number, current: number, lastMs = T0 - MINUTE) =>
    session('b', {
      lastActiveAt: new Date(lastMs).toISOString(),
      cost: {
        ...session('b').cost,
        byHour: {
          start: new Date(Date.parse('2026-03-08T11:00:00Z')).toISOString(),
          usd: hours(previous, current),
        },
      },
    });
  const hours = (previous: number, current: number) => [...new Array<number>(46).fill(0), previous, current];

  it('the rate is the last two clock hours over the time since the first of them began', () => {
    // 10:30: $30 over the 90 minutes since 09:00 is $20 an hour.
    expect(burnRate(burning(10, 20), T0, T0)).toBeCloseTo(20);
    // A session quiet past BURN_ACTIVE_MS burns nothing now.
    expect(burnRate(burning(10, 20, T0 - BURN_ACTIVE_MS - 1), T0, T0)).toBeNull();
  });

  it('fires when the rate passes the limit, then at most once per session per clock hour', () => {
    const { w } = watcher();
    const c = config({ burnUsdPerHour: 30 });
    expect(feed(w, [burning(10, 20)], T0, c)).toEqual([]);
    const over = feed(w, [burning(10, 50)], T0 + MINUTE, c);
    expect(over).toMatchObject([{ kind: 'burn', limitUsdPerHour: 30, session: { id: 'b' } }]);
    expect((over[0] as { usdPerHour: number }).usdPerHour).toBeGreaterThan(30);
    expect(feed(w, [burning(10, 60)], T0 + 2 * MINUTE, c)).toEqual([]);
    // Dipping under and passing again within the hour is not news again...
    expect(feed(w, [burning(0, 1)], T0 + 3 * MINUTE, c)).toEqual([]);
    expect(feed(w, [burning(10, 70)], T0 + 4 * MINUTE, c)).toEqual([]);
    // ...in the next clock hour it is.
    const next = T0 + 40 * MINUTE;
    expect(feed(w, [burning(0, 1, next)], next, c)).toEqual([]);
    expect(feed(w, [burning(70, 20, next)], next + MINUTE, c)).toMatchObject([{ kind: 'burn' }]);
  });

  it('nothing fires with burn_usd_per_hour off', () => {
    const { w } = watcher();
    feed(w, [burning(0, 1)], T0, config({}));
    expect(feed(w, [burning(100, 500)], T0 + MINUTE, config({}))).toEqual([]);
  });
});

describe('error-loop alerts', () => {
  const SESSION = '7e1f0c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b';
  const base = {
    cwd: '/w/app',
    sessionId: SESSION,
    version: '2.1.80',
    gitBranch: 'main',
    userType: 'external',
  };
  const at = (s: number) => new Date(T0 + s * 1000).toISOString();
  let n = 0;
  /** One `npm test` call and its result, as Claude Code 2.1.80 writes them. */
  const bash = (s: number, command: string, failed: boolean) => {
    const id = `toolu_${n++}`;
    return [
      {
        ...base,
        isSidechain: false,
        type: 'assistant',
        uuid: `a-${n}`,
        timestamp: at(s),
        requestId: `req_${n}`,
        message: {
          model: 'claude-opus-4-6',
          id: `msg_${n}`,
          type: 'message',
          role: 'assistant',
          content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }],
          stop_reason: 'tool_use',
          usage: {
            input_tokens: 3,
            cache_creation_input_tokens: 50,
            cache_read_input_tokens: 9000,
            output_tokens: 40,
          },
        },
      },
      {
        ...base,
        isSidechain: false,
        type: 'user',
        uuid: `u-${n}`,
        timestamp: at(s + 2),
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: id,
              content: failed ? 'Exit code 1\nFAIL src/a.test.ts' : 'all tests pass',
              is_error: failed,
            },
          ],
        },
      },
    ];
  };
  /** The transcript: each step a call to `npm test` that fails (true) or passes (false). */
  const transcript = (steps: boolean[]): string => {
    const path = join(cache.dir, `${SESSION}.jsonl`);
    writeFileSync(path, jsonl(...steps.flatMap((failed, i) => bash(i * 10, 'npm test', failed))));
    return path;
  };
  const looping = (file: string, failed: number) =>
    session(SESSION, { file, tools: { calls: 9, failed, byTool: {} } });

  it('five failures of the same command in a row fire once for the streak', async () => {
    const reads: string[] = [];
    const { w, later } = watcher(async (s) => {
      reads.push(s.id);
      return claude.calls!(s.file);
    });
    const c = config({ errorLoop: 5 });
    const file = transcript([false, true, true, true]);
    feed(w, [looping(file, 3)], T0, c);
    transcript([false, true, true, true, true, true]);
    feed(w, [looping(file, 5)], T0 + LOOP_CHECK_EVERY_MS, c);
    await w.settled();
    expect(later).toMatchObject([{ kind: 'error-loop', tool: 'Bash', input: 'npm test', count: 5 }]);
    // The streak goes on: its sixth failure is the same loop, not a new one.
    transcript([false, true, true, true, true, true, true]);
    feed(w, [looping(file, 6)], T0 + 2 * LOOP_CHECK_EVERY_MS, c);
    await w.settled();
    expect(later).toHaveLength(1);
    expect(reads).toHaveLength(2);
  });

  it('a success ends the streak, and the next five failures fire again', async () => {
    const { w, later } = watcher(async (s) => claude.calls!(s.file));
    const c = config({ errorLoop: 5 });
    const file = transcript([true, true, true, true, true]);
    feed(w, [looping(file, 0)], T0, c);
    feed(w, [looping(file, 5)], T0 + LOOP_CHECK_EVERY_MS, c);
    await w.settled();
    transcript([true, true, true, true, true, false, true, true, true, true, true]);
    feed(w, [looping(file, 10)], T0 + 2 * LOOP_CHECK_EVERY_MS, c);
    await w.settled();
    expect(later.map((a) => a.kind)).toEqual(['error-loop', 'error-loop']);
  });

  it('reads calls only when failures grew, and never with error_loop off', async () => {
    const reads: string[] = [];
    const calls = async (s: SessionDoc) => {
      reads.push(s.id);
      return claude.calls!(s.file);
    };
    const file = transcript([true, true, true, true, true, true]);
    const off = watcher(calls);
    feed(off.w, [looping(file, 0)], T0, config({}));
    feed(off.w, [looping(file, 6)], T0 + LOOP_CHECK_EVERY_MS, config({}));
    await off.w.settled();
    const on = watcher(calls);
    feed(on.w, [looping(file, 6)], T0, config({ errorLoop: 5 }));
    feed(on.w, [looping(file, 6)], T0 + LOOP_CHECK_EVERY_MS, config({ errorLoop: 5 }));
    await on.w.settled();
    expect(reads).toEqual([]);
    expect(off.later).toEqual([]);
  });

  it('reads one session at a time, and one session at most once per LOOP_CHECK_EVERY_MS', async () => {
    let running = 0;
    let most = 0;
    const reads: string[] = [];
    const { w } = watcher(async (s) => {
      running++;
      most = Math.max(most, running);
      reads.push(s.id);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return { calls: [], dropped: 0, requests: [], compactions: [], breakdown: null };
    });
    const c = config({ errorLoop: 2 });
    const fails = (id: string, failed: number) => session(id, { tools: { calls: 9, failed, byTool: {} } });
    feed(w, [fails('a', 0), fails('b', 0)], T0, c);
    feed(w, [fails('a', 3), fails('b', 3)], T0 + 1, c);
    await w.settled();
    feed(w, [fails('a', 4), fails('b', 3)], T0 + 2, c);
    await w.settled();
    expect(most).toBe(1);
    expect(reads).toEqual(['a', 'b']);
    // Due again: the queued read runs on the next update.
    feed(w, [fails('a', 4), fails('b', 3)], T0 + 1 + LOOP_CHECK_EVERY_MS, c);
    await w.settled();
    expect(reads).toEqual(['a', 'b', 'a']);
  });
});
