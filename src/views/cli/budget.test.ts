import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, type SpentOf } from '../../config/index.js';
import { LocalTime } from '../../model/time.js';
import { tempDir } from '../../test-support/corpus.js';
import { budgetCommand } from './budget.js';
import { PLAIN } from './color.js';
import type { Io } from './main.js';

const NOW = Date.parse('2025-06-11T12:00:00Z');
const UTC = new LocalTime('UTC');

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A home with `config` (when given) as its config file, and an Io that keeps what is written. */
function setup(config: string | null) {
  const t = tempDir('cctop-budget-');
  cleanups.push(t.cleanup);
  const path = join(t.dir, 'config.toml');
  if (config !== null) writeFileSync(path, config);
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    out: (s) => out.push(String(s)),
    err: (s) => err.push(s),
    isTty: false,
    columns: 100,
    env: { HOME: t.dir, CCTOP_CONFIG: path },
  };
  return { io, out, err, path };
}

function budget(config: string | null, spentOf: SpentOf, json = false) {
  const s = setup(config);
  const code = budgetCommand(s.io, spentOf, {
    loaded: loadConfig(s.io.env),
    nowMs: NOW,
    time: UTC,
    json,
    color: PLAIN,
  });
  return { ...s, code };
}

const TWO = `
[[budget]]
name = "daily"
period = "day"
usd = 50

[[budget]]
period = "month"
usd = 400
harness = "claude"
`;

describe('cctop budget', () => {
  it('prints each budget with its days, spend of limit, bar, share and level', () => {
    const { out, code } = budget(TWO, (q) => (q.harness === 'claude' ? 340 : 12.3));
    expect(code).toBe(0);
    expect(out).toEqual([
      'daily         day    2025-06-11                 $12.30 of $50.00  █████░░░░░░░░░░░░░░░   25%  ok',
      'month claude  month  2025-06-01 → 2025-06-30  $340.00 of $400.00  █████████████████░░░   85%  near',
    ]);
  });

  it('exits 1 when a budget is exceeded, for scripts and CI', () => {
    const { code, out } = budget(TWO, () => 450);
    expect(code).toBe(1);
    expect(out[1]).toMatch(/████████████████████ {2}113% {2}over$/);
  });

  it('spend nothing could price reads "no price", never $0.00', () => {
    const { out, code } = budget(TWO, () => null);
    expect(code).toBe(0);
    expect(out[0]).toContain('no price of $50.00');
    expect(out[0]).toContain('─'.repeat(20));
    expect(out.join('\n')).not.toContain('$0.00');
  });

  it('--json gives each budget and where it stands, versioned', () => {
    const { out, code } = budget(TWO, (q) => (q.harness === 'claude' ? null : 60), true);
    expect(code).toBe(1);
    expect(JSON.parse(out.join(''))).toEqual({
      version: 1,
      budgets: [
        {
          name: 'daily',
          period: 'day',
          from: '2025-06-11',
          to: '2025-06-11',
          limitUsd: 50,
          spentUsd: 60,
          share: 1.2,
          level: 'over',
          project: null,
          harness: null,
        },
        {
          name: 'month claude',
          period: 'month',
          from: '2025-06-01',
          to: '2025-06-30',
          limitUsd: 400,
          spentUsd: null,
          share: null,
          level: 'ok',
          project: null,
          harness: 'claude',
        },
      ],
    });
  });

  it('with no budgets set, says so and where the file is, and exits 0', () => {
    const { out, code } = budget(null, () => 1);
    expect(code).toBe(0);
    expect(out).toEqual([
      'No budgets are set. Add a [[budget]] to ~/config.toml (docs/config.md shows how).',
    ]);
  });

  it('a config file that cannot be used is an error on stderr, exit 1', () => {
    const { out, err, code } = budget('[[budget]\n', () => 1);
    expect(code).toBe(1);
    expect(out).toEqual([]);
    expect(err[0]).toMatch(/^cctop: .*config\.toml line 1, column \d+: /);
  });

  it('warnings go to stderr and the budgets still print', () => {
    const { out, err } = budget(`${TWO}colour = 1\n`, () => 1);
    expect(out).toHaveLength(2);
    expect(err).toEqual([expect.stringMatching(/key "budget\.colour" is not a cctop setting$/)]);
  });

  it('a budget name cannot move the terminal', () => {
    const { out } = budget('[[budget]]\nname = "evil\\u001b[2J"\nperiod = "day"\nusd = 5\n', () => 1);
    expect(out.join('')).not.toContain('\u001b');
  });
});

describe('a budget name that holds escapes', () => {
  it('is printed as marks, in the table and on the line under cctop --list', async () => {
    const r = budget(
      '[[budget]]\nname = "x\\u001b[31my\\u001b]0;t\\u0007"\nperiod = "day"\nusd = 5\n',
      () => 1,
    );
    expect(r.out.join('\n')).toMatch(/x.*y/);
    expect(r.out.join('\n')).not.toContain('\u001b');
    const { budgetSummary } = await import('./budget.js');
    const { budgetStates } = await import('../../config/index.js');
    const states = budgetStates(loadConfig(r.io.env).config.budgets, () => 1, NOW, UTC, 'monday');
    expect(budgetSummary(states, PLAIN)).not.toContain('\u001b');
  });
});
