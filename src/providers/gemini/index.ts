/**
 * Gemini CLI: `tmp/<project>/chats/session-*.jsonl` (and the older whole-file `session-*.json`) under
 * `$GEMINI_DIR` (or `$GEMINI_CLI_HOME/.gemini`, or `~/.gemini`); a subagent's chat sits in
 * `chats/<parent session id>/<id>.jsonl` and counts toward its parent. The project's directory is
 * written beside the chats, in `tmp/<project>/.project_root`.
 *
 * A resumed old session is migrated by Gemini CLI into a `.jsonl` of the same name that repeats the
 * whole chat; while both exist only the `.jsonl` is read, so the chat is not counted twice.
 *
 * Finding the chats and the window rules are in `place.ts`; reading them into facts
 * is `parse.ts`; their conversations and calls are here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CallCollector, type CallLog } from '../../model/calls.js';
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { arr, type JsonObject, obj, parseObject, parseObjectAt, str, text } from '../../model/json.js';
import { readHead } from '../fsutil.js';
import { scanLines } from '../jsonl.js';
import type { CallOutcome, ConversationOptions, Provider } from '../types.js';
import { GeminiCalls } from './calls.js';
import { GeminiReplay, geminiMessage, IN_FLIGHT, MAX_REWINDS } from './conversation.js';
import { MAX_WHOLE_FILE_BYTES, parse } from './parse.js';
import { type GeminiCarry, readGeminiCarry } from './parser.js';
import { geminiPlace, SESSION_ID } from './place.js';
import { callFailed, shellExitCode } from './record.js';

export { MAX_WHOLE_FILE_BYTES } from './parse.js';
export { DEFAULT_COMPACT_RATIO, DEFAULT_WINDOW, geminiPlace, geminiRoots } from './place.js';

/** A subagent's chat is `<its id>.jsonl`: anything but a plain token is refused, not resolved. */
const AGENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Bytes read to find a chat's session id: the JSONL header line is a few hundred bytes, and the
 * whole-file form writes `sessionId` first.
 */
const MAX_HEADER_BYTES = 64 << 10;

/** The session id a chat file names in its header, which names its subagents' folder. */
function sessionIdOf(path: string): string | null {
  const head = readHead(path, MAX_HEADER_BYTES);
  const m = head === null ? null : /"sessionId"\s*:\s*"([^"\\]{1,128})"/.exec(head.text);
  return m && SESSION_ID.test(m[1]!) ? m[1]! : null;
}

/**
 * Calls one chat's outcomes list: a driven run settles its own few, and a chat with more calls than
 * this has never been seen (the report's own bound per message is 512).
 */
const MAX_CALL_OUTCOMES = 10_000;

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
  const sink = new TurnSink(o.before, o.feed);
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

/**
 * Every finished call of a chat by Gemini CLI's call id, failed as the report reads it: a shell
 * command that exited non-zero failed whatever status Gemini CLI gave it (its stream says `success`).
 */
function callOutcomes(path: string): CallOutcome[] {
  const out: CallOutcome[] = [];
  eachMessage(path, (m) => {
    if (str(m.type) !== 'gemini') return;
    for (const raw of arr(m.toolCalls) ?? []) {
      const call = obj(raw);
      const id = call === null ? null : text(call.id);
      if (call === null || id === null || out.length >= MAX_CALL_OUTCOMES) continue;
      const status = str(call.status);
      if (status === null || IN_FLIGHT.has(status)) continue;
      const exitCode = shellExitCode(call);
      out.push({ id, name: text(call.name) ?? 'tool', failed: callFailed(status, exitCode), exitCode });
    }
  });
  return out;
}

export const gemini: Provider<'gemini', GeminiCarry | null> = {
  ...geminiPlace,
  parse,
  readCarry: readGeminiCarry,
  conversation,
  calls,
  callOutcomes,
};
