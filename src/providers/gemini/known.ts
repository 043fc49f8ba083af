/**
 * What cctop knows of Gemini CLI's chat records (`chats/session-*.jsonl`), for `cctop doctor`'s drift
 * count (`providers/drift.ts`): each record's kind (the header, a `$set` of the header's fields, a
 * `$rewindTo`, or a message by its `type`) and its top-level fields, as Gemini CLI 0.61.0 (the lab's
 * pin) writes them. Gemini CLI names no version of its own in its chats: unknowns are counted as
 * "version not named". The older whole-file `session-*.json` is not counted. Not here: what any
 * record means (`record.ts`).
 */
import { type JsonObject, obj, str } from '../../model/json.js';
import type { DriftReader, Known } from '../drift.js';

export const GEMINI_KNOWN: Known = {
  types: new Set([
    'header',
    '$set',
    '$rewindTo',
    // A message whose type is missing is counted as a message.
    'message',
    ...['user', 'gemini', 'info', 'error', 'warning'].map((t) => `message/${t}`),
  ]),
  fields: new Set([
    // The header (and what `$set` may set in it).
    'sessionId',
    'projectHash',
    'startTime',
    'lastUpdated',
    'kind',
    'summary',
    'directories',
    'memoryScratchpad',
    'messages',
    '$set',
    '$rewindTo',
    // A message.
    'id',
    'timestamp',
    'type',
    'content',
    'displayContent',
    'thoughts',
    'tokens',
    'model',
    'toolCalls',
  ]),
};

/** A record's kind, as Gemini CLI's own reader tells them apart (in this order). */
function kindOf(o: JsonObject): string | null {
  if (typeof o.$rewindTo === 'string') return '$rewindTo';
  if (typeof o.id === 'string') {
    const type = str(o.type);
    return type === null ? 'message' : `message/${type}`;
  }
  if (obj(o.$set) !== null) return '$set';
  if (typeof o.sessionId === 'string' && typeof o.projectHash === 'string') return 'header';
  return null;
}

export const GEMINI_DRIFT: DriftReader = {
  known: GEMINI_KNOWN,
  type: kindOf,
  version: () => null,
  fields: (o: JsonObject) => {
    // A `$set` names the header's fields it sets: those are the ones that may be new.
    const set = obj(o.$set);
    return set === null ? Object.keys(o) : Object.keys(set);
  },
};
