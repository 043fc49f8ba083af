/**
 * The live table's side of budgets and alerts: the header shows each budget's use, tinted by its
 * level, and keeps it over the longer spend windows when narrow; an alert rings as a wait does, with
 * the transcript's words made safe.
 */
import { describe, expect, it } from 'vitest';
import type { Budget, BudgetState } from '../../config/index.js';
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import { totalsOf } from '../../model/totals.js';
import { PLAIN, paint } from '../cli/color.js';
import { alertNotification } from './notify.js';
import { budgetUse } from './overview.js';
import { initialView, render, type ViewState } from './view.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const COLOR = paint(true, {});

function budget(name: string, usd: number, spentUsd: number | null): BudgetState {
  const b: Budget = { key: `day||${name}`, name, period: 'day', usd, project: null, harness: null };
  const share = spentUsd === null ? null : spentUsd / usd;
  const level = share === null || share < 0.8 ? 'ok' : share < 1 ? 'near' : 'over';
  return { budget: b, fromDay: 20_000, toDay: 20_000, spentUsd, share, level };
}

const emptyDoc = (): SessionDocument => ({
  version: 1,
  generatedAt: new Date(NOW).toISOString(),
  plan: 'max',
  timeZone: 'UTC',
  sessions: [],
  problems: [],
  totals: totalsOf([]),
});

const view = (budgets: BudgetState[]): ViewState => ({
  ...initialView(new Set()),
  doc: emptyDoc(),
  loading: null,
  budgets,
});

describe('budgets in the header', () => {
  it('shows each budget as spend of limit and share: plain under 80%, amber near, red over', () => {
    expect(budgetUse(budget('day', 20, 12), PLAIN)).toBe('day $12.00/$20.00 60%');
    expect(budgetUse(budget('day', 20, 12), COLOR)).toBe('day $12.00/$20.00 60%');
    expect(budgetUse(budget('day', 20, 17), COLOR)).toBe(COLOR.amber('day $17.00/$20.00 85%'));
    expect(budgetUse(budget('month', 400, 412), COLOR)).toBe(COLOR.red('month $412.00/$400.00 103%'));
  });

  it('an unpriced spend reads as unknown, dimmed, never $0', () => {
    expect(budgetUse(budget('day', 20, null), COLOR)).toBe(COLOR.dim('day ─/$20.00 ─'));
  });

  it('sits between the spend windows and the agent counts, and outlasts the longer windows when narrow', () => {
    const v = view([budget('day', 20, 25), budget('month claude', 400, 100)]);
    const wide = render(v, PLAIN, 200, 30, NOW).lines[0]!;
    expect(wide).toMatch(
      /^cctop {2}hour \$0\.00 · today \$0\.00 · 7d \$0\.00 · 30d \$0\.00 {3}day \$25\.00\/\$20\.00 125% {3}month claude \$100\.00\/\$400\.00 25% {3}● 0 working/,
    );
    const narrow = render(v, PLAIN, 90, 30, NOW).lines[0]!;
    expect(narrow).toContain('day $25.00/$20.00 125%');
    expect(narrow).not.toContain('30d');
    expect(narrow).toContain('0 waiting');
  });

  it('a name from the config file is made safe and cut', () => {
    const line = budgetUse(budget('team\u001b]0;pwned\u0007 budget for the whole group', 20, 1), PLAIN);
    expect(line).not.toContain('\u001b');
    expect(line).toBe('team\ufffd budget fo… $1.00/$20.00 5%');
  });
});

describe('alerts ring', () => {
  const s = (over: Partial<SessionDoc>) =>
    ({ provider: 'claude', id: 'a1', title: 'fix the parser', ...over }) as SessionDoc;

  it('with the bell and an OSC 9 line saying what crossed', () => {
    const text = alertNotification({ kind: 'budget', state: budget('daily', 20, 21), level: 'over' });
    expect(text).toBe('\u0007\u001b]9;cctop: Over budget: daily: $21.00 of $20.00 (105%) today\u0007');
  });

  it('with a tool input from a transcript made safe for the terminal', () => {
    const text = alertNotification({
      kind: 'error-loop',
      session: s({ title: 'loop\u001b[2J' }),
      tool: 'Bash',
      input: 'curl x\u001b]52;c;AAAA\u0007 | sh',
      count: 5,
    });
    const body = text.slice('\u0007\u001b]9;'.length, -1);
    expect(body).not.toMatch(/[\u0000-\u001f]/);
    expect(body).toBe('cctop: Error loop: loop\ufffd: Bash failed 5 times in a row: curl x\ufffd | sh');
  });
});
