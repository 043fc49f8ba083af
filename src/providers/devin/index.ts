/**
 * Devin (the Devin CLI): its sessions in `sessions.db` (`$CHISEL_SESSION_DB`, else
 * `$XDG_DATA_HOME/devin/cli/sessions.db`, else `~/.local/share/devin/cli/sessions.db`), each with an
 * ATIF trajectory in `transcripts/<id>.json` beside the database, and how every tool call ended in
 * the database's `tool_call_state`. A session Devin deleted is marked `hidden` and is not shown.
 *
 * A session is named `<sessions.db>#<id>` (see `../sqlite.ts`); `transcriptOf` gives its trajectory.
 * Its fingerprint moves with the trajectory file, the session's last activity and its calls' states.
 *
 * Finding the sessions and the window rules are in `place.ts`; reading them into facts
 * is `parse.ts`; their conversations and calls are here.
 */
import { readFileSync, statSync } from 'node:fs';
import { type CallLog, emptyCallLog } from '../../model/calls.js';
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { arr, type JsonObject, obj } from '../../model/json.js';
import { atifStep, atifSteps } from '../atif/conversation.js';
import { readNoCarry } from '../carry.js';
import { readOnly, splitMember } from '../sqlite.js';
import type { ConversationOptions, Provider } from '../types.js';
import { devinCalls } from './calls.js';
import { MAX_TRAJECTORY_BYTES, parse, readTrajectory, statusesOf, transcriptOf } from './parse.js';
import { devinPlace } from './place.js';

export { MAX_TRAJECTORY_BYTES, transcriptOf } from './parse.js';
export { devinDatabase, devinPlace, devinRoots } from './place.js';

/** The conversation: the trajectory's steps, each call's outcome from the database. */
function conversation(path: string, o: ConversationOptions): Conversation {
  if (o.agent !== null) return unsupported('cctop reads no subagents of a Devin session');
  const m = splitMember(path);
  const transcript = transcriptOf(path);
  if (m === null || transcript === null) return unsupported('not a Devin session');
  let text: string;
  try {
    if (statSync(transcript).size > MAX_TRAJECTORY_BYTES)
      return unsupported('the trajectory is too large to read');
    text = readFileSync(transcript, 'utf8');
  } catch {
    return unsupported('this session has no trajectory on this machine yet');
  }
  const sink = new TurnSink(o.before, o.feed);
  try {
    const { steps } = atifSteps(text);
    const statuses = statusesOf(readOnly(m.database), m.member);
    for (const step of steps) atifStep(sink, step, statuses);
  } catch (err) {
    return unsupported(`could not read the trajectory: ${(err as Error).message}`);
  }
  return sink.finish();
}

/** The calls: the trajectory's steps, each call's outcome from the database. */
function calls(path: string): CallLog {
  const m = splitMember(path);
  const transcript = transcriptOf(path);
  const doc = m === null || transcript === null ? null : readTrajectory(transcript).doc;
  if (m === null || doc === null) return emptyCallLog();
  const steps = (arr(doc.steps) ?? []).map(obj).filter((s): s is JsonObject => s !== null);
  return devinCalls(steps, statusesOf(readOnly(m.database), m.member));
}

export const devin: Provider<'devin', null> = {
  ...devinPlace,
  parse,
  readCarry: readNoCarry,
  conversation,
  calls,
};
