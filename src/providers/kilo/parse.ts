/**
 * Reading a Kilo session into facts and ledger records, with OpenCode's readers (its database is
 * OpenCode's): what the index calls for every changed session, and where this provider's parser
 * version is digested from (`index/version.ts`; OpenCode's readers are in its module graph).
 */
import { emptyFacts } from '../../model/facts.js';
import { LedgerBuilder } from '../../model/ledger.js';
import { readSession } from '../opencode/db.js';
import { foldSession } from '../opencode/parser.js';
import { splitMember } from '../sqlite.js';
import type { ParseResult, SourceFile } from '../types.js';

export function parse(file: SourceFile, _previous: ParseResult<null> | null): ParseResult<null> {
  const member = splitMember(file.path);
  const rows = member === null ? null : readSession(member.database, member.member);
  if (rows === null) throw Object.assign(new Error('the session is gone'), { code: 'ENOENT' });
  const facts = emptyFacts();
  const ledger = new LedgerBuilder();
  foldSession(facts, ledger, rows);
  facts.lines = rows.messages.length;
  return {
    facts,
    carry: null,
    ledger: ledger.build(),
    offset: 0,
    size: file.size,
    mtimeMs: file.mtimeMs,
    ino: file.ino,
    pendingBytes: 0,
  };
}
