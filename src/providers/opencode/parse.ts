/**
 * Reading an OpenCode session (database rows or the `storage/` tree) into facts and ledger records:
 * what the index calls for every changed file, and where this provider's parser version is digested
 * from (`index/version.ts`). Not here: finding the files (`place.ts`), or the conversation and calls
 * readers (`index.ts`). The rows are decoded by the conversation's own part readers
 * (`conversation.ts`), so an edit there does read the files again.
 */
import { basename } from 'node:path';
import { emptyFacts } from '../../model/facts.js';
import { LedgerBuilder } from '../../model/ledger.js';
import { DriftTally } from '../drift.js';
import { splitMember } from '../sqlite.js';
import { memberRead } from '../sqlite-members.js';
import type { ParseResult, SourceFile } from '../types.js';
import { readSession } from './db.js';
import { driftRecords, OPENCODE_DRIFT } from './known.js';
import { foldSession } from './parser.js';
import { DATABASE_NAME } from './place.js';
import { readStoredSession } from './storage.js';

export function parse(file: SourceFile, _previous: ParseResult<null> | null): ParseResult<null> {
  const member = splitMember(file.path);
  const rows =
    member !== null && DATABASE_NAME.test(basename(member.database))
      ? readSession(member.database, member.member)
      : readStoredSession(file.path);
  if (rows === null) {
    throw Object.assign(new Error('the session is gone'), { code: 'ENOENT' });
  }
  const facts = emptyFacts();
  const ledger = new LedgerBuilder();
  foldSession(facts, ledger, rows);
  // What this reader does not know: each row counts as a line, in the order the rows were read.
  const drift = new DriftTally(facts, OPENCODE_DRIFT);
  let at = 0;
  for (const r of driftRecords(rows)) drift.object(r, ++at);
  facts.lines = rows.messages.length;
  if (rows.unread) {
    // Each file of a `storage/` tree is one record, as a line is of a transcript.
    facts.lines += rows.unread.count;
    facts.badLines += rows.unread.count;
    facts.firstBad = { line: 1, ...rows.unread.first };
  }
  facts.oversizedLines += rows.oversized ?? 0;
  return memberRead(file, facts, ledger.build());
}
