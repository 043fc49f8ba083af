import { describe, expect, it } from 'vitest';
import { DEFAULT_DELAY_MS, delayOption, MAX_DELAY_S } from './delay.js';

describe('--delay, for the live table, serve and watch alike', () => {
  it('is two seconds unless given, and takes fractions of a second', () => {
    expect(delayOption(undefined)).toBe(DEFAULT_DELAY_MS);
    expect(delayOption('0.5')).toBe(500);
    expect(delayOption('10')).toBe(10_000);
  });

  it('refuses what no refresh could keep to, what is longer than an hour, and what is not a number', () => {
    for (const bad of ['0.1', String(MAX_DELAY_S + 1), 'soon', '', true])
      expect(() => delayOption(bad)).toThrow(/--delay .*expected seconds from 0.5 to 3600/);
  });
});
