import { describe, expect, it } from 'vitest';
import { LineReader } from './lines.js';

describe('the line reader', () => {
  it('joins a line split across chunks', () => {
    const r = new LineReader();
    expect(r.feed(Buffer.from('{"a":'))).toEqual([]);
    expect(r.feed(Buffer.from('1}\n{"b"'))).toEqual(['{"a":1}']);
    expect(r.end()).toEqual(['{"b"']);
  });

  it('keeps only the head of a line past its bound, holding no more than the bound', () => {
    const r = new LineReader(8);
    expect(r.feed(Buffer.from('0123456789'))).toEqual([]);
    expect(r.feed(Buffer.from('abcdef'))).toEqual([]);
    expect(r.feed(Buffer.from('gh\nok\n'))).toEqual(['01234567', 'ok']);
    expect(r.cut).toBe(1);
  });

  it('does not cut a multi-byte character in two chunks', () => {
    const bytes = Buffer.from('é\n');
    const r = new LineReader();
    expect(r.feed(bytes.subarray(0, 1))).toEqual([]);
    expect(r.feed(bytes.subarray(1))).toEqual(['é']);
  });
});
