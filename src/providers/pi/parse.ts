/**
 * Reading a Pi session file into facts and ledger records: what the index calls for every changed
 * file, and where this provider's parser version is digested from (`index/version.ts`). Not here:
 * finding the files (`place.ts`), or the conversation and calls readers (`index.ts`), so an edit to
 * those does not make the index read the files again.
 */
import { DriftTally } from '../drift.js';
import { parsedLines, readJsonl } from '../read.js';
import type { ParseResult, SourceFile } from '../types.js';
import { PI_DRIFT } from './known.js';
import { emptyPiCarry, type PiCarry, PiParser } from './parser.js';
import { lineFromJson } from './record.js';

export function parse(file: SourceFile, previous: ParseResult<PiCarry> | null): ParseResult<PiCarry> {
  return readJsonl(file, previous, (facts, carry, ledger) =>
    // Every line is parsed whole here: what this reader does not know is looked at in the same object.
    parsedLines(
      new PiParser(facts, carry ?? emptyPiCarry(), ledger),
      new DriftTally(facts, PI_DRIFT),
      lineFromJson,
    ),
  );
}
