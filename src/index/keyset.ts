/**
 * A set of 64-bit message keys (two 32-bit halves), open addressing over typed arrays: a patch checks
 * a few thousand keys of the changed files against every other file's (hundreds of thousands) without
 * making a string or an object per key. It also counts how often each key was added.
 */
import { F, FLAG, RECORD_FIELDS } from '../model/ledger.js';

export class KeySet {
  private hi = new Uint32Array(64);
  private lo = new Uint32Array(64);
  private used = new Uint8Array(64);
  private counts = new Uint32Array(64);
  private size = 0;

  addLedger(d: Uint32Array): void {
    for (let o = 0; o < d.length; o += RECORD_FIELDS)
      if (!(d[o + F.FLAGS]! & FLAG.NO_KEY)) this.add(d[o + F.KEY_HI]!, d[o + F.KEY_LO]!);
  }

  add(h: number, l: number, times = 1): void {
    if ((this.size + 1) * 2 > this.used.length) this.grow();
    const mask = this.used.length - 1;
    let s = (l ^ Math.imul(h, 0x9e3779b1)) & mask;
    while (this.used[s] === 1) {
      if (this.hi[s] === h && this.lo[s] === l) {
        this.counts[s]! += times;
        return;
      }
      s = (s + 1) & mask;
    }
    this.used[s] = 1;
    this.hi[s] = h;
    this.lo[s] = l;
    this.counts[s] = times;
    this.size++;
  }

  /** How many keys it holds. */
  get keys(): number {
    return this.size;
  }

  /** How many times the key was added (0: never). */
  count(h: number, l: number): number {
    if (this.size === 0) return 0;
    const mask = this.used.length - 1;
    let s = (l ^ Math.imul(h, 0x9e3779b1)) & mask;
    while (this.used[s] === 1) {
      if (this.hi[s] === h && this.lo[s] === l) return this.counts[s]!;
      s = (s + 1) & mask;
    }
    return 0;
  }

  /** Whether `test` holds for some key of the set (asked in no particular order). */
  some(test: (h: number, l: number) => boolean): boolean {
    for (let s = 0; s < this.used.length; s++)
      if (this.used[s] === 1 && test(this.hi[s]!, this.lo[s]!)) return true;
    return false;
  }

  has(h: number, l: number): boolean {
    if (this.size === 0) return false;
    const mask = this.used.length - 1;
    let s = (l ^ Math.imul(h, 0x9e3779b1)) & mask;
    while (this.used[s] === 1) {
      if (this.hi[s] === h && this.lo[s] === l) return true;
      s = (s + 1) & mask;
    }
    return false;
  }

  private grow(): void {
    const { hi, lo, used, counts } = this;
    this.hi = new Uint32Array(used.length * 2);
    this.lo = new Uint32Array(used.length * 2);
    this.used = new Uint8Array(used.length * 2);
    this.counts = new Uint32Array(used.length * 2);
    this.size = 0;
    for (let s = 0; s < used.length; s++) if (used[s] === 1) this.add(hi[s]!, lo[s]!, counts[s]!);
  }
}
