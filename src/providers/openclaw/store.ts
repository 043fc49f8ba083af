/**
 * OpenClaw's SQLite store: since 2026.8 OpenClaw keeps each agent's sessions in
 * `agents/<agent>/agent/openclaw-agent.sqlite`, and its `transcript_events` table holds what the
 * session files held, one line per row (`event_json`, ordered by `seq` within its `session_id`). The
 * migration copied the files' lines into it as they were, so a row is read as a line is
 * (`record.ts`), and a session moved into the store and still beside it as a file (archived as
 * `.jsonl.deleted.<time>`, or not yet verified) is one session whose responses count once (they keep
 * their entry ids and times).
 *
 * Since 2026.9 an event of 1 KiB or more is stored compressed (`event_zstd`, `event_json` null),
 * read through `zstd.ts`; a store from 2026.8 has no such column.
 *
 * A session in the store is named `<store>#<session id>` (`../sqlite-members.ts`); its fingerprint
 * moves with its newest row.
 *
 * Reading a stored session into facts is `parse.ts`'s, from the rows `eachStoredEvent` hands it.
 *
 * Not here: the store's other tables (windows, conversations, boards): the events say what cctop
 * shows. Nor the archived generations it keeps compressed (`session_transcript_archives`): OpenClaw
 * writes each one out as a `.jsonl.reset.<time>` or `.jsonl.deleted.<time>` file too, which are read.
 */
import { basename } from 'node:path';
import type { BadLineReason } from '../../model/json.js';
import type { ProblemLog } from '../../model/problems.js';
import { columnsOf, IN_BUDGET, readOnly, splitMember, tablesOnly, withinBudget } from '../sqlite.js';
import { databaseSessions } from '../sqlite-sessions.js';
import type { SourceFile } from '../types.js';
import { inflateEvents } from './zstd.js';

/** The store's name in an agent's `agent/` folder. */
export const STORE_FILE = 'openclaw-agent.sqlite';

/** The table read: anything else by this name (a view) makes the store a problem. */
const TABLES = { required: ['transcript_events'], optional: [] } as const;

/**
 * Rows of one session read at most. A busy gateway session of weeks is tens of thousands of events;
 * past this the newest are left out rather than the scan held up (the problem says so).
 */
export const MAX_EVENTS = 200_000;

/** Seconds or milliseconds since the epoch (OpenClaw writes milliseconds), as milliseconds. */
const epochMs = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? (v > 1e12 ? v : v * 1000) : null;

const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The sessions of the store at `path`, one source each; a store that cannot be read is a problem. */
export const storeSessions = (path: string, root: string, problems: ProblemLog): SourceFile[] =>
  databaseSessions('openclaw', path, root, 'OpenClaw session store', problems, (db) => {
    tablesOnly(db, TABLES.required, TABLES.optional);
    const rows = db
      .prepare(
        'SELECT session_id AS id, count(*) AS events, max(seq) AS seq, max(created_at) AS at FROM transcript_events GROUP BY session_id',
      )
      .all() as { id: unknown; events: unknown; seq: unknown; at: unknown }[];
    return rows.map((r) => ({ id: r.id, size: n(r.events) + n(r.seq), mtimeMs: epochMs(r.at) }));
  });

/** One stored event: its text, or why the row could not be read as one. */
export type StoredEvent = { kind: 'json'; json: string } | { kind: 'bad'; reason: BadLineReason };

/** A row as the store holds it: its event's text, else its compressed form and size. */
interface Row {
  json: unknown;
  zstd: unknown;
  size: unknown;
}

/**
 * Rows held back behind a compressed one, so that the compressed rows among them are inflated
 * together (`inflateEvents`: on Node 20 one time limit for many rows, not one each) and every row
 * still reaches the parser in order. 256 rows or 4 MiB of their stored bytes, whichever comes first:
 * enough that the limit's cost is spread thin, and what is held stays small beside the session's own
 * facts.
 */
const MAX_HELD_ROWS = 256;
const MAX_HELD_BYTES = 4 * 1024 * 1024;

const storedBytes = (row: Row): number =>
  (typeof row.json === 'string' ? row.json.length : 0) +
  (row.zstd instanceof Uint8Array ? row.zstd.length : 0);

/** `held` rows as events, in order: `event_json`, else their compressed forms inflated together. */
function eventsOf(held: readonly Row[]): StoredEvent[] {
  const compressed = held.filter((r) => typeof r.json !== 'string' && r.zstd !== null);
  const inflated = inflateEvents(compressed.map((r) => ({ data: r.zstd, size: r.size })));
  let next = 0;
  return held.map((r): StoredEvent => {
    if (typeof r.json === 'string') return { kind: 'json', json: r.json };
    if (r.zstd !== null) return inflated[next++]!;
    return { kind: 'bad', reason: 'not-json-object' };
  });
}

/**
 * Every event of a stored session, in order, as the lines of a session file would be fed; false when
 * `path` names no session of a store. Within the read budget (`../sqlite.ts`), as a hostile store
 * could make the rows of one session endless to read.
 */
export function eachStoredEvent(path: string, each: (event: StoredEvent, line: number) => void): boolean {
  const m = splitMember(path);
  if (m === null || basename(m.database) !== STORE_FILE) return false;
  return withinBudget(() => {
    const db = readOnly(m.database);
    tablesOnly(db, TABLES.required, TABLES.optional);
    const compressed = columnsOf(db, 'transcript_events').has('event_zstd');
    const rows = db
      .prepare(
        `SELECT event_json AS json, ${compressed ? 'event_zstd AS zstd, event_utf8_bytes AS size' : 'NULL AS zstd, NULL AS size'} FROM transcript_events WHERE session_id = ? AND ${IN_BUDGET} ORDER BY seq LIMIT ${MAX_EVENTS}`,
      )
      .iterate(m.member) as IterableIterator<Row>;
    let line = 0;
    const held: Row[] = [];
    let heldBytes = 0;
    /** Hand the held rows on, numbered as the lines they are: the last held is `line`. */
    const release = () => {
      let at = line - held.length;
      for (const e of eventsOf(held)) each(e, ++at);
      held.length = 0;
      heldBytes = 0;
    };
    for (const row of rows) {
      line++;
      if (held.length === 0 && typeof row.json === 'string') {
        each({ kind: 'json', json: row.json }, line);
        continue;
      }
      held.push(row);
      heldBytes += storedBytes(row);
      if (held.length >= MAX_HELD_ROWS || heldBytes >= MAX_HELD_BYTES) release();
    }
    release();
    return true;
  });
}
