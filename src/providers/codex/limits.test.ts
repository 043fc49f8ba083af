/**
 * Codex's rate-limit snapshot as the status line's quota, in the shape Codex 0.169.0 writes it
 * (`rate_limits` on a `token_count` event): each window placed by its length.
 */
import { describe, expect, it } from 'vitest';
import { statusLine } from '../../statusline/line.js';
import { paint } from '../../views/cli/color.js';
import { codexLimits } from './limits.js';

const NOW = Date.parse('2026-12-07T06:00:00Z');
const at = (hours: number) => Math.round((NOW + hours * 3_600_000) / 1000);

describe("Codex's quota on the status line", () => {
  it('the five-hour and the seven-day windows are placed by their length, whichever Codex calls primary', () => {
    const raw = {
      limit_id: 'codex',
      primary: { used_percent: 61.5, window_minutes: 10_080, resets_at: at(50) },
      secondary: { used_percent: 12, window_minutes: 300, resets_at: at(2) },
    };
    expect(codexLimits(raw)).toEqual({
      fiveHour: { usedPercent: 12, resetsAtMs: at(2) * 1000 },
      sevenDay: { usedPercent: 61.5, resetsAtMs: at(50) * 1000 },
    });
    const figures = {
      model: 'gpt-5-codex',
      sessionUsd: 1.25,
      contextShare: 0.4,
      todayUsd: 3.5,
      block: null,
      limits: codexLimits(raw),
      budget: null,
    };
    const p = paint(false, { NO_COLOR: '1' });
    expect(statusLine(figures, ['model', 'quota'], NOW, p)).toBe(
      'gpt-5-codex · 5h 12% ↻2h00 · 7d 62% ↻50h00',
    );
  });

  it('a snapshot with no sized window (an API key, no plan) is no quota, not 0%', () => {
    expect(codexLimits({ primary: null, secondary: null, credits: null })).toBeNull();
    expect(codexLimits({ primary: { used_percent: 0, window_minutes: 0, resets_in_seconds: 0 } })).toBeNull();
    expect(codexLimits('not an object')).toBeNull();
  });
});
