/**
 * What cctop knows of OpenCode's session rows, for `cctop doctor`'s drift count (`providers/drift.ts`):
 * a message's role (`message/<role>`) and a part's type (`part/<type>`), as OpenCode 1.18.33 (the
 * lab's pin) writes them, counted against the `version` its session row names. The rows reach this
 * provider already narrowed (`record.ts`), so only those names are looked at, not their fields. Not
 * here: what any row means (`parser.ts`).
 */
import { type JsonObject, str } from '../../model/json.js';
import type { DriftReader, Known } from '../drift.js';
import type { OpenCodeRows } from './parser.js';

export const OPENCODE_KNOWN: Known = {
  types: new Set([
    'session',
    ...['user', 'assistant'].map((r) => `message/${r}`),
    ...[
      'text',
      'reasoning',
      'tool',
      'step-start',
      'step-finish',
      'file',
      'snapshot',
      'patch',
      'agent',
      'compaction',
      'subtask',
      'retry',
    ].map((t) => `part/${t}`),
  ]),
  fields: new Set(),
};

export const OPENCODE_DRIFT: DriftReader = {
  known: OPENCODE_KNOWN,
  type: (o: JsonObject) => str(o.type),
  version: (o: JsonObject) => (o.type === 'session' ? str(o.version) : null),
  fields: () => [],
};

/**
 * The names a session's rows carry, as the drift tally reads records: the session, its messages in
 * order, then its parts type by type (a database's reader counts them by type, `partTypes`).
 */
export function* driftRecords(rows: OpenCodeRows): Iterable<JsonObject> {
  yield { type: 'session', version: rows.session.version };
  for (const m of rows.messages) if (m.role !== null) yield { type: `message/${m.role}` };
  if (rows.partTypes === undefined) {
    for (const p of rows.parts) if (p.type !== null) yield { type: `part/${p.type}` };
    return;
  }
  for (const { type, count } of rows.partTypes)
    for (let i = 0; i < count; i++) yield { type: `part/${type}` };
}
