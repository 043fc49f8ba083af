/**
 * Reading an OpenClaw session (a file, or a session's rows in its store) into facts and ledger
 * records: what the index calls for every changed source, and where this provider's parser version is
 * digested from (`index/version.ts`). Not here: finding the sessions (`place.ts`, `store.ts`), or the
 * conversation and calls readers (`index.ts`).
 */
import { emptyFacts, type FileFacts, noteBadLine } from '../../model/facts.js';
import { obj, readJson } from '../../model/json.js';
import { LedgerBuilder } from '../../model/ledger.js';
import { extracting, readJsonl } from '../read.js';
import { splitMember } from '../sqlite.js';
import { memberRead } from '../sqlite-members.js';
import type { ParseResult, SourceFile } from '../types.js';
import { type ClawCarry, ClawParser, emptyClawCarry } from './parser.js';
import { lineFromBytes, lineFromJson } from './record.js';
import { eachStoredEvent } from './store.js';

export function parse(file: SourceFile, previous: ParseResult<ClawCarry> | null): ParseResult<ClawCarry> {
  // A session in the store is read whole each time its rows move (`store.ts`); a file is tailed.
  if (splitMember(file.path) !== null) return parseStored(file);
  return readJsonl(file, previous, (facts, carry, ledger) => {
    const parser = new ClawParser(facts, carry ?? emptyClawCarry(), ledger);
    const line = extracting(lineFromBytes, lineFromJson, (l) => parser.line(l));
    return { line, carry: () => parser.carry() };
  });
}

/** A stored session read whole into facts: each row is a line of its session file. */
export function parseStored(file: SourceFile): ParseResult<ClawCarry> {
  const facts: FileFacts = emptyFacts();
  const ledger = new LedgerBuilder();
  const parser = new ClawParser(facts, emptyClawCarry(), ledger);
  const found = eachStoredEvent(file.path, (e, line) => {
    facts.lines = line;
    if (e.kind === 'bad') {
      noteBadLine(facts, line, e.reason);
      return;
    }
    const r = readJson(e.json);
    const o = r.kind === 'read' ? obj(r.value) : null;
    if (o === null) noteBadLine(facts, line, r.kind === 'bad' ? r.reason : 'not-json-object');
    else parser.line(lineFromJson(o));
  });
  if (!found) throw Object.assign(new Error('not an OpenClaw session name'), { code: 'ENOENT' });
  facts.sessionId ??= file.sessionHint;
  return memberRead(file, facts, ledger.build(), parser.carry());
}
