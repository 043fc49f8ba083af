/**
 * Reading one member's value out of a span table that `members` filled (`spans[2*slot]` and
 * `spans[2*slot+1]`, or -1 when the member is absent), as `record.ts` reads the same member of the
 * parsed line: a string, a non-empty text, an id's hash, `true`, a count, an object's span.
 *
 * Not here: which members the extractor wants (the walk and the projection name them), nor any walk:
 * each reader decodes at most the one value it is asked for.
 */
import { hashBytesUnless, hashString, type IdHash, idNumber } from '../../model/ledger.js';
import { has, type Interner, IS, isTrue, kind, numberAt, stringAt, stringIs } from '../skim.js';

export function span(spans: Int32Array, slot: number): [number, number] {
  return [spans[2 * slot]!, spans[2 * slot + 1]!];
}

export function str(b: Buffer, spans: Int32Array, slot: number, m?: Interner): string | null {
  const s = spans[2 * slot]!;
  if (s < 0) return null;
  const e = spans[2 * slot + 1]!;
  return m ? m.at(b, s, e) : stringAt(b, s, e);
}

/** A non-empty string, as `text()` reads parsed JSON. */
export function txt(b: Buffer, spans: Int32Array, slot: number, m?: Interner): string | null {
  const s = str(b, spans, slot, m);
  return s !== null && s.length > 0 ? s : null;
}

/**
 * `hashString(text(value))` without decoding: a plain ASCII id is hashed straight from its bytes;
 * anything with an escape or a non-ASCII byte is decoded first, to hash exactly what a parse sees.
 */
export function hashAt(b: Buffer, spans: Int32Array, slot: number): IdHash | null {
  if (!has(spans, slot)) return null;
  const s = spans[2 * slot]!;
  const e = spans[2 * slot + 1]!;
  if (b[s] !== 0x22 || e - s <= 2) return null;
  const plain = hashBytesUnless(b, s + 1, e - 1, NOT_PLAIN);
  if (plain !== null) return plain;
  const v = stringAt(b, s, e);
  return v === null || v.length === 0 ? null : hashString(v);
}

/** Bytes that mean an id must be decoded before it is hashed: an escape, or any non-ASCII byte. */
const NOT_PLAIN = new Uint8Array(256);
NOT_PLAIN[0x5c] = 1;
NOT_PLAIN.fill(1, 0x80);

export function idAt(b: Buffer, spans: Int32Array, slot: number): number | null {
  const h = hashAt(b, spans, slot);
  return h === null ? null : idNumber(h);
}

export function flag(b: Buffer, spans: Int32Array, slot: number): boolean {
  return has(spans, slot) && isTrue(b, spans[2 * slot]!, spans[2 * slot + 1]!);
}

export function is(b: Buffer, spans: Int32Array, slot: number, w: Uint8Array): boolean {
  return has(spans, slot) && stringIs(b, spans[2 * slot]!, spans[2 * slot + 1]!, w);
}

export function objectAt(b: Buffer, spans: Int32Array, slot: number): [number, number] | null {
  return has(spans, slot) && kind(b, spans[2 * slot]!) === IS.OBJECT ? span(spans, slot) : null;
}

export function count(b: Buffer, spans: Int32Array, slot: number): number | null {
  const s = spans[2 * slot]!;
  if (s < 0) return null;
  const n = numberAt(b, s, spans[2 * slot + 1]!);
  return n !== null && n >= 0 ? n : null;
}
