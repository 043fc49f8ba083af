/**
 * Reading a Codebuff chat into facts and ledger records: what the index calls for every changed
 * chat, and where this provider's parser version is digested from (`index/version.ts`). Not here:
 * finding the chats (`place.ts`) or reading a conversation (`index.ts`).
 */
import type { ParseResult, SourceFile } from '../types.js';
import { readWholeJsonArray } from '../whole-json.js';
import { readChat } from './parser.js';
import { chatSession } from './place.js';

export function parse(file: SourceFile): ParseResult<null> {
  return readWholeJsonArray(file, (messages, facts, ledger) =>
    readChat(messages, chatSession(file.path), file.mtimeMs, facts, ledger),
  );
}
