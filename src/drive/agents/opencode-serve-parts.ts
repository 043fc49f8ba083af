/**
 * The parts `opencode serve` streams for a session, mapped into the records `opencode run --format
 * json` prints, so OpenCode's one dialect (`opencode.ts`) reads both transports and their events are
 * the same vocabulary. A text or reasoning part is announced when it starts and again, whole, when
 * it ends (`time.end`); a tool part when pending, running and finished: each becomes one record,
 * once, when it is done.
 *
 * What it does not do: read the stream, pick which session's parts are the run's, or parse the
 * records (the dialect does).
 */
import { type JsonObject, obj, str } from '../../model/json.js';

/**
 * Parts already turned into records, so a part announced again is read once. 1.18.33 re-announces a
 * finished part rarely, but a turn of many calls has as many parts; past this many the oldest are
 * forgotten (a part that old is not announced again).
 */
const MAX_SEEN_PARTS = 4096;

/**
 * The record `opencode run --format json` prints for a session part, or null for a part it prints
 * nothing for (yet): a text or reasoning part before it ended, a call before it finished, the parts
 * of the prompt itself (which never carry an end).
 */
export function recordOf(part: JsonObject): JsonObject | null {
  const sessionID = str(part.sessionID);
  const ended = obj(part.time)?.end !== undefined;
  switch (str(part.type)) {
    case 'step-start':
      return { type: 'step_start', sessionID, part };
    case 'step-finish':
      return { type: 'step_finish', sessionID, part };
    case 'text':
      return ended ? { type: 'text', sessionID, part } : null;
    case 'reasoning':
      return ended ? { type: 'reasoning', sessionID, part } : null;
    case 'tool': {
      const status = str(obj(part.state)?.status);
      return status === 'completed' || status === 'error' ? { type: 'tool_use', sessionID, part } : null;
    }
    default:
      return null;
  }
}

/** The run's parts made into records, each once (`MAX_SEEN_PARTS`). */
export class PartRecords {
  private readonly seen = new Set<string>();

  /** The record a part makes now, or null: none yet, or it was made before. */
  take(part: JsonObject): JsonObject | null {
    const record = recordOf(part);
    if (record === null) return null;
    const id = str(part.id);
    if (id !== null) {
      if (this.seen.has(id)) return null;
      if (this.seen.size >= MAX_SEEN_PARTS) {
        const oldest = this.seen.values().next().value;
        if (oldest !== undefined) this.seen.delete(oldest);
      }
      this.seen.add(id);
    }
    return record;
  }
}
