/**
 * OpenClaw (the personal agent gateway, formerly Clawdbot and Moltbot): `agents/<agent>/sessions/*.jsonl`
 * under `~/.openclaw` or `$OPENCLAW_DIR`, and since 2026.8 its per-agent store
 * `agents/<agent>/agent/openclaw-agent.sqlite` (`store.ts`). Finding the sessions is `place.ts`,
 * reading them `parse.ts`. OpenClaw writes Pi's session format, in files and in its store's rows
 * alike, so its conversations and calls are Pi's readers, fed each entry as OpenClaw means it
 * (`clawEntry`: a command that exited non-zero failed).
 */
import type { CallLog } from '../../model/calls.js';
import type { Conversation } from '../../model/conversation.js';
import { obj, parseJson, parseObjectAt } from '../../model/json.js';
import { scanLines } from '../jsonl.js';
import { entriesOnBranch, type PiEntries, piCalls, piConversation } from '../pi/index.js';
import { splitMember } from '../sqlite.js';
import type { ConversationOptions, Provider } from '../types.js';
import { parse } from './parse.js';
import { type ClawCarry, readClawCarry } from './parser.js';
import { openclawPlace } from './place.js';
import { clawEntry } from './record.js';
import { eachStoredEvent } from './store.js';

export { openclawPlace, openclawRoots } from './place.js';

/** A stored session's rows as Pi's entries; a row that is not a JSON object is passed over. */
const storedEntries =
  (path: string): PiEntries =>
  (each) => {
    eachStoredEvent(path, (e) => {
      const o = e.kind === 'json' ? obj(parseJson(e.json)) : null;
      if (o !== null) each(clawEntry(o));
    });
  };

/** A session file's lines as Pi's entries, to its last whole line; a line that is not a JSON object is passed over. */
const fileEntries =
  (path: string): PiEntries =>
  (each) => {
    scanLines(path, 0, (buf, start, end, unterminated) => {
      const o = parseObjectAt(buf, start, end);
      if (o !== null) each(clawEntry(o));
      return o !== null || !unterminated;
    });
  };

const entriesOf = (path: string): PiEntries =>
  entriesOnBranch(splitMember(path) === null ? fileEntries(path) : storedEntries(path));

const conversation = (path: string, o: ConversationOptions): Conversation =>
  piConversation(entriesOf(path), o);

const calls = (path: string): CallLog => piCalls(entriesOf(path));

export const openclaw: Provider<'openclaw', ClawCarry> = {
  ...openclawPlace,
  parse,
  readCarry: readClawCarry,
  conversation,
  calls,
};
