import { describe, expect, it } from 'vitest';
import { paint } from '../views/cli/color.js';
import { DEFAULT_FORMAT, NOTHING, parseFormat, type StatusFigures, statusLine } from './line.js';

const NOW = Date.parse('2026-11-29T10:00:00Z');
const PLAIN = paint(false, {});
const COLOUR = paint(true, {});

const FIGURES: StatusFigures = {
  model: 'claude-opus-4-6',
  sessionUsd: 3.2,
  contextShare: 0.42,
  todayUsd: 45.1,
  block: { usd: 12.3, endsAtMs: NOW + 2 * 3_600_000 + 10 * 60_000 },
  limits: null,
  budget: null,
};

const LIMITS = {
  fiveHour: { usedPercent: 42, resetsAtMs: NOW + 130 * 60_000 },
  sevenDay: { usedPercent: 15.5, resetsAtMs: NOW + 3 * 86_400_000 },
};

describe('the status line', () => {
  it('shows the model, cost, context, today and the active block when Claude sent no limits', () => {
    expect(statusLine(FIGURES, DEFAULT_FORMAT, NOW, PLAIN)).toBe(
      'opus-4.6 · $3.20 · ctx 42% · today $45.10 · block $12.30 2h10 left',
    );
  });

  it("shows Claude's 5-hour and 7-day limits instead of the block estimate when they are sent", () => {
    expect(statusLine({ ...FIGURES, limits: LIMITS }, DEFAULT_FORMAT, NOW, PLAIN)).toBe(
      'opus-4.6 · $3.20 · ctx 42% · today $45.10 · 5h 42% ↻2h10 · 7d 16% ↻72h00',
    );
  });

  it('shows the parts --format names, in its order, both block and limits when both are asked for', () => {
    const f = parseFormat('today,limits,block,model');
    expect(f.kind).toBe('parts');
    if (f.kind !== 'parts') return;
    expect(statusLine({ ...FIGURES, limits: LIMITS }, f.parts, NOW, PLAIN)).toBe(
      'today $45.10 · 5h 42% ↻2h10 · 7d 16% ↻72h00 · block $12.30 2h10 left · opus-4.6',
    );
  });

  it('refuses a --format word that is not a part, and reads repeated or spaced words once', () => {
    expect(parseFormat('model,cots')).toEqual({ kind: 'bad', word: 'cots' });
    expect(parseFormat(' Model , cost,model,')).toEqual({ kind: 'parts', parts: ['model', 'cost'] });
  });

  it('leaves out what is not known, and says so when nothing is', () => {
    const unknown: StatusFigures = {
      model: null,
      sessionUsd: null,
      contextShare: null,
      todayUsd: null,
      block: null,
      limits: null,
      budget: null,
    };
    expect(statusLine({ ...unknown, todayUsd: 0 }, DEFAULT_FORMAT, NOW, PLAIN)).toBe('today $0.00');
    expect(statusLine(unknown, DEFAULT_FORMAT, NOW, PLAIN)).toBe(NOTHING);
  });

  it('drops a block that has ended and a reset time that has passed', () => {
    const ended = { ...FIGURES, block: { usd: 5, endsAtMs: NOW - 1 } };
    expect(statusLine(ended, ['block'], NOW, PLAIN)).toBe(NOTHING);
    const passed = {
      ...FIGURES,
      limits: { fiveHour: { usedPercent: 3, resetsAtMs: NOW - 1 }, sevenDay: null },
    };
    expect(statusLine(passed, ['limits'], NOW, PLAIN)).toBe('5h 3%');
  });

  it("shows Claude Code's cached limits when stdin sent none, saying where they came from and how old", () => {
    const cachedLimits = {
      fiveHour: { usedPercent: 64, resetsAtMs: NOW + 100 * 60_000, stale: false },
      sevenDay: { usedPercent: 21, resetsAtMs: NOW + 2 * 86_400_000, stale: false },
      fetchedAtMs: NOW - 4 * 60_000,
    };
    expect(statusLine({ ...FIGURES, cachedLimits }, ['quota'], NOW, PLAIN)).toBe(
      "5h 64% ↻1h40 · 7d 21% ↻48h00 (Claude's cache, 4m old)",
    );
    // What stdin sends wins: it is current.
    expect(statusLine({ ...FIGURES, limits: LIMITS, cachedLimits }, ['limits'], NOW, PLAIN)).toBe(
      '5h 42% ↻2h10 · 7d 16% ↻72h00',
    );
  });

  it('shows a cached window that has reset since as stale, dimmed, never as the current figure', () => {
    const cachedLimits = {
      fiveHour: { usedPercent: 97, resetsAtMs: NOW - 60_000, stale: true },
      sevenDay: null,
      fetchedAtMs: NOW - 6 * 3_600_000,
    };
    expect(statusLine({ ...FIGURES, cachedLimits }, ['limits'], NOW, PLAIN)).toBe(
      "5h 97% stale (Claude's cache, 6h00 old)",
    );
    expect(statusLine({ ...FIGURES, cachedLimits }, ['limits'], NOW, COLOUR)).toBe(
      "\u001b[2m5h 97% stale\u001b[22m \u001b[2m(Claude's cache, 6h00 old)\u001b[22m",
    );
  });

  it('marks a budget only once it is near, in red once it is spent', () => {
    const near = (share: number) => ({ ...FIGURES, budget: { name: 'daily', share } });
    expect(statusLine(near(0.5), ['budget'], NOW, PLAIN)).toBe(NOTHING);
    expect(statusLine(near(0.85), ['budget'], NOW, PLAIN)).toBe('daily budget 85%');
    expect(statusLine(near(1.2), ['budget'], NOW, COLOUR)).toBe('\u001b[31mdaily budget 120%\u001b[39m');
  });

  it('colours a context near compaction amber, and a full one red', () => {
    expect(statusLine({ ...FIGURES, contextShare: 0.85 }, ['context'], NOW, COLOUR)).toBe(
      '\u001b[33mctx 85%\u001b[39m',
    );
    expect(statusLine({ ...FIGURES, contextShare: 0.97 }, ['context'], NOW, COLOUR)).toBe(
      '\u001b[31mctx 97%\u001b[39m',
    );
  });

  it('lets no escape sequence from a model or budget name reach the terminal', () => {
    const hostile = {
      ...FIGURES,
      model: 'opus\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2J\u202e',
      budget: { name: 'x\u009b31m\u001b]0;title\u001b\\', share: 0.9 },
    };
    for (const p of [PLAIN, COLOUR]) {
      const line = statusLine(hostile, ['model', 'budget'], NOW, p);
      expect(line).not.toMatch(/\u001b\]|\u001b\[2J|\u009b|\u202e|\u0007/);
      expect(line).toContain('opus\ufffd');
    }
    expect(statusLine(hostile, ['model'], NOW, PLAIN)).not.toContain('\u001b');
    // A colour code in a name is the name's, not cctop's: with colour on it does not pass either.
    const dressed = { ...FIGURES, model: 'evil\u001b[31mred', budget: { name: 'b\u001b[1m', share: 0.5 } };
    expect(statusLine(dressed, ['model', 'budget'], NOW, COLOUR)).not.toContain('\u001b');
  });

  it('cuts a long model name to fit beside Claude Code’s own bar', () => {
    const line = statusLine({ ...FIGURES, model: 'x'.repeat(200) }, ['model'], NOW, PLAIN);
    expect(line).toBe(`${'x'.repeat(23)}…`);
  });
});
