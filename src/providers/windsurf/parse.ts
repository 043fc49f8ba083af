import { dirname, join } from 'node:path';
import { emptyFacts, oneLine, tallyTool } from '../../model/facts.js';
import { emptyLedger } from '../../model/ledger.js';
import { readHead } from '../fsutil.js';
import { splitMember } from '../sqlite.js';
import { memberRead } from '../sqlite-members.js';
import type { ParseResult, SourceFile } from '../types.js';
import { tabsOf } from './place.js';
import { workspaceFolder } from './record.js';

/** `workspace.json` is one small object; only its first bytes are read. */
const MAX_WORKSPACE_BYTES = 64 << 10;

function projectOf(database: string): string | null {
  const head = readHead(join(dirname(database), 'workspace.json'), MAX_WORKSPACE_BYTES);
  return head === null ? null : workspaceFolder(head.text);
}

export function parse(file: SourceFile, _previous: ParseResult<null> | null): ParseResult<null> {
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
  return memberRead(file, facts, emptyLedger());
}
