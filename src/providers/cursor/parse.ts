/**
 * Reading a Cursor transcript into facts and ledger records: what the index calls for every changed
 * file, and where this provider's parser version is digested from (`index/version.ts`). Not here:
 * finding the files (`place.ts`), or the conversation and calls readers (`index.ts`), so an edit to
 * those does not make the index read the files again.
 */
import { statSync } from 'node:fs';
import { extracting, readJsonl } from '../read.js';
import type { ParseResult, SourceFile } from '../types.js';
import { CursorParser, stampFileTimes } from './parser.js';
import { lineFromBytes, lineFromJson } from './record.js';

export function parse(file: SourceFile, previous: ParseResult<null> | null): ParseResult<null> {
  const result = readJsonl(file, previous, (facts) => {
    const parser = new CursorParser(facts);
    const line = extracting(lineFromBytes, lineFromJson, (l) => parser.line(l));
    return { line, carry: () => null };
  });
  stampFileTimes(
    result.facts,
    result.mtimeMs,
    statSync(file.path, { throwIfNoEntry: false })?.birthtimeMs ?? 0,
  );
  return result;
}
