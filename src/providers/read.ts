/**
 * The I/O around a line parser: open a transcript, feed its lines from an offset, count what could
 * not be read. Parsers stay pure functions over records.
 */
import { emptyFacts, type FileFacts, noteBadLine } from '../model/facts.js';
import { type BadLineReason, type JsonObject, readObjectAt } from '../model/json.js';
import { type Ledger, LedgerBuilder } from '../model/ledger.js';
import type { DriftTally } from './drift.js';
import { isBlank, scanLines } from './jsonl.js';
import { objectLine, SkimError } from './skim.js';
import type { ParseResult, SourceFile } from './types.js';

/** What became of one line: read, or why it is bad (the caller counts it). */
export type LineVerdict = 'read' | BadLineReason;

export interface LineSink<C> {
  /** Feed one line; `lineNo` is its number in the file, from 1. */
  line(buf: Buffer, start: number, end: number, lineNo: number): LineVerdict;
  /** Provider state to carry to the next pass. */
  carry(): C;
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
): (b: Buffer, s: number, e: number) => LineVerdict {
  if (FULL_PARSE) {
    return (b, s, e) => {
      const r = readObjectAt(b, s, e);
      if (r.kind === 'bad') return r.reason;
      feed(slow(r.value));
      return 'read';
    };
  }
  return (b, s, e) => {
    let l: L;
    try {
      l = fast(b, s, e);
    } catch (err) {
      // The skim holds a line to JSON's grammar, but for its named gap (`skim-walk.ts`): a raw
      // control byte or a bad escape past a string's first bytes surfaces only if the string is
      // decoded. Either way a full parse would refuse the line too: the line is bad, the rest of the
      // file is not.
      if (err instanceof SkimError) return err.reason;
      if (err instanceof SyntaxError) return 'not-json-object';
      throw err;
    }
    feed(l);
    return 'read';
  };
}

/**
 * The line sink of a harness whose lines are small enough to be parsed whole (no byte extractor):
 * each line's object is shown to `drift` before it is projected and fed to `parser`, so what the
 * reader does not know is looked at in the object already parsed, never in a second parse.
 */
export function parsedLines<C, L>(
  parser: { line(l: L): void; carry(): C },
  drift: DriftTally,
  project: (o: JsonObject) => L,
): LineSink<C> {
  let at = 0;
  const seen = (o: JsonObject) => {
    drift.object(o, at);
    return project(o);
  };
  const read = extracting(
    (b, s, e) => seen(objectLine(b, s, e)),
    seen,
    (l) => parser.line(l),
  );
  return {
    line: (b, s, e, lineNo) => {
      at = lineNo;
      return read(b, s, e);
    },
    carry: () => parser.carry(),
  };
}

/**
 * Read `file` as JSONL from where `previous` stopped (or from the start), feeding each line to the
 * sink that `open` builds around the facts and ledger so far.
 */
export function readJsonl<C>(
  file: SourceFile,
  previous: ParseResult<C> | null,
  open: (facts: FileFacts, carry: C | null, ledger: LedgerBuilder) => LineSink<C>,
): ParseResult<C> {
  const facts: FileFacts = previous ? structuredClone(previous.facts) : emptyFacts();
  const prior: Ledger | null = previous?.ledger ?? null;
  const ledger = new LedgerBuilder(prior?.models ?? [], prior?.data, prior?.toolSets);
  const sink = open(facts, previous?.carry ?? null, ledger);
  const before = facts.lines;
  const scan = scanLines(file.path, previous?.offset ?? 0, (buf, start, end, unterminated, index) => {
    const verdict = sink.line(buf, start, end, before + index + 1);
    if (verdict === 'read') return true;
    // The writer may be mid-line: an incomplete last line is left for the next pass, not counted.
    if (unterminated) return false;
    if (!isBlank(buf, start, end)) noteBadLine(facts, before + index + 1, verdict);
    return false;
  });
  facts.lines = before + scan.lines;
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
