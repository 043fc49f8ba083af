/**
 * Windsurf: `workspaceStorage/<workspace>/state.vscdb` under its user directory (`$WINDSURF_USER_DIR`,
 * else the platform's `Windsurf/User`), one chat tab per session, named `<state.vscdb>#<tab id>`
 * (see `../sqlite.ts`). What the chat data holds is its title and its tool calls: no model, no
 * tokens, no outcomes and no times, so cost and tokens are absent, failures `─`, and the session's
 * last activity is when the database was last written.
 *
 * Finding the chats and the window rules are in `place.ts`; reading one is here.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { emptyFacts, oneLine, tallyTool } from '../../model/facts.js';
import { emptyLedger } from '../../model/ledger.js';
import { splitMember } from '../sqlite.js';
import type { ParseResult, Provider, SourceFile } from '../types.js';
import { tabsOf, windsurfPlace } from './place.js';
import { workspaceFolder } from './record.js';

export { MAX_CHAT_BYTES, windsurfPlace, windsurfRoots } from './place.js';

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

function parse(file: SourceFile, _previous: ParseResult | null): ParseResult {
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

export const windsurf: Provider = { ...windsurfPlace, parse };
