import { describe, expect, it } from 'vitest';
import { DOCUMENT_VERSION } from '../model/document.js';
import { totalsOfTallies } from '../model/totals.js';
import { documentBytes, documentParts, type JsonWriter } from './render.js';

const frame = {
  version: DOCUMENT_VERSION,
  generatedAt: '2026-12-01T12:00:00.000Z',
  plan: 'retail' as const,
  timeZone: 'UTC',
  problems: [],
  totals: totalsOfTallies([]),
};

/** A pack of session facts as a kept build holds them: one large buffer, printed by ranges. */
const pack = Buffer.from(
  Array.from({ length: 40_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(''),
);

/**
 * Sessions printed the way `held.ts` prints them: ranges of the pack long and short, text around
 * them, texts many sessions share, and now and then a text longer than a piece of gathered text.
 */
function session(i: number, w: JsonWriter): void {
  w.char(0x7b);
  const start = (i * 977) % 30_000;
  w.bytes(pack, start, start + (i % 3 === 0 ? 12 : 1_500 + i));
  w.shared(`"state":"${i % 2 === 0 ? 'idle' : 'working'}"`);
  w.bytes(pack, start + 2_000, start + 2_000 + (i % 5) * 200);
  w.text(i % 17 === 0 ? `"long":"${'x'.repeat(70_000)}"` : `"n":${i}`);
  w.char(0x7d);
}

describe('printing a document as parts', () => {
  it('the parts hold exactly the bytes the document printed into one buffer holds', () => {
    for (const count of [0, 1, 40, 300]) {
      const whole = documentBytes(frame, count, 0, session, '\n');
      const parts = documentParts(frame, count, session, '\n');
      expect(Buffer.concat(parts).equals(whole)).toBe(true);
      expect(whole.toString('latin1')).toMatch(/^\{"version":1,.*\}\n$/s);
    }
  });

  it('a long range of kept facts is written from where it lies, not copied first', () => {
    const parts = documentParts(frame, 40, session, '\n');
    const kept = parts.filter((p) => p.buffer === pack.buffer);
    // Sessions 1, 2, 4, 5, … have a long first range; a range under 256 bytes is copied beside its text.
    expect(kept.length).toBeGreaterThanOrEqual(26);
    expect(kept.every((p) => p.length >= 256)).toBe(true);
  });
});
