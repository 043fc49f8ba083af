/**
 * What cctop knows of Qwen Code's chat records, for `cctop doctor`'s drift count
 * (`providers/drift.ts`): each record's type (`type`, and a system record's `system/<subtype>`) and
 * its top-level fields, as Qwen Code 0.24.4 (the lab's pin) writes them. A name missing here is one a
 * newer Qwen Code added, counted against the `version` every record carries. Not here: what any
 * record means (`record.ts`).
 */
import { type JsonObject, str } from '../../model/json.js';
import type { DriftReader, Known } from '../drift.js';

export const QWEN_KNOWN: Known = {
  types: new Set([
    'user',
    'assistant',
    'tool_result',
    // A system record whose subtype is missing is counted under its type alone.
    'system',
    ...[
      'at_command',
      'attribution_snapshot',
      'background_task_completed',
      'branch_checkpoint',
      'chat_compression',
      'custom_title',
      'file_history_snapshot',
      'goal_state',
      'goal_turn_end',
      'omni_recall',
      'parent_session',
      'rewind',
      'session_artifact_event',
      'session_artifact_snapshot',
      'session_model',
      'session_source',
      'session_sources_snapshot',
      'slash_command',
      'turn_result',
      'ui_telemetry',
      'user_text_elements',
    ].map((t) => `system/${t}`),
  ]),
  fields: new Set([
    'uuid',
    'parentUuid',
    'sessionId',
    'timestamp',
    'type',
    'subtype',
    'provenance',
    'cwd',
    'version',
    'gitBranch',
    'backgroundTurn',
    'message',
    'model',
    'usageMetadata',
    'contextWindowSize',
    'toolCallResult',
    'systemPayload',
  ]),
};

export const QWEN_DRIFT: DriftReader = {
  known: QWEN_KNOWN,
  type: (o: JsonObject) => {
    const type = str(o.type);
    const sub = str(o.subtype);
    return type === 'system' && sub !== null ? `system/${sub}` : type;
  },
  version: (o: JsonObject) => {
    const v = str(o.version);
    // Qwen Code writes `unknown` when it cannot name its own version: no version, not a new one.
    return v === 'unknown' ? null : v;
  },
  fields: (o: JsonObject) => Object.keys(o),
};
