/**
 * The feed between the live picture and the watcher: it reads the config file on every pass (so a
 * budget added applies without a restart), says what is wrong with the file once, and hands on what
 * the watcher found.
 */
import { EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BudgetState } from '../config/index.js';
import { LocalTime } from '../model/time.js';
import { totalsOf } from '../model/totals.js';
import { tempDir } from '../test-support/corpus.js';
import { AlertFeed } from './alert-feed.js';
import type { Alert } from './alerts.js';
import type { LiveSessions } from './engine.js';

const NOW = Date.parse('2026-03-10T10:30:00Z');

let t: { dir: string; cleanup: () => void };
beforeEach(() => {
  t = tempDir('cctop-feed-');
});
afterEach(() => t.cleanup());

function feedWith(configText: string | null) {
  const config = join(t.dir, 'config.toml');
  if (configText !== null) writeFileSync(config, configText);
  const live = Object.assign(new EventEmitter(), {
    document: {
      version: 1,
      generatedAt: new Date(NOW).toISOString(),
      plan: 'retail',
      timeZone: 'UTC',
      sessions: [],
      problems: [],
      totals: totalsOf([]),
    },
    usage: () => [],
    localTime: new LocalTime('UTC'),
  });
  const alerts: Alert[] = [];
  const budgets: (readonly BudgetState[])[] = [];
  const problems: string[] = [];
  const feed = new AlertFeed({
    live: live as unknown as LiveSessions,
    env: { CCTOP_CONFIG: config, CCTOP_CACHE_DIR: join(t.dir, 'cache') },
    onAlerts: (a) => alerts.push(...a),
    onBudgets: (b) => budgets.push(b),
    onProblem: (p) => problems.push(p),
    now: () => NOW,
  });
  return { feed, config, alerts, budgets, problems };
}

describe('the alert feed', () => {
  it('says once that the config file cannot be used, and runs on the defaults', () => {
    const { feed, budgets, problems } = feedWith('[[budget]\nperiod = "day"\n');
    feed.start();
    feed.pass();
    feed.pass();
    feed.stop();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/config\.toml line 1/);
    expect(budgets.at(-1)).toEqual([]);
  });

  it('a budget written into the file while it runs applies on the next pass', () => {
    const { feed, config, alerts, budgets } = feedWith(null);
    feed.start();
    feed.pass();
    expect(budgets.at(-1)).toEqual([]);
    writeFileSync(config, '[[budget]]\nperiod = "day"\nusd = 5\n');
    feed.pass();
    feed.stop();
    expect(budgets.at(-1)).toMatchObject([{ budget: { name: 'day', usd: 5 }, spentUsd: 0, level: 'ok' }]);
    expect(alerts).toEqual([]);
  });
});
