/**
 * The I/O around a line parser: open a transcript, feed its lines from an offset, count what could
 * not be read. Parsers stay pure functions over records.
 */
import { emptyFacts, type FileFacts, noteBadLine } from '../model/facts.js';
import { type JsonObject, parseObject } from '../model/json.js';
import { type Ledger, LedgerBuilder } from '../model/ledger.js';
import { scanLines } from './jsonl.js';
import type { ParseResult, SourceFile } from './types.js';

export interface LineSink {
  /** A line that parsed as a JSON object. */
  object(o: JsonObject): void;
  /** Provider state to carry to the next pass. */
  carry(): unknown;
}

/**
 * Read `file` as JSONL from where `previous` stopped (or from the start), feeding each object to the
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
    const text = buf.toString('utf8', start, end);
    const o = parseObject(text);
    if (unterminated) {
      // The writer may be mid-line: take it only if it is already complete.
      if (o === null) return false;
    }
    facts.lines++;
    if (o === null) {
      if (text.trim().length > 0) noteBadLine(facts, text);
      return false;
    }
    sink.object(o);
    return true;
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
