/**
 * GitHub Copilot CLI: `session-state/<id>/events.jsonl` under `$COPILOT_HOME` or `~/.copilot`, and
 * the older flat `session-state/<id>.jsonl` (and `history-session-state/<id>.jsonl`). Beside an
 * `events.jsonl`, `workspace.yaml` holds the summary Copilot wrote for the session: its title.
 * Finding the sessions and the window rules are in `place.ts`; reading them into facts (the title
 * included) is `parse.ts`; their conversations and calls are here. Its OpenTelemetry exports add a
 * session's requests where they are kept (`otel.ts`), and hold no conversation.
 */
import type { CallLog } from '../../model/calls.js';
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { type JsonObject, obj, parseObjectAt, text } from '../../model/json.js';
import { scanLines } from '../jsonl.js';
import { splitMember } from '../sqlite-members.js';
import type { ConversationOptions, Provider } from '../types.js';
import { CopilotCalls } from './calls.js';
import { CopilotConversation } from './conversation.js';
import { parse } from './parse.js';
import { type CopilotCarry, readCopilotCarry } from './parser.js';
import { copilotPlace } from './place.js';

export { workspaceSummary } from './parse.js';
export { copilotPlace, copilotRoots } from './place.js';

/** A subagent is named by the call that started it: anything but a plain token is refused. */
const AGENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** `session.snapshot_rewind` lines honoured per session; past this a rewind is ignored. */
const MAX_REWINDS = 4096;

const REWIND_MARK = Buffer.from('"session.snapshot_rewind"');

/**
 * The first pass: which event each `session.snapshot_rewind` took back (with everything after it),
 * and on which line (numbered as `scanLines` offers them, the same in both passes).
 */
function rewindsOf(path: string): Map<string, number> {
  const rewinds = new Map<string, number>();
  let n = 0;
  scanLines(path, 0, (buf, start, end) => {
    const at = n++;
    const mark = buf.indexOf(REWIND_MARK, start);
    if (mark === -1 || mark >= end || rewinds.size >= MAX_REWINDS) return true;
    const e = parseObjectAt(buf, start, end);
    const to = e?.type === 'session.snapshot_rewind' ? text(obj(e.data)?.upToEventId) : null;
    if (to !== null) rewinds.set(to, at);
    return true;
  });
  return rewinds;
}

/** Every event of a session in order, but those a `session.snapshot_rewind` took back. */
function eachEvent(path: string, each: (event: JsonObject) => void): void {
  const rewinds = rewindsOf(path);
  let n = 0;
  // Events from a rewound one up to the rewind that took them back are not shown.
  let skipUntil = -1;
  scanLines(path, 0, (buf, start, end, unterminated) => {
    const e = parseObjectAt(buf, start, end);
    if (e === null && unterminated) return false;
    const at = n++;
    if (e === null || at < skipUntil) return true;
    const id = text(e.id);
    const rewoundAt = id === null ? undefined : rewinds.get(id);
    if (rewoundAt !== undefined && rewoundAt > at) skipUntil = rewoundAt;
    else each(e);
    return true;
  });
}

/** Said of a session read from an OpenTelemetry export alone: it holds tokens, not words. */
const EXPORT_ONLY =
  "this session is known only from Copilot CLI's OpenTelemetry export, which holds its tokens but not its conversation";

function conversation(path: string, o: ConversationOptions): Conversation {
  if (splitMember(path) !== null) return unsupported(EXPORT_ONLY);
  if (o.agent !== null && !AGENT_ID.test(o.agent))
    return unsupported(`"${o.agent.slice(0, 40)}" is not an agent id`);
  const sink = new TurnSink(o.before, o.feed);
  const reader = new CopilotConversation(sink, o.agent);
  try {
    eachEvent(path, (e) => reader.event(e));
  } catch (err) {
    return unsupported(`could not read the session: ${(err as Error).message}`);
  }
  return sink.finish();
}

/** The calls of a session, its subagents' included, as the conversation shows them. */
function calls(path: string): CallLog {
  const reader = new CopilotCalls();
  if (splitMember(path) !== null) return reader.c.log;
  eachEvent(path, (e) => reader.event(e));
  return reader.c.log;
}

export const copilot: Provider<'copilot', CopilotCarry> = {
  ...copilotPlace,
  parse,
  readCarry: readCopilotCarry,
  conversation,
  calls,
};
