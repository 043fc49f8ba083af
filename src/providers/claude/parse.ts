/**
 * Reading a Claude Code transcript into facts and ledger records: what the index calls for every
 * changed file, and where this provider's parser version is digested from (`index/version.ts`). Not
 * here: finding the files (`place.ts`), or the conversation and calls readers (`index.ts`), so an edit
 * to those does not make the index read the files again.
 */
import { DriftTally } from '../drift.js';
import { extracting, readJsonl } from '../read.js';
import type { ParseResult, SourceFile } from '../types.js';
import { lineFromBytes } from './bytes.js';
import { topLog } from './bytes-walk.js';
import { CLAUDE_DRIFT } from './known.js';
import { type ClaudeCarry, ClaudeParser, emptyClaudeCarry } from './parser.js';
import { lineFromJson } from './record.js';

export function parse(file: SourceFile, previous: ParseResult<ClaudeCarry> | null): ParseResult<ClaudeCarry> {
  return readJsonl(file, previous, (facts, carry, ledger) => {
    const parser = new ClaudeParser(facts, carry ?? emptyClaudeCarry(), ledger, file.role === 'subagent');
    const drift = new DriftTally(facts, CLAUDE_DRIFT);
    let type: string | null | undefined;
    const read = extracting(lineFromBytes, lineFromJson, (l) => {
      type = l.type;
      parser.line(l);
    });
    return {
      line: (b, s, e, lineNo) => {
        type = undefined;
        const verdict = read(b, s, e);
        // What this reader does not know, counted from the type the extractor already read.
        if (verdict === 'read') drift.line(b, s, e, lineNo, type);
        // The walk's log of the line holds its buffer, which may be a long line's: let it go.
        topLog.clear();
        return verdict;
      },
      carry: () => parser.carry(),
    };
  });
}
