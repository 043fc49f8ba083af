import { describe, expect, it } from 'vitest';
import { boundText, Capture, headBytes, MAX_CAPTURE, MAX_EVENT_BYTES, TRUNCATION_MARK } from './bounds.js';

describe('the capture buffer', () => {
  it('is bounded and keeps the earliest output', () => {
    const buf = new Capture();
    // Far more than the cap, in lines, as a streaming agent writes them.
    for (let i = 0; i < 50_000; i++) buf.appendLine(`line ${i} aaaaaaaaaaaaaaaaaaaaaaaaaaaa`);
    expect(buf.bytes).toBeLessThanOrEqual(MAX_CAPTURE);
    expect(Buffer.byteLength(buf.text())).toBeLessThanOrEqual(MAX_CAPTURE);
    expect(buf.text().startsWith('line 0 ')).toBe(true);
    expect(buf.truncated).toBe(true);
  });

  it('never splits a multi-byte character', () => {
    const buf = new Capture();
    buf.append('x'.repeat(MAX_CAPTURE - 3));
    // A 4-byte character cannot fit in the 3 bytes left.
    expect(buf.appendLine('🙂🙂')).toBe(true);
    const text = buf.text();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_CAPTURE);
    expect(text).not.toContain('\uFFFD');
    expect(Buffer.from(text).toString('utf8')).toBe(text);
  });

  it('a full buffer reports that it took nothing', () => {
    const buf = new Capture();
    buf.append('x'.repeat(MAX_CAPTURE));
    expect(buf.appendLine('more')).toBe(false);
    expect(buf.bytes).toBe(MAX_CAPTURE);
  });
});

describe('payload bounds', () => {
  it('cut text is marked and stays within the bound', () => {
    const cut = boundText('é'.repeat(MAX_EVENT_BYTES));
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(MAX_EVENT_BYTES);
    expect(cut.endsWith(TRUNCATION_MARK)).toBe(true);
    expect(cut).not.toContain('\uFFFD');
  });

  it('a head is cut on a character boundary', () => {
    expect(headBytes('aé', 2)).toBe('a');
    expect(headBytes('aé', 3)).toBe('aé');
  });
});
