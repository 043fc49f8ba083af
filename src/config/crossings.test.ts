import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../test-support/corpus.js';
import { type BudgetState, levelOf } from './budgets.js';
import { CROSSINGS_FILE, MAX_CROSSINGS_BYTES, MAX_REMEMBERED_BUDGETS, newCrossings } from './crossings.js';
import type { Budget } from './types.js';

/** 2025-06-01, the first day of a month budget's period, as a local day number. */
const JUNE = 20_240;
const JULY = JUNE + 30;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function cache(): { env: { CCTOP_CACHE_DIR: string }; file: string } {
  const t = tempDir('cctop-crossings-');
  cleanups.push(t.cleanup);
  return { env: { CCTOP_CACHE_DIR: t.dir }, file: join(t.dir, CROSSINGS_FILE) };
}

function state(spentUsd: number, o: { usd?: number; fromDay?: number; key?: string } = {}): BudgetState {
  const usd = o.usd ?? 100;
  const budget: Budget = {
    key: o.key ?? 'month',
    name: 'month',
    period: 'month',
    usd,
    project: null,
    harness: null,
  };
  const fromDay = o.fromDay ?? JUNE;
  const share = spentUsd / usd;
  return { budget, fromDay, toDay: fromDay + 29, spentUsd, share, level: levelOf(share) };
}

const levels = (crossed: BudgetState[]) => crossed.map((s) => s.level);

describe('notifying a budget crossing once', () => {
  it('crossing 80% notifies once, then crossing 100% notifies once more', () => {
    const { env } = cache();
    expect(levels(newCrossings([state(50)], env))).toEqual([]);
    expect(levels(newCrossings([state(81)], env))).toEqual(['near']);
    expect(levels(newCrossings([state(90)], env))).toEqual([]);
    expect(levels(newCrossings([state(101)], env))).toEqual(['over']);
    expect(levels(newCrossings([state(140)], env))).toEqual([]);
  });

  it('jumping past 100% at once notifies over, and near is not notified after it', () => {
    const { env } = cache();
    expect(levels(newCrossings([state(120)], env))).toEqual(['over']);
    expect(levels(newCrossings([state(85)], env))).toEqual([]);
  });

  it('the next period notifies again', () => {
    const { env } = cache();
    expect(levels(newCrossings([state(120)], env))).toEqual(['over']);
    expect(levels(newCrossings([state(85, { fromDay: JULY })], env))).toEqual(['near']);
    expect(levels(newCrossings([state(120, { fromDay: JULY })], env))).toEqual(['over']);
  });

  it('each budget is remembered on its own', () => {
    const { env } = cache();
    expect(newCrossings([state(85, { key: 'a' }), state(85, { key: 'b' })], env)).toHaveLength(2);
    expect(
      newCrossings([state(85, { key: 'a' }), state(105, { key: 'b' })], env).map((s) => s.budget.key),
    ).toEqual(['b']);
  });

  it('what was notified survives a restart: a fresh process reads it from the file', async () => {
    const { env, file } = cache();
    expect(levels(newCrossings([state(85)], env))).toEqual(['near']);
    vi.resetModules();
    const fresh = await import('./crossings.js');
    expect(fresh.newCrossings).not.toBe(newCrossings);
    expect(levels(fresh.newCrossings([state(85)], env))).toEqual([]);
    expect(levels(fresh.newCrossings([state(100)], env))).toEqual(['over']);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      version: 1,
      budgets: [{ key: 'month', fromDay: JUNE, toDay: JUNE + 29, usd: 100, level: 'over' }],
    });
  });

  it('nothing crossed writes nothing', () => {
    const { env, file } = cache();
    expect(newCrossings([state(10)], env)).toEqual([]);
    expect(existsSync(file)).toBe(false);
  });

  it('raising the limit of an exceeded budget does not notify, and arms the levels it leaves unreached', () => {
    const { env } = cache();
    expect(levels(newCrossings([state(60, { usd: 50 })], env))).toEqual(['over']);
    // Raised to $70, the $60 spent is 86%: near, which was passed on the way to over, so nothing new.
    expect(levels(newCrossings([state(60, { usd: 70 })], env))).toEqual([]);
    expect(levels(newCrossings([state(75, { usd: 70 })], env))).toEqual(['over']);
    // Raised to $200: 37.5%, both levels armed again.
    expect(levels(newCrossings([state(75, { usd: 200 })], env))).toEqual([]);
    expect(levels(newCrossings([state(170, { usd: 200 })], env))).toEqual(['near']);
  });

  it('spend falling back under a level does not arm it again', () => {
    const { env } = cache();
    expect(levels(newCrossings([state(85)], env))).toEqual(['near']);
    expect(levels(newCrossings([state(10)], env))).toEqual([]);
    expect(levels(newCrossings([state(85)], env))).toEqual([]);
  });
});

describe('the crossings file', () => {
  it('a damaged file is read as empty and never throws', () => {
    const { env, file } = cache();
    writeFileSync(file, '{"version":1,"budgets":[{"key":"month","fromD');
    expect(levels(newCrossings([state(85)], env))).toEqual(['near']);
    expect(JSON.parse(readFileSync(file, 'utf8')).budgets).toHaveLength(1);
  });

  it('entries of the wrong shape are skipped, the others kept', () => {
    const { env, file } = cache();
    const good = { key: 'a', fromDay: JUNE, toDay: JUNE + 29, usd: 100, level: 'near' };
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        budgets: [good, { key: 'month', fromDay: 'x' }, null, { ...good, key: 'b', level: 'ok' }],
      }),
    );
    expect(
      newCrossings([state(85, { key: 'a' }), state(85, { key: 'month' })], env).map((s) => s.budget.key),
    ).toEqual(['month']);
  });

  it('a file from another version, or far too large, is read as empty', () => {
    const { env, file } = cache();
    writeFileSync(file, JSON.stringify({ version: 99, budgets: [] }));
    expect(levels(newCrossings([state(85)], env))).toEqual(['near']);
    writeFileSync(file, ' '.repeat(MAX_CROSSINGS_BYTES + 1));
    expect(levels(newCrossings([state(85)], env))).toEqual(['near']);
  });

  it(`keeps at most ${MAX_REMEMBERED_BUDGETS} budgets, those whose periods end last`, () => {
    const { env, file } = cache();
    const many = Array.from({ length: MAX_REMEMBERED_BUDGETS + 5 }, (_, i) =>
      state(90, { key: `b${i}`, fromDay: JUNE + i }),
    );
    expect(newCrossings(many, env)).toHaveLength(MAX_REMEMBERED_BUDGETS + 5);
    const kept = JSON.parse(readFileSync(file, 'utf8')).budgets as { key: string }[];
    expect(kept).toHaveLength(MAX_REMEMBERED_BUDGETS);
    expect(kept.map((k) => k.key)).not.toContain('b0');
  });

  it('when the cache cannot be written, this process still notifies only once', () => {
    const { env, file } = cache();
    writeFileSync(file, '');
    // A cache directory under a plain file cannot be made.
    const blocked = { CCTOP_CACHE_DIR: join(file, 'cctop') };
    expect(levels(newCrossings([state(85)], blocked))).toEqual(['near']);
    expect(levels(newCrossings([state(85)], blocked))).toEqual([]);
    expect(levels(newCrossings([state(100)], blocked))).toEqual(['over']);
    expect(levels(newCrossings([state(85)], env))).toEqual(['near']);
  });
});
