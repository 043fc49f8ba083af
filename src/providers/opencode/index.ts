/**
 * OpenCode: its data directory (`$OPENCODE_DATA_DIR`, else `$XDG_DATA_HOME/opencode`, else
 * `~/.local/share/opencode`) holds the `opencode*.db` database of 1.2 and later and, from before,
 * the `storage/` tree of JSON files (see `db.ts` and `storage.ts`). A session is counted once: from
 * the database when it is there, else from the tree.
 *
 * A database session is named `<database>#<session id>` (see `../sqlite.ts`). A child session (a
 * task OpenCode ran for the main one) counts toward the session at the top of its chain, as a
 * subagent's transcript does for Claude Code.
 */
import { basename, join } from 'node:path';
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { emptyFacts } from '../../model/facts.js';
import { LedgerBuilder } from '../../model/ledger.js';
import { describeFsError, type ProblemLog } from '../../model/problems.js';
import { home, isDir, isFile, list, statOf } from '../fsutil.js';
import { splitMember, validMember } from '../sqlite.js';
import {
  type ConversationOptions,
  type Env,
  type ParseResult,
  type Provider,
  type Root,
  reportedOrKnownWindow,
  type SourceFile,
} from '../types.js';
import { OpenCodeConversation } from './conversation.js';
import { DATABASE_NAME, isChildOf, listSessions, readChat, readSession } from './db.js';
import { foldSession } from './parser.js';
import { sessionFrom } from './record.js';
import { fingerprint, readJsonFile, readStoredChat, readStoredSession, storedChild } from './storage.js';

const first = (v: string | undefined): string | null => (v && v.length > 0 ? v : null);

export function opencodeRoots(env: Env): Root[] {
  const dir = first(env.OPENCODE_DATA_DIR);
  if (dir) return [{ path: dir, origin: '$OPENCODE_DATA_DIR' }];
  const xdg = first(env.XDG_DATA_HOME);
  if (xdg) return [{ path: join(xdg, 'opencode'), origin: '$XDG_DATA_HOME' }];
  return [{ path: join(home(env), '.local', 'share', 'opencode'), origin: 'default' }];
}

function fromDatabases(root: Root, problems: ProblemLog, out: SourceFile[]): Set<string> {
  const ids = new Set<string>();
  for (const e of list(root.path, problems) ?? []) {
    if (!DATABASE_NAME.test(e.name) || !isFile(root.path, e)) continue;
    const path = join(root.path, e.name);
    const st = statOf(path, problems);
    if (!st) continue;
    try {
      for (const s of listSessions(path)) {
        ids.add(s.id);
        out.push({
          provider: 'opencode',
          path: s.path,
          root: root.path,
          sessionHint: s.root,
          role: s.isChild ? 'subagent' : 'main',
          size: s.rows,
          mtimeMs: s.updatedMs,
          ino: st.ino,
        });
      }
    } catch (err) {
      problems.add({
        kind: 'unreadable',
        path,
        count: null,
        detail: `the OpenCode database could not be read (${describeFsError(err)}); its sessions are not shown`,
      });
    }
  }
  return ids;
}

function fromStorage(root: Root, inDatabase: Set<string>, problems: ProblemLog, out: SourceFile[]): void {
  const sessions = join(root.path, 'storage', 'session');
  for (const project of list(sessions, problems) ?? []) {
    if (!isDir(sessions, project)) continue;
    const dir = join(sessions, project.name);
    for (const e of list(dir, problems) ?? []) {
      if (!e.name.endsWith('.json') || !isFile(dir, e)) continue;
      const path = join(dir, e.name);
      const raw = readJsonFile(path);
      const s = raw ? sessionFrom(raw) : null;
      if (!s || inDatabase.has(s.id)) continue;
      const st = statOf(path, problems);
      if (!st) continue;
      const [size, mtimeMs] = fingerprint(path, s.id, st.size, st.mtimeMs);
      out.push({
        provider: 'opencode',
        path,
        root: root.path,
        sessionHint: s.parentId ?? s.id,
        role: s.parentId === null ? 'main' : 'subagent',
        size,
        mtimeMs,
        ino: st.ino,
      });
    }
  }
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) fromStorage(root, fromDatabases(root, problems, out), problems, out);
  return out;
}

function parse(file: SourceFile, _previous: ParseResult | null): ParseResult {
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
  facts.lines = rows.messages.length;
  return {
    facts,
    carry: null,
    ledger: ledger.build(),
    // Rows are re-read whole: there is no offset to continue from.
    offset: 0,
    size: file.size,
    mtimeMs: file.mtimeMs,
    ino: file.ino,
    pendingBytes: 0,
  };
}

/** A child session is named by its id (`ses_…`): anything but a plain token is refused. */
const AGENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The conversation of a session (a database member or a legacy session file), or of one of its child
 * sessions: a task OpenCode ran for it, named by the child's session id.
 */
function conversation(path: string, o: ConversationOptions): Conversation {
  if (o.agent !== null && (!AGENT_ID.test(o.agent) || !validMember(o.agent)))
    return unsupported(`"${o.agent.slice(0, 40)}" is not a session id`);
  const sink = new TurnSink(o.before);
  const reader = new OpenCodeConversation(sink);
  const each = reader.message.bind(reader);
  try {
    const member = splitMember(path);
    let found: boolean;
    if (member !== null && DATABASE_NAME.test(basename(member.database))) {
      const id = o.agent ?? member.member;
      if (o.agent !== null && !isChildOf(member.database, o.agent, member.member))
        return unsupported(`this session has no task ${o.agent}`);
      found = readChat(member.database, id, each);
    } else {
      const file = o.agent === null ? path : storedChild(path, o.agent);
      if (file === null) return unsupported(`this session has no task ${o.agent}`);
      found = readStoredChat(file, each);
    }
    if (!found) return unsupported('the session is gone');
    reader.finish();
  } catch (err) {
    return unsupported(`could not read the session: ${(err as Error).message}`);
  }
  return sink.finish();
}

export const opencode: Provider = {
  id: 'opencode',
  label: 'OpenCode',
  vendor: null,
  // Rows change in place: a changed session is read again whole.
  appendOnly: false,
  bundledUnderMax: false,
  roots: opencodeRoots,
  discover,
  parse,
  // OpenCode compacts when the next request would not fit, not at a fraction of the window.
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
  conversation,
};
