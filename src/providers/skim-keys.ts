/**
 * What the skim's walk (`skim-walk.ts`) looks members up in and notes them into: the compiled table
 * of the keys a reader wants (`Keys`), and the log of every member of the last object walked
 * (`MemberLog`), which lets a second reader of the same line skip walking it again.
 *
 * Not here: the walk itself, nor decoding a value.
 */

/** Keys longer than this are never among the wanted ones (they are skipped, not compared). */
const MAX_KEY_BYTES = 63;

/**
 * Keys of interest, compiled once: `slot(b, s, e)` says which one the key bytes `b[s..e)` are, or -1.
 * Looked up by length and first byte in a flat table, then confirmed byte by byte: this runs for
 * every member of every object walked, a few million times a scan.
 */
export class Keys {
  readonly names: readonly string[];
  private readonly bytes: Uint8Array[];
  /** (length, first byte & 127) → slot + 1 of the only candidate, or -(n) for a list index. */
  private readonly table = new Int16Array((MAX_KEY_BYTES + 1) * 128);
  private readonly clashes: number[][] = [];

  constructor(names: readonly string[]) {
    this.names = names;
    this.bytes = names.map((n) => Buffer.from(n, 'utf8'));
    this.bytes.forEach((k, slot) => {
      if (k.length > MAX_KEY_BYTES || k.length === 0)
        throw new Error(`key ${names[slot]} is not a short key`);
      const at = k.length * 128 + (k[0]! & 127);
      const was = this.table[at]!;
      if (was === 0) this.table[at] = slot + 1;
      else if (was > 0) {
        this.clashes.push([was - 1, slot]);
        this.table[at] = -this.clashes.length;
      } else this.clashes[-was - 1]!.push(slot);
    });
  }

  slot(b: Uint8Array, s: number, e: number): number {
    const len = e - s;
    if (len > MAX_KEY_BYTES || len === 0) return -1;
    const t = this.table[len * 128 + (b[s]! & 127)]!;
    if (t === 0) return -1;
    if (t > 0) return this.matches(b, s, t - 1) ? t - 1 : -1;
    for (const slot of this.clashes[-t - 1]!) if (this.matches(b, s, slot)) return slot;
    return -1;
  }

  private matches(b: Uint8Array, s: number, slot: number): boolean {
    const k = this.bytes[slot]!;
    for (let i = 0; i < k.length; i++) if (b[s + i] !== k[i]) return false;
    return true;
  }
}

/**
 * Members a log keeps of one object: past this many it is given up (a line with thousands of keys
 * is not a harness's record), and whoever reads the log walks the object itself instead. Real lines
 * have a few dozen; this bounds the log's memory whatever a line holds.
 */
const MAX_LOGGED_MEMBERS = 4096;

/**
 * Every member of the last object `members` walked with this log, in the order written: the key's
 * bytes (between its quotes) and the value's span, so that a second reader of the same line (drift's
 * sample of its keys) need not walk it again. `holds` says whether the log is of exactly the object
 * at `b[start..end)`; a walk that throws, or an object with too many members, leaves it holding none.
 */
export class MemberLog {
  /** `[keyStart, keyEnd, valueStart, valueEnd]` per member. */
  spans = new Int32Array(64 * 4);
  count = 0;
  private buf: Uint8Array | null = null;
  private start = -1;
  private end = -1;

  holds(b: Uint8Array, start: number, end: number): boolean {
    return this.buf === b && this.start === start && this.end === end;
  }

  /** Forget what was logged (a walk is starting). */
  clear(): void {
    this.buf = null;
    this.count = 0;
  }

  /** The object at `b[start..end)` is whole and every member of it was logged. */
  seal(b: Uint8Array, start: number, end: number): void {
    if (this.count > MAX_LOGGED_MEMBERS) return;
    this.buf = b;
    this.start = start;
    this.end = end;
  }

  note(ks: number, ke: number, vs: number, ve: number): void {
    const at = this.count * 4;
    this.count++;
    if (this.count > MAX_LOGGED_MEMBERS) return;
    if (at + 4 > this.spans.length) {
      const grown = new Int32Array(this.spans.length * 2);
      grown.set(this.spans);
      this.spans = grown;
    }
    this.spans[at] = ks;
    this.spans[at + 1] = ke;
    this.spans[at + 2] = vs;
    this.spans[at + 3] = ve;
  }
}
