/**
 * The I/O around a line parser: open a transcript, feed its lines from an offset, count what could
 * not be read. Parsers stay pure functions over records.
 */
import { emptyFacts, type FileFacts, noteBadLine } from '../model/facts.js';
import { type JsonObject, parseObject } from '../model/json.js';
import { type Ledger, LedgerBuilder } from '../model/ledger.js';
import { scanLines } from './jsonl.js';
import { SkimError } from './skim.js';
import type { ParseResult, SourceFile } from './types.js';

export interface LineSink {
  /** Feed one line; false when it is not a JSON object (the caller counts it as bad). */
  line(buf: Buffer, start: number, end: number): boolean;
  /** Provider state to carry to the next pass. */
  carry(): unknown;
}

/**
 * `CCTOP_PARSE=full` reads every line with `JSON.parse` instead of the byte extractors: slower, and
 * there so the two can be compared on any history (the tests do, on the corpus).
 */
export const FULL_PARSE = process.env.CCTOP_PARSE === 'full';

/** Turn a projection into a line sink: bytes → record (fast, or by full parse) → parser. */
export function extracting<L>(
  fast: (b: Buffer, s: number, e: number) => L,
  slow: (o: JsonObject) => L,
  feed: (line: L) => void,
): (b: Buffer, s: number, e: number) => boolean {
  if (FULL_PARSE) {
    return (b, s, e) => {
      const o = parseObject(b.toString('utf8', s, e));
      if (o === null) return false;
      feed(slow(o));
      return true;
    };
  }
  return (b, s, e) => {
    let l: L;
    try {
      l = fast(b, s, e);
    } catch (err) {
      // The skim checks a line's shape; a value inside it that is not JSON (a number with a leading
      // zero, a raw control character) surfaces when it is decoded. Either way `JSON.parse` of the
      // line would fail too: the line is bad, the rest of the file is not.
      if (err instanceof SkimError || err instanceof SyntaxError) return false;
      throw err;
    }
    feed(l);
    return true;
  };
}

/** The first bytes of a bad line, as evidence. */
const SAMPLE_BYTES = 240;

/**
 * Read `file` as JSONL from where `previous` stopped (or from the start), feeding each line to the
 * sink that `open` builds around the facts and ledger so far.
 */
export function readJsonl(
  file: SourceFile,
  previous: ParseResult | null,
  open: (facts: FileFacts, carry: unknown, ledger: LedgerBuilder) => LineSink,
): ParseResult {
  const facts: FileFacts = previous ? structuredClone(previous.facts) : emptyFacts();
  const prior: Ledger | null = previous?.ledger ?? null;
  const ledger = new LedgerBuilder(prior?.models ?? [], prior?.data);
  const sink = open(facts, previous?.carry ?? null, ledger);
  const scan = scanLines(file.path, previous?.offset ?? 0, (buf, start, end, unterminated) => {
    if (sink.line(buf, start, end)) {
      facts.lines++;
      return true;
    }
    // The writer may be mid-line: an incomplete last line is left for the next pass, not counted.
    if (unterminated) return false;
    facts.lines++;
    let blank = true;
    for (let i = start; i < end && blank; i++) blank = buf[i] === 0x20 || buf[i] === 0x09 || buf[i] === 0x0d;
    if (!blank) noteBadLine(facts, buf.toString('utf8', start, Math.min(end, start + SAMPLE_BYTES)));
    return false;
  });
  facts.oversizedLines += scan.oversized;
  return {
    facts,
    carry: sink.carry(),
    ledger: ledger.build(),
    offset: scan.end,
    size: scan.size,
    mtimeMs: scan.mtimeMs,
    ino: scan.ino,
    pendingBytes: scan.pendingBytes,
  };
}
