/**
 * Reading a Codex rollout into facts and ledger records: what the index calls for every changed file,
 * and where this provider's parser version is digested from (`index/version.ts`). Not here: finding
 * the files (`place.ts`), or the conversation and calls readers (`index.ts`), so an edit to those does
 * not make the index read the files again.
 */
import { extracting, readJsonl } from '../read.js';
import type { ParseResult, SourceFile } from '../types.js';
import { lineFromBytes } from './bytes.js';
import { type CodexCarry, CodexParser, emptyCodexCarry } from './parser.js';
import { lineFromJson } from './record.js';

export function parse(file: SourceFile, previous: ParseResult<CodexCarry> | null): ParseResult<CodexCarry> {
  return readJsonl(file, previous, (facts, carry, ledger) => {
    const parser = new CodexParser(facts, carry ?? emptyCodexCarry(), ledger);
    const line = extracting(lineFromBytes, lineFromJson, (l) => parser.line(l));
    return { line, carry: () => parser.carry() };
  });
}
