/**
 * Reading a Codex rollout into facts and ledger records: what the index calls for every changed file,
 * and where this provider's parser version is digested from (`index/version.ts`). Not here: finding
 * the files (`place.ts`), or the conversation and calls readers (`index.ts`), so an edit to those does
 * not make the index read the files again.
 */
import { DriftTally } from '../drift.js';
import { extracting, readJsonl } from '../read.js';
import type { ParseResult, SourceFile } from '../types.js';
import { lineFromBytes, payloadLog, topLog } from './bytes.js';
import { CODEX_DRIFT, peekCodexType } from './known.js';
import { type CodexCarry, CodexParser, emptyCodexCarry } from './parser.js';
import { lineFromJson } from './record.js';

export function parse(file: SourceFile, previous: ParseResult<CodexCarry> | null): ParseResult<CodexCarry> {
  return readJsonl(file, previous, (facts, carry, ledger) => {
    const parser = new CodexParser(facts, carry ?? emptyCodexCarry(), ledger);
    const drift = new DriftTally(facts, CODEX_DRIFT);
    const read = extracting(lineFromBytes, lineFromJson, (l) => parser.line(l));
    return {
      line: (b, s, e, lineNo) => {
        const verdict = read(b, s, e);
        // What this reader does not know, by the type the line's first bytes name.
        if (verdict === 'read') drift.line(b, s, e, lineNo, peekCodexType(b, s, e));
        // The walk's logs of the line hold its buffer, which may be a long line's: let them go.
        topLog.clear();
        payloadLog.clear();
        return verdict;
      },
      carry: () => parser.carry(),
    };
  });
}
