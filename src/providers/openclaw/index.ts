/**
 * OpenClaw (the personal agent gateway, formerly Clawdbot and Moltbot): `agents/<agent>/sessions/*.jsonl`
 * under `~/.openclaw` or `$OPENCLAW_DIR`, and since 2026.8 its per-agent store
 * `agents/<agent>/agent/openclaw-agent.sqlite` (`store.ts`). Finding the sessions is `place.ts`,
 * reading them `parse.ts`. OpenClaw writes Pi's session format, in files and in its store's rows
 * alike, so its conversations and calls are Pi's readers.
 */
import type { CallLog } from '../../model/calls.js';
import type { Conversation } from '../../model/conversation.js';
import { obj, parseJson } from '../../model/json.js';
import { entriesOnBranch, type PiEntries, pi, piCalls, piConversation } from '../pi/index.js';
import { splitMember } from '../sqlite.js';
import type { ConversationOptions, Provider } from '../types.js';
import { parse } from './parse.js';
import { type ClawCarry, readClawCarry } from './parser.js';
import { openclawPlace } from './place.js';
import { eachStoredEvent } from './store.js';

export { openclawPlace, openclawRoots } from './place.js';

/** A stored session's rows as Pi's entries; a row that is not a JSON object is passed over. */
const storedEntries =
  (path: string): PiEntries =>
  (each) => {
    eachStoredEvent(path, (e) => {
      const o = typeof e === 'string' ? obj(parseJson(e)) : null;
      if (o !== null) each(o);
    });
  };

function conversation(path: string, o: ConversationOptions): Conversation {
  if (splitMember(path) === null) return pi.conversation!(path, o);
  return piConversation(entriesOnBranch(storedEntries(path)), o);
}

function calls(path: string): CallLog {
  if (splitMember(path) === null) return pi.calls!(path);
  return piCalls(entriesOnBranch(storedEntries(path)));
}

export const openclaw: Provider<'openclaw', ClawCarry> = {
  ...openclawPlace,
  parse,
  readCarry: readClawCarry,
  conversation,
  calls,
};
