import { describe, expect, it } from 'vitest';
import { hashBytes, hashBytesUnless, hashString } from './ledger.js';

describe('id hashes', () => {
  it('a string hashes as its UTF-8 bytes do, whether it is plain ASCII or not', () => {
    for (const s of [
      '',
      'msg_01XyZ',
      'toolu_01ABC|2026-11-29T10:00:00.000Z',
      'café ☕',
      '\u0000\u007f\u0080',
      '😀 id',
    ]) {
      const b = Buffer.from(s, 'utf8');
      expect(hashString(s), JSON.stringify(s)).toEqual(hashBytes(b, 0, b.length));
    }
  });

  it('hashing stops with null at a byte it is told to stop at, and otherwise equals the plain hash', () => {
    const stop = new Uint8Array(256);
    stop[0x5c] = 1;
    const plain = Buffer.from('"req_011CVabc"');
    expect(hashBytesUnless(plain, 1, plain.length - 1, stop)).toEqual(hashBytes(plain, 1, plain.length - 1));
    const escaped = Buffer.from('"req_\\u0041bc"');
    expect(hashBytesUnless(escaped, 1, escaped.length - 1, stop)).toBeNull();
  });
});
