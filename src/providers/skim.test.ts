import { describe, expect, it } from 'vitest';
import { isoMs } from '../model/json.js';
import { isoMsAt, Keys, lineObject, MemberLog, numberAt, SkimError, stringAt } from './skim.js';

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
      '0100-03-01T00:00:00.000Z',
      '0099-12-31T23:59:59.999Z',
      '2x25-01-01T00:00:00.000Z',
      '2025-01-01T00:00:00.1x3Z',
      '2025-01-01T0:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
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

  it('refuses a line for a number JSON refuses, wherever it stands, and leaves the insides of its strings alone', () => {
    const read = [
      '{"a":0,"b":-12,"c":1.5e+3,"d":[1,2.25,-0.5E-2]}',
      '{"a":"01 and 1. and -x inside a string","b":10}',
    ];
    const refused = [
      '{"a":01}',
      '{"a":1.}',
      '{"a":-}',
      '{"a":1e}',
      '{"a":.5}',
      '{"a":+1}',
      '{"a":[3,00]}',
      '{"a":-01.5}',
      '{"b":{"c":[{"d":1E+}]}}',
    ];
    const keys = new Keys(['a']);
    const out = new Int32Array(2);
    const walked = (v: string): string => {
      try {
        lineObject(Buffer.from(v), 0, Buffer.byteLength(v), keys, out);
        return 'read';
      } catch (err) {
        if (err instanceof SkimError) return err.reason;
        throw err;
      }
    };
    const parsed = (v: string): string => {
      try {
        JSON.parse(v);
        return 'read';
      } catch {
        // What this test is after: JSON refuses the number.
        return 'not-json-object';
      }
    };
    const cases = [...read, ...refused];
    expect(cases.map(walked)).toEqual(cases.map(parsed));
    expect(cases.map(walked)).toEqual([...read.map(() => 'read'), ...refused.map(() => 'not-json-object')]);
  });
});

describe('strings as JSON.parse reads them, however long and wherever their escapes fall', () => {
  // Around where the walk stops looking byte by byte and searches natively (past 64 bytes, and again
  // after each escaped quote): lengths from 0 to 300, every one of them next to the 64th byte, with
  // an escaped quote, a run of backslashes or a non-ASCII character at each place.
  const pieces = ['\\"', '\\\\', '\\\\\\"', 'é', '\\n'];
  const bodies: string[] = [];
  const lengths = new Set<number>();
  for (let len = 0; len <= 300; len += 7) lengths.add(len);
  for (let len = 56; len <= 72; len++) lengths.add(len);
  for (const len of lengths) {
    const plain = 'x'.repeat(len);
    bodies.push(plain);
    for (const piece of pieces)
      for (const at of [0, len >> 1, len]) bodies.push(plain.slice(0, at) + piece + plain.slice(at));
  }
  const keys = new Keys(['a', 'b']);
  const out = new Int32Array(4);

  it('finds where each string ends and decodes it, in a buffer that holds more lines after it', () => {
    for (const body of bodies) {
      const line = `{"a":"${body}","b":1}`;
      // What follows the line in the read buffer: quotes and backslashes a search must not run into.
      const b = Buffer.from(`${line}\n{"a":"\\"}"\\`);
      const end = Buffer.byteLength(line);
      lineObject(b, 0, end, keys, out);
      expect(stringAt(b, out[0]!, out[1]!), body).toBe((JSON.parse(line) as { a: string }).a);
      expect(b.toString('utf8', out[2]!, out[3]!)).toBe('1');
    }
  });

  it('refuses a line cut inside a string, whatever the buffer holds after the cut', () => {
    for (const body of bodies) {
      const line = `{"a":"${body}`;
      const b = Buffer.from(`${line}","b":1}\n`);
      expect(() => lineObject(b, 0, Buffer.byteLength(line), keys, out), body).toThrow(SkimError);
    }
  });
});

describe("a walk's log of the members it passed", () => {
  const keys = new Keys(['b']);
  const out = new Int32Array(2);
  const noted = (log: MemberLog, b: Buffer) =>
    Array.from({ length: log.count }, (_, k) => {
      const [ks, ke, vs, ve] = log.spans.subarray(4 * k, 4 * k + 4);
      return [b.toString('utf8', ks, ke), b.toString('utf8', vs, ve)];
    });

  it('notes every member in the order written, wanted or not, repeated ones each time', () => {
    const b = Buffer.from(' {"a":1, "b" : {"x":[1,"}"]} ,"a":"\\"q\\""}  ');
    const log = new MemberLog();
    lineObject(b, 0, b.length, keys, out, undefined, log);
    expect(noted(log, b)).toEqual([
      ['a', '1'],
      ['b', '{"x":[1,"}"]}'],
      ['a', '"\\"q\\""'],
    ]);
    expect(log.holds(b, 0, b.length)).toBe(true);
  });

  it('holds only the line it walked: not a shorter or longer span, nor another buffer, nor a walk that failed', () => {
    const b = Buffer.from('{"a":1,"b":2}');
    const log = new MemberLog();
    lineObject(b, 0, b.length, keys, out, undefined, log);
    expect(log.holds(b, 0, b.length)).toBe(true);
    expect(log.holds(b, 0, b.length - 1)).toBe(false);
    expect(log.holds(b, 1, b.length)).toBe(false);
    expect(log.holds(Buffer.from(b), 0, b.length)).toBe(false);
    const bad = Buffer.from('{"a":1,"b":2} x');
    expect(() => lineObject(bad, 0, bad.length, keys, out, undefined, log)).toThrow(SkimError);
    expect(log.holds(bad, 0, bad.length)).toBe(false);
    expect(log.holds(b, 0, b.length)).toBe(false);
    const cut = Buffer.from('{"a":1,"b":');
    expect(() => lineObject(cut, 0, cut.length, keys, out, undefined, log)).toThrow(SkimError);
    expect(log.holds(cut, 0, cut.length)).toBe(false);
  });

  it('gives up past its bound, so a line of thousands of keys is walked again by whoever reads it', () => {
    const many = Buffer.from(`{${Array.from({ length: 5000 }, (_, k) => `"k${k}":${k}`).join(',')}}`);
    const log = new MemberLog();
    lineObject(many, 0, many.length, keys, out, undefined, log);
    expect(log.holds(many, 0, many.length)).toBe(false);
    const few = Buffer.from('{"a":1}');
    lineObject(few, 0, few.length, keys, out, undefined, log);
    expect(log.holds(few, 0, few.length)).toBe(true);
    expect(log.count).toBe(1);
  });
});
