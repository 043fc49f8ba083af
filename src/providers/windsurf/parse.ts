/**
 * Reading a Windsurf chat tab into facts and ledger records: what the index calls for every changed
 * file, and where this provider's parser version is digested from (`index/version.ts`). Not here:
 * finding the files (`place.ts`), or the conversation and calls readers (`index.ts`), so an edit to
 * those does not make the index read the files again.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { emptyFacts, oneLine, tallyTool } from '../../model/facts.js';
import { emptyLedger } from '../../model/ledger.js';
import { splitMember } from '../sqlite.js';
import type { ParseResult, SourceFile } from '../types.js';
import { tabsOf } from './place.js';
import { workspaceFolder } from './record.js';

/** `workspace.json` is one small object; only its first bytes are read. */
const MAX_WORKSPACE_BYTES = 64 << 10;

function projectOf(database: string): string | null {
  let fd: number;
  try {
    fd = openSync(join(dirname(database), 'workspace.json'), 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(MAX_WORKSPACE_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return workspaceFolder(buf.toString('utf8', 0, n));
  } finally {
    closeSync(fd);
  }
}

export function parse(file: SourceFile, _previous: ParseResult | null): ParseResult {
  const m = splitMember(file.path);
  if (m === null) throw Object.assign(new Error('not a Windsurf chat name'), { code: 'ENOENT' });
  const tab = tabsOf(m.database, file).tabs.find((t) => t.id === m.member);
  if (!tab) throw Object.assign(new Error('the chat is gone'), { code: 'ENOENT' });
  const facts = emptyFacts();
  facts.recordsOutcomes = false;
  facts.sessionId = tab.id;
  facts.cwd = projectOf(m.database);
  if (tab.title !== null) facts.titles.custom = oneLine(tab.title);
  for (const name of tab.calls) tallyTool(facts, name);
  facts.lastMs = Math.round(file.mtimeMs);
  facts.lines = 1;
  return {
    facts,
    carry: null,
    ledger: emptyLedger(),
    offset: 0,
    size: file.size,
    mtimeMs: file.mtimeMs,
    ino: file.ino,
    pendingBytes: 0,
  };
}
