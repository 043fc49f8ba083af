import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeper, parseObject, readJson, readObjectAt } from './json.js';

/** An object holding arrays nested `depth` levels in all (the object is the first level). */
const nested = (depth: number): string => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

describe('the depth bound on JSON', () => {
  it('a value at the bound is read; one level deeper is refused as too deep', () => {
    const at = nested(MAX_JSON_DEPTH);
    const past = nested(MAX_JSON_DEPTH + 1);
    expect(readJson(at).kind).toBe('read');
    expect(readJson(past)).toEqual({ kind: 'bad', reason: 'too-deep' });
    expect(readObjectAt(Buffer.from(at), 0, at.length).kind).toBe('read');
    expect(readObjectAt(Buffer.from(past), 0, past.length)).toEqual({ kind: 'bad', reason: 'too-deep' });
  });

  it('a line nested 100,000 levels is refused without overflowing anything', () => {
    const deep = nested(100_000);
    expect(parseObject(deep)).toBeNull();
    expect(readObjectAt(Buffer.from(deep), 0, deep.length)).toEqual({ kind: 'bad', reason: 'too-deep' });
  });

  it('brackets inside strings are text, escaped quotes included', () => {
    const text = JSON.stringify({ code: `${'['.repeat(5000)}"\\${'{'.repeat(5000)}`, also: ['"[[["'] });
    expect(nestsDeeper(Buffer.from(text), 0, text.length)).toBe(false);
    expect(readJson(text).kind).toBe('read');
  });

  it('a line too short to nest past the bound is not scanned, and an unterminated string is not deep', () => {
    const short = Buffer.from('['.repeat(2 * MAX_JSON_DEPTH));
    expect(nestsDeeper(short, 0, short.length)).toBe(false);
    const open = Buffer.from(`{"a":"${'['.repeat(3 * MAX_JSON_DEPTH)}`);
    expect(nestsDeeper(open, 0, open.length)).toBe(false);
  });

  it('text that is not a JSON object says so, whatever it holds', () => {
    expect(readObjectAt(Buffer.from('root:$6$salt$hash:19000:0:99999:7:::'), 0, 37)).toEqual({
      kind: 'bad',
      reason: 'not-json-object',
    });
    expect(readObjectAt(Buffer.from('[1,2]'), 0, 5)).toEqual({ kind: 'bad', reason: 'not-json-object' });
  });
});
