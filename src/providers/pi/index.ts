/**
 * Pi (pi-coding-agent): `sessions/--<cwd>--/<time>_<id>.jsonl` under `$PI_CODING_AGENT_DIR` (or
 * `~/.pi/agent`); `$PI_CODING_AGENT_SESSION_DIR` names the sessions folder itself. Finding the
 * sessions and the window rules are in `place.ts`; reading them into facts is `parse.ts`; their
 * conversations and calls are here.
 */
import type { CallLog } from '../../model/calls.js';
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { type JsonObject, parseObjectAt, text } from '../../model/json.js';
import { scanLines } from '../jsonl.js';
import type { ConversationOptions, Provider } from '../types.js';
import { PiCalls } from './calls.js';
import { entryHead, PiConversation, PiTree } from './conversation.js';
import { parse } from './parse.js';
import { type PiCarry, readPiCarry } from './parser.js';
import { piPlace } from './place.js';

export { piPlace, piRoots } from './place.js';

/** Bytes of a line looked at for its id and parent before parsing the line whole. */
const HEAD_BYTES = 256;

/** The first pass: every entry's parent, to find the branch the session is on now. */
function currentBranch(path: string): Set<string> | null {
  const tree = new PiTree();
  scanLines(path, 0, (buf, start, end) => {
    const fast = entryHead(buf.toString('utf8', start, Math.min(end, start + HEAD_BYTES)));
    if (fast !== null) tree.entry(fast.id, fast.parent);
    else {
      const o = parseObjectAt(buf, start, end);
      const id = o === null ? null : text(o.id);
      // The header has an id but no parent field: it is not part of the tree.
      if (o !== null && id !== null && 'parentId' in o) tree.entry(id, text(o.parentId));
    }
    return true;
  });
  return tree.path();
}

/** Every entry on the current branch, in file order: the header and older untreed entries too. */
function eachOnBranch(path: string, each: (entry: JsonObject) => void): void {
  const branch = currentBranch(path);
  scanLines(path, 0, (buf, start, end, unterminated) => {
    const e = parseObjectAt(buf, start, end);
    if (e === null) return !unterminated;
    const id = text(e.id);
    // Entries of an abandoned branch are not shown; the header and older untreed entries are read.
    if (branch === null || id === null || !('parentId' in e) || branch.has(id)) each(e);
    return true;
  });
}

function conversation(path: string, o: ConversationOptions): Conversation {
  if (o.agent !== null) return unsupported('Pi runs no subagents of its own in a session');
  const sink = new TurnSink(o.before, o.feed);
  const reader = new PiConversation(sink);
  try {
    eachOnBranch(path, (e) => reader.entry(e));
  } catch (err) {
    return unsupported(`could not read the session: ${(err as Error).message}`);
  }
  return sink.finish();
}

/** The calls of the current branch: what the model saw, as the conversation shows it. */
function calls(path: string): CallLog {
  const reader = new PiCalls();
  eachOnBranch(path, (e) => reader.entry(e));
  return reader.c.log;
}

export const pi: Provider<'pi', PiCarry> = { ...piPlace, parse, readCarry: readPiCarry, conversation, calls };
