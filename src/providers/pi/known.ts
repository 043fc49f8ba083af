/**
 * What cctop knows of Pi's session records, for `cctop doctor`'s drift count (`providers/drift.ts`):
 * each entry's type (`type`, and a message's `message/<role>`) and its top-level fields, as Pi 0.73.1
 * (the lab's pin) writes them. Pi names no CLI version in its files, only the session format's
 * (`version` on the `session` header, 3 today): unknowns are counted against `format 3`. Not here:
 * what any entry means (`record.ts`).
 */
import { type JsonObject, num, obj, str } from '../../model/json.js';
import type { DriftReader, Known } from '../drift.js';

export const PI_KNOWN: Known = {
  types: new Set([
    'session',
    'model_change',
    'thinking_level_change',
    'session_info',
    'compaction',
    'branch_summary',
    'custom',
    'custom_message',
    'label',
    // A message whose role is missing is counted under its type alone.
    'message',
    ...[
      'user',
      'assistant',
      'toolResult',
      'bashExecution',
      'custom',
      'branchSummary',
      'compactionSummary',
    ].map((r) => `message/${r}`),
  ]),
  fields: new Set([
    'type',
    'id',
    'parentId',
    'timestamp',
    'version',
    'cwd',
    'parentSession',
    'message',
    'modelId',
    'provider',
    'thinkingLevel',
    'name',
    'summary',
    'firstKeptEntryId',
    'tokensBefore',
    'details',
    'fromHook',
    'fromId',
    'customType',
    'data',
    'content',
    'display',
    'targetId',
    'label',
  ]),
};

export const PI_DRIFT: DriftReader = {
  known: PI_KNOWN,
  type: (o: JsonObject) => {
    const type = str(o.type);
    const role = type === 'message' ? str(obj(o.message)?.role) : null;
    return role !== null ? `message/${role}` : type;
  },
  version: (o: JsonObject) => {
    const v = o.type === 'session' ? num(o.version) : null;
    return v === null ? null : `format ${v}`;
  },
  fields: (o: JsonObject) => Object.keys(o),
};
