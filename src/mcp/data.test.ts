import { describe, expect, it } from 'vitest';
import { MARK } from '../views/terminal-text.js';
import { asData, dataResult, fitList, MAX_FIELD_CHARS, MAX_RESULT_BYTES } from './data.js';

describe('tool results', () => {
  it('a list longer than the bound is cut to fit, and says how many it left out', () => {
    const items = Array.from({ length: 400 }, (_, i) => ({ id: `session-${i}`, title: 'x'.repeat(200) }));
    const fitted = fitList({ running: 400 }, 'sessions', items);
    const kept = (fitted.sessions as unknown[]).length;
    expect(kept).toBeGreaterThan(10);
    expect(kept).toBeLessThan(400);
    expect(fitted.omitted).toBe(400 - kept);
    expect(Buffer.byteLength(JSON.stringify(fitted))).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    // One more would not have fitted.
    const more = { ...fitted, sessions: items.slice(0, kept + 1).map(asData) };
    expect(Buffer.byteLength(JSON.stringify(more))).toBeGreaterThan(MAX_RESULT_BYTES);
  });

  it('a list within the bound is whole, up to the limit asked for', () => {
    expect(fitList({}, 'sessions', [1, 2, 3])).toEqual({ sessions: [1, 2, 3], omitted: 0 });
    expect(fitList({}, 'sessions', [1, 2, 3], 2)).toEqual({ sessions: [1, 2], omitted: 1 });
  });

  it('escape sequences, controls and bidi overrides from a transcript become marks; newlines stay', () => {
    const title = '\u001b]52;c;aGk=\u0007copy\u001b[2Jme\u202enow\u0000\nnext';
    const r = dataResult({ sessions: [{ title }] });
    const got = (r.structuredContent!.sessions as { title: string }[])[0]!.title;
    expect(got).toBe(`${MARK}copy${MARK}me${MARK}now${MARK}\nnext`);
    expect(r.content[0]!.text).toBe(JSON.stringify(r.structuredContent));
    expect(r.content[0]!.text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
  });

  it('a string longer than a field holds is cut, and ends in an ellipsis', () => {
    const got = asData({ path: 'a'.repeat(MAX_FIELD_CHARS * 3) }) as { path: string };
    expect(got.path).toHaveLength(MAX_FIELD_CHARS);
    expect(got.path.endsWith('…')).toBe(true);
  });
});
