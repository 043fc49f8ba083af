import { describe, expect, it } from 'vitest';
import { isoMs } from '../model/json.js';
import { isoMsAt, numberAt } from './skim.js';

describe('reading small values off the bytes', () => {
  it('timestamps read off the bytes equal Date.parse, odd ones included', () => {
    const cases = [
      '2025-10-26T10:38:34.555Z',
      '2025-10-26T10:38:34Z',
      '2024-02-29T23:59:59.999Z',
      '2025-02-30T00:00:00.000Z', // rolls over, as Date.parse does
      '1999-12-31T23:59:59.000Z',
      '2400-03-01T00:00:00.000Z',
      '0050-01-01T00:00:00.000Z',
      '2025-01-01T24:00:00.000Z',
      '2025-13-01T00:00:00.000Z',
      '2025-01-01T00:00:60.000Z',
      '2025-01-01T00:00:00.1234Z',
      '2025-01-01T00:00:00+02:00',
      '[trimmed for fixture]',
      'not a date',
    ];
    for (const c of cases) {
      const b = Buffer.from(JSON.stringify(c));
      expect(isoMsAt(b, 0, b.length, isoMs), c).toBe(isoMs(c));
    }
  });

  it('numbers read off the bytes equal JSON.parse', () => {
    for (const c of ['0', '7', '123456789012345', '1234567890123456789', '-3', '1.5', '1e3', '-0']) {
      const b = Buffer.from(c);
      expect(numberAt(b, 0, b.length), c).toBe(JSON.parse(c));
    }
    expect(numberAt(Buffer.from('"7"'), 0, 3)).toBeNull();
  });
});
