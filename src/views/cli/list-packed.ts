/**
 * `cctop --list`'s plan (`list-layout.ts`) packed as bytes for the warm document, and the table laid
 * out from those bytes for a width, so that a warm `--list` parses no row and makes no string per
 * row: each row's text is copied as the plan printed it (the cells before and after the LAST column,
 * the title), and only its mark, its age and where its title is cut are worked out when it is asked
 * for. Thousands of titles were measured and cut one string at a time on every run before, and the
 * garbage of it cost as much again.
 *
 * Only rows whose every character takes one cell and passes the sanitisers as it is are copied so
 * (nearly all: `terminal-text.ts` `oneCellText`); any other row (a wide script, a mark where
 * something was scrubbed) is kept as the plan holds it and laid out by `list-layout.ts`'s own
 * `rowLine`. The headings and the legend are always laid out by `list-layout.ts`. So the table reads
 * byte for byte as `layoutList` prints the same plan (`list-packed.test.ts` holds them side by side).
 *
 * The bytes: the meta's length (u32), the meta (JSON, `PackedMeta`), `ROW_BYTES` per row in the
 * plan's order, the titles' pairs (`PackedMeta.wide` of them, two i32 each), then the rows' text
 * (UTF-8). Numbers in this machine's byte order: the document is read where it was written. Another
 * layout of these bytes is another `DOC_FORMAT` (`../../index/warm-doc-layout.ts`).
 *
 * Not here: what a row's cells say (`list.ts`), or whether the warm document may be printed
 * (`../../warm-answer.ts`).
 */
import type { SessionState, StateSource } from '../../model/state.js';
import { ago } from '../format.js';
import { oneCellText, printable } from '../terminal-text.js';
import type { Paint } from './color.js';
import {
  groupHead,
  type ListPlan,
  legend,
  markOf,
  type PlannedGroup,
  type PlannedRow,
  padAge,
  rowLine,
} from './list-layout.js';

/** The plan but for its rows' text, with the rows kept whole that are not copied as bytes. */
interface PackedMeta {
  header: string;
  fixed: number;
  active: ListPlan['active'];
  groups: [heading: string, brief: string | null, rows: number][];
  /** How many (character, bytes) pairs follow the rows: where the titles' characters of more than one byte are. */
  wide: number;
  /** The rows laid out by `rowLine` (their index in the plan's order, the row). */
  slow: [index: number, row: PlannedRow][];
  /** The plan reads the same until this instant (e.g. a quota figure in a heading turns stale); null: for ever. */
  until: number | null;
}

/** A packed plan, checked as far as its meta; its rows are checked as they are laid out. */
export interface PackedList {
  meta: PackedMeta;
  b: Buffer;
  rowsAt: number;
  textAt: number;
  count: number;
  slow: Map<number, PlannedRow>;
}

const STATES: readonly SessionState[] = ['working', 'waiting', 'error', 'idle'];
const SOURCES: readonly StateSource[] = ['hook', 'registry', 'driven', 'inferred'];

/**
 * A row, as `ROW_INTS` 32-bit numbers: its state, source and flags (a byte each, low to high); its
 * entry among the live members (-1: none); its last activity (a float over two); where its text starts
 * among the text; then, counted from there, where the cells after the LAST column start, where the
 * title starts, where it ends with its trailing blanks cut, and where it ends; the title's cells; and
 * where its pairs start among the pairs after the rows, and how many it has: one per character of
 * the title that takes more than one byte (its index, and the bytes past one that it and those before
 * it take), so a cut's byte is found without reading the title. The text: the cells before the LAST
 * column, those after it, a blank, the title.
 */
const ROW_INTS = 12;
const ROW_BYTES = ROW_INTS * 4;
/** Its last activity is unknown (`null`: the float holds 0). */
const ACTIVE_NULL = 1;
/** Laid out by `rowLine` from `PackedMeta.slow`. */
const SLOW = 2;

/** `plan` packed, with each row's entry among the document's live members (`live`, plan order; -1: none). */
export function packList(plan: ListPlan, live: readonly number[], until: number | null): Buffer {
  const rows = plan.groups.flatMap((g) => g.rows);
  if (rows.length !== live.length) throw new Error('a packed list needs one live entry per row');
  const [activeAt] = plan.active;
  const table = new ArrayBuffer(rows.length * ROW_BYTES);
  const ints = new Int32Array(table);
  const floats = new Float64Array(table);
  const pairs: number[] = [];
  const texts: Buffer[] = [];
  const slow: PackedMeta['slow'] = [];
  let textBytes = 0;
  rows.forEach((r, i) => {
    const at = i * ROW_INTS;
    let flags = r.activeMs === null ? ACTIVE_NULL : 0;
    ints[at + 1] = live[i]!;
    floats[at / 2 + 1] = r.activeMs ?? 0;
    if (!oneCellText(r.cells.join('')) || !oneCellText(r.label) || activeAt >= r.cells.length) {
      slow.push([i, r]);
      flags |= SLOW;
    } else {
      const before = activeAt < 0 ? r.cells.join(' ') : r.cells.slice(0, activeAt).join(' ');
      const after = activeAt < 0 ? '' : r.cells.slice(activeAt + 1).join(' ');
      // The gaps around the LAST cell are part of the text: its cells joined as `texts.join(' ')` joins them.
      const head = activeAt > 0 ? `${before} ` : before;
      const tail = activeAt >= 0 && activeAt < r.cells.length - 1 ? ` ${after} ` : ' ';
      const text = Buffer.from(head + tail + r.label);
      const labelAt = text.length - Buffer.byteLength(r.label);
      ints[at + 4] = textBytes;
      ints[at + 5] = Buffer.byteLength(head);
      ints[at + 6] = labelAt;
      ints[at + 7] = labelAt + Buffer.byteLength(r.label.trimEnd());
      ints[at + 8] = text.length;
      ints[at + 9] = r.label.length;
      ints[at + 10] = pairs.length / 2;
      let extra = 0;
      for (let c = 0; c < r.label.length; c++) {
        const bytes = Buffer.byteLength(r.label[c]!);
        if (bytes === 1) continue;
        extra += bytes - 1;
        pairs.push(c, extra);
      }
      ints[at + 11] = pairs.length / 2 - ints[at + 10]!;
      texts.push(text);
      textBytes += text.length;
    }
    ints[at] = STATES.indexOf(r.state) | (SOURCES.indexOf(r.stateSource) << 8) | (flags << 16);
  });
  const meta: PackedMeta = {
    header: plan.header,
    fixed: plan.fixed,
    active: plan.active,
    groups: plan.groups.map((g) => [g.heading, g.brief, g.rows.length]),
    wide: pairs.length / 2,
    slow,
    until,
  };
  const metaBytes = Buffer.from(JSON.stringify(meta));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(metaBytes.length);
  return Buffer.concat([
    length,
    metaBytes,
    Buffer.from(table),
    Buffer.from(new Int32Array(pairs).buffer),
    ...texts,
  ]);
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isArr = Array.isArray;
const isStr = (v: unknown): v is string => typeof v === 'string';
const isNum = (v: unknown): v is number => typeof v === 'number';

/** Checked as deep as the layout reads without a check of its own: the document's CRC vouched for the bytes. */
function isMeta(v: unknown): v is PackedMeta {
  if (
    !isObj(v) ||
    !isStr(v.header) ||
    !isNum(v.fixed) ||
    !isNum(v.wide) ||
    !isArr(v.groups) ||
    !isArr(v.slow)
  )
    return false;
  const a = v.active;
  if (!isArr(a) || a.length !== 3 || !isNum(a[0]) || !isNum(a[1]) || typeof a[2] !== 'boolean') return false;
  if (v.until !== null && !isNum(v.until)) return false;
  if (!v.groups.every((g) => isArr(g) && g.length === 3 && isStr(g[0]) && isNum(g[2]))) return false;
  return v.slow.every((s) => isArr(s) && s.length === 2 && isNum(s[0]) && isRow(s[1]));
}

function isRow(v: unknown): v is PlannedRow {
  if (!isObj(v) || !isStr(v.state) || !isStr(v.stateSource) || !isStr(v.label)) return false;
  if (!isArr(v.cells) || !v.cells.every(isStr) || !(v.activeMs === null || isNum(v.activeMs))) return false;
  return isArr(v.fit) && v.fit.length === 2 && isNum(v.fit[0]) && (v.fit[1] === null || isStr(v.fit[1]));
}

/** A packed plan when `b` holds one this layout writes, else null. */
export function unpackList(b: Buffer): PackedList | null {
  if (b.length < 4) return null;
  const metaEnd = 4 + b.readUInt32LE(0);
  if (metaEnd > b.length) return null;
  let meta: unknown;
  try {
    meta = JSON.parse(b.toString('utf8', 4, metaEnd));
  } catch {
    // Not JSON: another layout wrote it.
    return null;
  }
  if (!isMeta(meta)) return null;
  const count = meta.groups.reduce((n, g) => n + g[2], 0);
  const textAt = metaEnd + count * ROW_BYTES + meta.wide * 8;
  if (textAt > b.length) return null;
  return { meta, b, rowsAt: metaEnd, textAt, count, slow: new Map(meta.slow) };
}

/** When the packed plan stops reading the same (`PackedMeta.until`). */
export const packedUntil = (l: PackedList): number | null => l.meta.until;

/**
 * The table for a terminal `columns` wide, as `layoutList` prints the plan (every line and a newline
 * after the last), with the ages read at `nowMs` and each row with a live entry in the state
 * `stateOf` gives it now. Throws on rows that do not fit the bytes (the caller's answer is then the
 * full route's).
 */
export function layoutPacked(
  l: PackedList,
  columns: number,
  p: Paint,
  nowMs: number,
  stateOf: (live: number) => SessionState,
): Buffer {
  const { meta, b, textAt } = l;
  const plan: ListPlan = { header: meta.header, fixed: meta.fixed, active: meta.active, groups: [] };
  const titleWidth = Math.max(10, columns - plan.fixed);
  const withAge = plan.active[0] >= 0;
  // The row table copied once where its numbers can be read in place (the document holds it at any offset).
  const table = new ArrayBuffer(textAt - l.rowsAt);
  new Uint8Array(table).set(b.subarray(l.rowsAt, textAt));
  const ints = new Int32Array(table);
  const floats = new Float64Array(table);
  const pairsAt = l.count * ROW_INTS;
  const out = new ByteOut(b.length - textAt + l.count * 64 + 4096);
  const marks = new Map<number, Buffer>();
  const ages = new Map<string, Buffer>();
  const ellipsis = Buffer.from('…\n');
  let sources = 0;
  let first = true;
  let row = 0;
  for (const [heading, brief, n] of meta.groups) {
    if (n === 0) continue;
    const g: PlannedGroup = { heading, brief, rows: [] };
    for (const line of groupHead(plan, g, first, columns, p)) out.line(printable(line, p));
    first = false;
    for (const end = row + n; row < end; row++) {
      const at = row * ROW_INTS;
      const word = ints[at]!;
      const flags = word >>> 16;
      const live = ints[at + 1]!;
      const sourceAt = (word >>> 8) & 0xff;
      const stateAt = live >= 0 ? STATES.indexOf(stateOf(live)) : word & 0xff;
      const source = SOURCES[sourceAt];
      const state = STATES[stateAt];
      if (state === undefined || source === undefined) throw new Error('a packed row of no state');
      sources |= 1 << sourceAt;
      const activeMs = flags & ACTIVE_NULL ? null : floats[at / 2 + 1]!;
      if (flags & SLOW) {
        const s = l.slow.get(row);
        if (s === undefined) throw new Error('a packed row is missing');
        out.line(printable(rowLine(plan, { ...s, state, stateSource: source }, titleWidth, p, nowMs), p));
        continue;
      }
      const key = stateAt | (sourceAt << 8);
      let mark = marks.get(key);
      if (mark === undefined) {
        mark = Buffer.from(`  ${markOf(p, state, source)} `);
        marks.set(key, mark);
      }
      const from = textAt + ints[at + 4]!;
      const labelEnd = from + ints[at + 8]!;
      if (labelEnd > b.length) throw new Error('a packed row runs past the end');
      let age: Buffer | undefined;
      if (withAge) {
        // Most rows' ages read alike (`37d`): each is padded and encoded once.
        const v = ago(activeMs, nowMs);
        age = ages.get(v);
        if (age === undefined) {
          const text = padAge(plan, v);
          // Ages are digits, a unit and blanks (or `─`, or a cut's `…`): one-cell text, left as it is by `printable`.
          if (!oneCellText(text)) throw new Error(`an age of other characters: ${text}`);
          age = Buffer.from(text);
          ages.set(v, age);
        }
      }
      const after = from + ints[at + 5]!;
      out.room(mark.length + (age?.length ?? 0) + (labelEnd - from) + ellipsis.length);
      out.put(mark, 0, mark.length);
      out.put(b, from, after);
      if (age !== undefined) out.put(age, 0, age.length);
      if (ints[at + 9]! <= titleWidth) {
        out.put(b, after, from + ints[at + 7]!);
        out.newline();
      } else {
        // Cut as `clip` cuts one-cell text: the first `titleWidth - 1` characters of the title and `…`.
        const end = from + ints[at + 6]! + bytesBefore(ints, at, pairsAt, titleWidth - 1);
        if (end > labelEnd) throw new Error('a packed title is cut past its end');
        out.put(b, after, end);
        out.put(ellipsis, 0, ellipsis.length);
      }
    }
  }
  if (row !== l.count) throw new Error('the packed rows are not the ones its groups count');
  if (first) return Buffer.from('\n');
  const seen = SOURCES.filter((_, i) => sources & (1 << i)).map((stateSource) => ({ stateSource }));
  for (const line of legend(seen, columns, p)) out.line(printable(line, p));
  return out.done();
}

/** The bytes of row `at`'s title before its character `cut`: a byte each, and the extra its pairs count. */
function bytesBefore(ints: Int32Array, at: number, pairsAt: number, cut: number): number {
  let extra = 0;
  const last = pairsAt + (ints[at + 10]! + ints[at + 11]!) * 2;
  for (let k = pairsAt + ints[at + 10]! * 2; k < last && ints[k]! < cut; k += 2) extra = ints[k + 1]!;
  return cut + extra;
}

/** The answer as it is written: one buffer, grown as it fills. */
class ByteOut {
  private out: Buffer;
  private at = 0;

  constructor(sizeHint: number) {
    this.out = Buffer.allocUnsafe(Math.max(sizeHint, 1024));
  }

  /** Make room for `n` more bytes: `put` and `newline` do not look. */
  room(n: number): void {
    if (this.at + n <= this.out.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.at + n));
    this.out.copy(grown, 0, 0, this.at);
    this.out = grown;
  }

  line(s: string): void {
    this.room(s.length * 3 + 1);
    this.at += this.out.write(s, this.at, 'utf8');
    this.newline();
  }

  /** Byte by byte: the runs are short (a row's cells, a title), and a copy call per run cost more than the bytes. */
  put(from: Buffer, start: number, end: number): void {
    const out = this.out;
    let at = this.at;
    for (let i = start; i < end; i++) out[at++] = from[i]!;
    this.at = at;
  }

  newline(): void {
    this.out[this.at++] = 0x0a;
  }

  done(): Buffer {
    return this.out.subarray(0, this.at);
  }
}
