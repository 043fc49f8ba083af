/**
 * Gemini CLI: `tmp/<project>/chats/session-*.jsonl` (and the older whole-file `session-*.json`) under
 * `$GEMINI_DIR` (or `$GEMINI_CLI_HOME/.gemini`, or `~/.gemini`); a subagent's chat sits in
 * `chats/<parent session id>/<id>.jsonl` and counts toward its parent. The project's directory is
 * written beside the chats, in `tmp/<project>/.project_root`.
 *
 * A resumed old session is migrated by Gemini CLI into a `.jsonl` of the same name that repeats the
 * whole chat; while both exist only the `.jsonl` is read, so the chat is not counted twice.
 *
 * Finding the chats and the window rules are in `place.ts`; reading them is here.
 */
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { CallCollector, type CallLog } from '../../model/calls.js';
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { emptyFacts, type FileFacts, noteBadLine } from '../../model/facts.js';
import {
  arr,
  type JsonObject,
  obj,
  parseObject,
  parseObjectAt,
  readJson,
  readObjectAt,
} from '../../model/json.js';
import { LedgerBuilder, RECORD_FIELDS } from '../../model/ledger.js';
import { isBlank, scanLines } from '../jsonl.js';
import type { ConversationOptions, ParseResult, Provider, SourceFile } from '../types.js';
import { GeminiCalls } from './calls.js';
import { GeminiReplay, geminiMessage, MAX_REWINDS } from './conversation.js';
import { GeminiChat, isGeminiCarry } from './parser.js';
import { geminiPlace, SESSION_ID } from './place.js';
import { conversationFrom, lineFromJson } from './record.js';

export { DEFAULT_COMPACT_RATIO, DEFAULT_WINDOW, geminiPlace, geminiRoots } from './place.js';

/**
 * A whole-file chat is parsed in one piece; past this it is reported, not read. The largest seen is
 * under half a megabyte; a chat file of hundreds of megabytes is not one Gemini CLI would load either.
 */
export const MAX_WHOLE_FILE_BYTES = 64 << 20;

/** `.project_root` holds one path; anything longer is not one. */
const MAX_PROJECT_ROOT_BYTES = 4096;

/** The project directory Gemini CLI wrote beside the chats (`tmp/<project>/.project_root`). */
function projectRoot(chatPath: string): string | null {
  const parts = chatPath.split(sep);
  const at = parts.lastIndexOf('chats');
  if (at <= 0) return null;
  const path = [...parts.slice(0, at), '.project_root'].join(sep);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(MAX_PROJECT_ROOT_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.toString('utf8', 0, n).trim();
    return text.length > 0 && n < MAX_PROJECT_ROOT_BYTES && !text.includes('\n') ? text : null;
  } finally {
    closeSync(fd);
  }
}

function parseJsonl(file: SourceFile, previous: ParseResult | null): ParseResult {
  const carry = previous !== null && isGeminiCarry(previous.carry) ? previous.carry : null;
  const tail = previous !== null && carry !== null;
  let facts: FileFacts;
  let ledger: LedgerBuilder;
  if (tail) {
    facts = structuredClone(carry.settled);
    const settled = previous.ledger.data.subarray(0, carry.settledRecords * RECORD_FIELDS);
    ledger = new LedgerBuilder(previous.ledger.models, settled);
  } else {
    facts = emptyFacts();
    facts.cwd = projectRoot(file.path);
    ledger = new LedgerBuilder();
  }
  const chat = new GeminiChat(facts, carry?.window ?? [], tail);
  const before = facts.lines;
  const scan = scanLines(file.path, tail ? previous.offset : 0, (buf, start, end, unterminated, index) => {
    if (chat.restart) return false;
    const r = readObjectAt(buf, start, end);
    if (r.kind === 'bad') {
      // The writer may be mid-line: an incomplete last line is left for the next pass, not counted.
      if (unterminated) return false;
      if (!isBlank(buf, start, end)) noteBadLine(facts, before + index + 1, r.reason);
      return false;
    }
    chat.line(lineFromJson(r.value));
    return true;
  });
  if (chat.restart) return parseJsonl(file, null);
  facts.lines = before + scan.lines;
  facts.oversizedLines += scan.oversized;
  const done = chat.finish(ledger);
  return {
    facts: done.facts,
    carry: done.carry,
    ledger: ledger.build(),
    offset: scan.end,
    size: scan.size,
    mtimeMs: scan.mtimeMs,
    ino: scan.ino,
    pendingBytes: scan.pendingBytes,
  };
}

/** A whole-file `session-*.json`: rewritten in place, so always read from the start. */
function parseWholeFile(file: SourceFile): ParseResult {
  const facts = emptyFacts();
  facts.cwd = projectRoot(file.path);
  const ledger = new LedgerBuilder();
  const fd = openSync(file.path, 'r');
  let st: ReturnType<typeof fstatSync>;
  let text: string | null = null;
  try {
    st = fstatSync(fd);
    if (st.size > MAX_WHOLE_FILE_BYTES) facts.oversizedLines = 1;
    else text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  if (text !== null) {
    facts.lines = 1;
    const r = readJson(text);
    const o = r.kind === 'read' ? obj(r.value) : null;
    if (o === null) noteBadLine(facts, 1, r.kind === 'bad' ? r.reason : 'not-json-object');
    else {
      const { meta, messages } = conversationFrom(o);
      const chat = new GeminiChat(facts, [], false);
      chat.line({ kind: 'header', meta });
      for (const message of messages) chat.line({ kind: 'message', message });
      chat.finish(ledger);
    }
  }
  return {
    facts,
    carry: null,
    ledger: ledger.build(),
    offset: st.size,
    size: st.size,
    mtimeMs: st.mtimeMs,
    ino: st.ino,
    pendingBytes: 0,
  };
}

function parse(file: SourceFile, previous: ParseResult | null): ParseResult {
  return file.path.endsWith('.json') ? parseWholeFile(file) : parseJsonl(file, previous);
}

/** A subagent's chat is `<its id>.jsonl`: anything but a plain token is refused, not resolved. */
const AGENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Bytes read to find a chat's session id: the JSONL header line is a few hundred bytes, and the
 * whole-file form writes `sessionId` first.
 */
const MAX_HEADER_BYTES = 64 << 10;

/** The session id a chat file names in its header, which names its subagents' folder. */
function sessionIdOf(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(MAX_HEADER_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const m = /"sessionId"\s*:\s*"([^"\\]{1,128})"/.exec(buf.toString('utf8', 0, n));
    return m && SESSION_ID.test(m[1]!) ? m[1]! : null;
  } finally {
    closeSync(fd);
  }
}

const REWIND_MARK = Buffer.from('"$rewindTo"');

/**
 * The first pass over a JSONL chat: which message each `$rewindTo` takes back, and on which line
 * (lines numbered as `scanLines` offers them, the same in both passes).
 */
function rewindsOf(path: string): Map<string, number> {
  const rewinds = new Map<string, number>();
  let n = 0;
  scanLines(path, 0, (buf, start, end) => {
    const at = n++;
    const mark = buf.indexOf(REWIND_MARK, start);
    if (mark === -1 || mark >= end || rewinds.size >= MAX_REWINDS) return true;
    const to = parseObjectAt(buf, start, end)?.$rewindTo;
    if (typeof to === 'string') rewinds.set(to, at);
    return true;
  });
  return rewinds;
}

/**
 * Every message of a chat as it stands (the newest copy of each, rewound ones left out), in order;
 * throws with what is wrong when the file cannot be read as a chat.
 */
function eachMessage(file: string, each: (message: JsonObject) => void): void {
  if (file.endsWith('.json')) {
    if (statSync(file).size > MAX_WHOLE_FILE_BYTES) throw new Error('the chat file is too large to read');
    const chat = parseObject(readFileSync(file, 'utf8'));
    if (chat === null) throw new Error('the chat file is not a Gemini CLI chat (not a JSON object)');
    for (const m of arr(chat.messages) ?? []) {
      const message = obj(m);
      if (message !== null) each(message);
    }
    return;
  }
  const replay = new GeminiReplay(each, rewindsOf(file));
  let n = 0;
  scanLines(file, 0, (buf, start, end, unterminated) => {
    const line = parseObjectAt(buf, start, end);
    if (line === null && unterminated) return false;
    const at = n++;
    if (line !== null) replay.line(at, line);
    return true;
  });
  replay.finish();
}

/** The conversation of a chat, or of one of its subagents (`chats/<session id>/<agent>.jsonl`). */
function conversation(path: string, o: ConversationOptions): Conversation {
  let file = path;
  if (o.agent !== null) {
    if (!AGENT_ID.test(o.agent)) return unsupported(`"${o.agent.slice(0, 40)}" is not an agent id`);
    const session = sessionIdOf(path);
    const sub = session === null ? null : join(dirname(path), session, `${o.agent}.jsonl`);
    if (sub === null || !statSync(sub, { throwIfNoEntry: false })?.isFile())
      return unsupported(`this session has no subagent ${o.agent}`);
    file = sub;
  }
  const sink = new TurnSink(o.before);
  try {
    eachMessage(file, (m) => geminiMessage(sink, m));
  } catch (err) {
    return unsupported(`could not read the chat: ${(err as Error).message}`);
  }
  return sink.finish();
}

/** The calls of a chat, then of its subagents' chats (`chats/<session id>/<agent>.jsonl`). */
function calls(path: string): CallLog {
  const c = new CallCollector('before');
  const main = new GeminiCalls(c);
  eachMessage(path, (m) => main.message(m));
  const session = sessionIdOf(path);
  let names: string[] = [];
  try {
    if (session !== null) names = readdirSync(join(dirname(path), session));
  } catch {
    // no subagents
  }
  for (const name of names.sort()) {
    const agent = name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : '';
    if (!AGENT_ID.test(agent)) continue;
    const sub = new GeminiCalls(c, agent);
    try {
      eachMessage(join(dirname(path), session!, name), (m) => sub.message(m));
    } catch {
      // a subagent's chat that went away or is not one: the session's own calls still stand
    }
  }
  return c.log;
}

export const gemini: Provider = { ...geminiPlace, parse, conversation, calls };
