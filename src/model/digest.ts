/**
 * A 64-bit digest (two independent 32-bit multiplicative lanes) of numbers, strings and byte blocks
 * (those two by their CRC-32, computed natively), for noticing that something changed: a discovery
 * listing, the code that parses, a set of options.
 * Not for secrecy, and not for content from strangers: the inputs are the user's own files and
 * cctop's own code, so only accidental collisions matter, about one in 2^64.
 *
 * Built on zlib's CRC-32 (loaded anyway, for the kept sessions' checksum) rather than `node:crypto`,
 * whose loading alone costs a warm run about 6 ms.
 */
import { crc32 } from 'node:zlib';

export class Digest {
  private a = 0x811c9dc5;
  private b = 0x9e3779b9 ^ 0x01000193;

  private word(v: number): void {
    this.a = Math.imul(this.a ^ v, 0x01000193);
    this.b = Math.imul(this.b ^ v, 0x5bd1e995) ^ (this.b >>> 13);
  }

  /**
   * A short field goes in by the CRC-32 of its UTF-8 and its length (so "ab" + "c" and "a" + "bc"
   * differ): native, for the thousands of paths in a discovery listing. Its 32 bits are mixed into
   * both lanes; where one string is all there is, use `text`.
   */
  string(s: string): this {
    this.word(crc32(s));
    this.word(s.length);
    return this;
  }

  /** A string, character by character into both lanes: the full 64 bits for a single long text. */
  text(s: string): this {
    let a = this.a;
    let b = this.b;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
    }
    this.a = a;
    this.b = b;
    this.word(s.length);
    return this;
  }

  /**
   * Bytes go in by their CRC-32 (native: a file of code is hashed at memory speed rather than a
   * byte at a time in JavaScript) and their length.
   */
  bytes(data: Uint8Array): this {
    this.word(crc32(data));
    this.word(data.length);
    return this;
  }

  /** A whole number below 2^32, as one word. */
  int(n: number): this {
    this.word(n >>> 0);
    return this;
  }

  number(n: number): this {
    this.word(n >>> 0);
    this.word(Math.floor(n / 4_294_967_296) >>> 0);
    // Fractions matter (mtimes have them): what is below the integer part goes in too.
    this.word(Math.round((n - Math.floor(n)) * 1e6) >>> 0);
    return this;
  }

  hex(): string {
    return `${(this.a >>> 0).toString(16).padStart(8, '0')}${(this.b >>> 0).toString(16).padStart(8, '0')}`;
  }
}
