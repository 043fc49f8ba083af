/**
 * Reading a Pi session file into facts and ledger records: what the index calls for every changed
 * file, and where this provider's parser version is digested from (`index/version.ts`). Not here:
 * finding the files (`place.ts`), or the conversation and calls readers (`index.ts`), so an edit to
 * those does not make the index read the files again.
 */
import { extracting, readJsonl } from '../read.js';
import type { ParseResult, SourceFile } from '../types.js';
import { emptyPiCarry, type PiCarry, PiParser } from './parser.js';
import { lineFromBytes, lineFromJson } from './record.js';

export function parse(file: SourceFile, previous: ParseResult<PiCarry> | null): ParseResult<PiCarry> {
  return readJsonl(file, previous, (facts, carry, ledger) => {
    const parser = new PiParser(facts, carry ?? emptyPiCarry(), ledger);
    const line = extracting(lineFromBytes, lineFromJson, (l) => parser.line(l));
    return { line, carry: () => parser.carry() };
  });
}
