/**
 * Reading an OpenClaw session file into facts and ledger records: what the index calls for every
 * changed file, and where this provider's parser version is digested from (`index/version.ts`). Not
 * here: finding the files (`place.ts`), or the conversation and calls readers (`index.ts`).
 */
import { extracting, readJsonl } from '../read.js';
import type { ParseResult, SourceFile } from '../types.js';
import { type ClawCarry, ClawParser, emptyClawCarry } from './parser.js';
import { lineFromBytes, lineFromJson } from './record.js';

export function parse(file: SourceFile, previous: ParseResult<ClawCarry> | null): ParseResult<ClawCarry> {
  return readJsonl(file, previous, (facts, carry, ledger) => {
    const parser = new ClawParser(facts, carry ?? emptyClawCarry(), ledger);
    const line = extracting(lineFromBytes, lineFromJson, (l) => parser.line(l));
    return { line, carry: () => parser.carry() };
  });
}
