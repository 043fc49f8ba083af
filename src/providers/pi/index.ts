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

/**
 * A session's entries in order, from wherever they are kept: a file's lines here, rows of a store for
 * a harness that writes Pi's format into one (OpenClaw).
 */
export type PiEntries = (each: (entry: JsonObject) => void) => void;

/** Whether an entry is shown: on the branch, or not part of the tree (the header, older entries). */
const onBranch = (branch: Set<string> | null, e: JsonObject): boolean => {
  const id = text(e.id);
  return branch === null || id === null || !('parentId' in e) || branch.has(id);
};

/** Every entry of a file on the current branch, in file order. */
function fileOnBranch(path: string): PiEntries {
  return (each) => {
    const branch = currentBranch(path);
    scanLines(path, 0, (buf, start, end, unterminated) => {
      const e = parseObjectAt(buf, start, end);
      if (e === null) return !unterminated;
      // Entries of an abandoned branch are not shown.
      if (onBranch(branch, e)) each(e);
      return true;
    });
  };
}

/** Every entry of `entries` on the current branch: one pass for the tree, a second to offer them. */
export function entriesOnBranch(entries: PiEntries): PiEntries {
  return (each) => {
    const tree = new PiTree();
    entries((e) => {
      const id = text(e.id);
      if (id !== null && 'parentId' in e) tree.entry(id, text(e.parentId));
    });
    const branch = tree.path();
    entries((e) => {
      if (onBranch(branch, e)) each(e);
    });
  };
}

/** The conversation of the entries on a session's current branch. */
export function piConversation(onBranchEntries: PiEntries, o: ConversationOptions): Conversation {
  if (o.agent !== null) return unsupported('Pi runs no subagents of its own in a session');
  const sink = new TurnSink(o.before, o.feed);
  const reader = new PiConversation(sink);
  try {
    onBranchEntries((e) => reader.entry(e));
  } catch (err) {
    return unsupported(`could not read the session: ${(err as Error).message}`);
  }
  return sink.finish();
}

/** The calls of the current branch: what the model saw, as the conversation shows it. */
export function piCalls(onBranchEntries: PiEntries): CallLog {
  const reader = new PiCalls();
  onBranchEntries((e) => reader.entry(e));
  return reader.c.log;
}

const conversation = (path: string, o: ConversationOptions): Conversation =>
  piConversation(fileOnBranch(path), o);
const calls = (path: string): CallLog => piCalls(fileOnBranch(path));

export const pi: Provider<'pi', PiCarry> = { ...piPlace, parse, readCarry: readPiCarry, conversation, calls };
