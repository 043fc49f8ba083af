/**
 * Reading an Amp thread into facts and ledger records: what the index calls for every changed file,
 * and where this provider's parser version is digested from (`index/version.ts`). Not here: finding
 * the threads (`place.ts`) or reading a conversation (`index.ts`).
 */
import type { ParseResult, SourceFile } from '../types.js';
import { readWholeJson } from '../whole-json.js';
import { readThread } from './parser.js';
import { threadFrom } from './record.js';

export function parse(file: SourceFile): ParseResult<null> {
  return readWholeJson(file, (o, facts, ledger) => readThread(threadFrom(o), facts, ledger));
}
