/**
 * OpenCode 1.2+: every session of a data directory in one SQLite database, `opencode*.db` (WAL),
 * tables `session`, `message` and `part` whose `data` column is the JSON OpenCode used to keep in
 * files. Read through `../sqlite.ts`: read-only, one pooled connection per database.
 *
 * Discovery lists the sessions with a fingerprint of their rows (newest update, row counts), so a
 * scan re-reads only the sessions that changed; that listing is in `place.ts`, which discovery loads
 * without this module. Reading a session asks SQLite for the few JSON fields
 * the facts need (`json_extract`) rather than the rows: a part's `data` holds whole tool outputs and
 * file contents, megabytes the facts never look at.
 *
 * Only tables are read (`TABLES`): a database whose `message` is a view is refused whole, since a view
 * can run any query. Each read runs within `DB_READ_BUDGET_MS`, checked by SQLite row by row
 * (`IN_BUDGET`), and is otherwise a problem on the session (see `../sqlite.ts`).
 *
 * known limit: a tool part whose status changes in place (running → completed) without a new row or a
 * newer message is seen at the session's next change, which OpenCode makes when the step ends.
 */
import { MAX_RESULT_CHARS, MAX_TEXT_CHARS } from '../../model/conversation.js';
import type { JsonObject } from '../../model/json.js';
import { columnsOf, type Database, IN_BUDGET, readOnly, tablesOnly, withinBudget } from '../sqlite.js';
import { type ChatMessage, type ChatPart, MAX_INPUT_CHARS } from './conversation.js';
import type { OpenCodeRows } from './parser.js';
import { MAX_NESTING, TABLES } from './place.js';
import {
  callFailed,
  messageFrom,
  type OpenCodeMessage,
  type OpenCodePart,
  partFrom,
  sessionFrom,
  tokensFrom,
} from './record.js';
import { MAX_PARTS_PER_MESSAGE } from './storage.js';

export { DATABASE_NAME, listSessions, type SessionFingerprint } from './place.js';

/** A connection to the OpenCode database at `path`, once its tables are known to be tables. */
function tablesOf(path: string): Database {
  const db = readOnly(path);
  tablesOnly(db, TABLES.required, TABLES.optional);
  return db;
}

const parseJson = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return null;
  }
};

function messagesOf(db: Database, session: string): OpenCodeMessage[] {
  const rows = db
    .prepare(
      `SELECT id,
        json_extract(data, '$.role') AS role,
        json_extract(data, '$.time.created') AS created,
        json_extract(data, '$.time.completed') AS completed,
        json_extract(data, '$.modelID') AS modelID,
        json_extract(data, '$.model.modelID') AS userModel,
        json_extract(data, '$.tokens') AS tokens,
        json_extract(data, '$.cost') AS cost,
        json_extract(data, '$.error') AS error,
        json_extract(data, '$.finish') AS finish,
        json_extract(data, '$.path.cwd') AS cwd
      FROM message WHERE session_id = ? AND ${IN_BUDGET} ORDER BY id`,
    )
    .all(session) as Record<string, unknown>[];
  const out: OpenCodeMessage[] = [];
  for (const r of rows) {
    const o: JsonObject = {
      id: r.id,
      role: r.role,
      time: { created: r.created, completed: r.completed },
      modelID: r.modelID,
      model: { modelID: r.userModel },
      tokens: parseJson(r.tokens),
      cost: r.cost,
      error: parseJson(r.error),
      finish: r.finish,
      path: { cwd: r.cwd },
    };
    const m = messageFrom(o);
    if (m) out.push(m);
  }
  return out;
}

function partsOf(db: Database, session: string): OpenCodePart[] {
  const rows = db
    .prepare(
      `SELECT id, message_id AS messageID,
        json_extract(data, '$.type') AS type,
        json_extract(data, '$.tool') AS tool,
        json_extract(data, '$.state.status') AS status,
        json_extract(data, '$.state.metadata.exit') AS exit,
        json_extract(data, '$.tokens') AS tokens,
        json_extract(data, '$.cost') AS cost
      FROM part WHERE session_id = ? AND ${IN_BUDGET}
        AND json_extract(data, '$.type') IN ('tool', 'step-finish', 'compaction')`,
    )
    .all(session) as Record<string, unknown>[];
  const out: OpenCodePart[] = [];
  for (const r of rows) {
    const p = partFrom({
      id: r.id,
      messageID: r.messageID,
      type: r.type,
      tool: r.tool,
      state: { status: r.status, metadata: { exit: r.exit } },
      tokens: parseJson(r.tokens),
      cost: r.cost,
    });
    if (p) out.push(p);
  }
  return out;
}

function firstPromptOf(db: Database, messages: OpenCodeMessage[]): string | null {
  const user = messages.find((m) => m.role === 'user');
  if (!user) return null;
  const row = db
    .prepare(
      `SELECT substr(json_extract(data, '$.text'), 1, 4096) AS text FROM part
      WHERE message_id = ? AND ${IN_BUDGET} AND json_extract(data, '$.type') = 'text'
        AND coalesce(json_extract(data, '$.synthetic'), 0) = 0
      ORDER BY id LIMIT 1`,
    )
    .get(user.id) as { text: unknown } | undefined;
  return typeof row?.text === 'string' && row.text.trim().length > 0 ? row.text : null;
}

/**
 * Known limit: part types past this many are not counted for doctor (a session has a dozen at most;
 * a database that names thousands is not OpenCode's, and the count is kept per file).
 */
const MAX_PART_TYPES = 64;

/** Every part type the session has, with how many: counted by SQLite, no part read into JavaScript. */
function partTypesOf(db: Database, session: string): { type: string; count: number }[] {
  const rows = db
    .prepare(
      `SELECT substr(json_extract(data, '$.type'), 1, 64) AS type, count(*) AS n FROM part
      WHERE session_id = ? AND ${IN_BUDGET} GROUP BY 1 ORDER BY min(id) LIMIT ${MAX_PART_TYPES}`,
    )
    .all(session) as { type: unknown; n: unknown }[];
  return rows.flatMap((r) =>
    typeof r.type === 'string' && typeof r.n === 'number' ? [{ type: r.type, count: r.n }] : [],
  );
}

/** One session's rows, or null when the session is gone. */
export function readSession(path: string, id: string): OpenCodeRows | null {
  return withinBudget(() => {
    const db = tablesOf(path);
    const row = db.prepare(`SELECT * FROM session WHERE id = ? AND ${IN_BUDGET}`).get(id) as
      | JsonObject
      | undefined;
    const session = row ? sessionFrom(row) : null;
    if (!session) return null;
    const messages = messagesOf(db, id);
    const byPart = columnsOf(db, 'part').has('session_id');
    const parts = byPart ? partsOf(db, id) : [];
    const partTypes = byPart ? partTypesOf(db, id) : [];
    return { session, messages, parts, partTypes, firstPrompt: firstPromptOf(db, messages) };
  });
}

/** A part row of the conversation: each text field cut by SQLite before it reaches JavaScript. */
interface ChatPartRow {
  type: unknown;
  text: unknown;
  synthetic: unknown;
  tool: unknown;
  callID: unknown;
  status: unknown;
  exit: unknown;
  input: unknown;
  filePath: unknown;
  command: unknown;
  pattern: unknown;
  output: unknown;
  error: unknown;
  filename: unknown;
  start: unknown;
  ranFrom: unknown;
  ranTo: unknown;
  tokens: unknown;
}

/** A call's input from its row: parsed when whole, else the fields that name it, read apart. */
function inputOf(r: ChatPartRow): unknown {
  // An input cut at `MAX_INPUT_CHARS` is no longer JSON: then only its naming fields are known.
  const parsed = parseJson(r.input);
  if (parsed !== null && typeof parsed === 'object') return parsed;
  const named: JsonObject = {};
  for (const [k, v] of [
    ['filePath', r.filePath],
    ['command', r.command],
    ['pattern', r.pattern],
  ] as const)
    if (typeof v === 'string') named[k] = v;
  return Object.keys(named).length > 0 ? named : typeof r.input === 'string' ? r.input : null;
}

const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * A session's conversation, message by message, each with its parts in the order OpenCode made
 * them. Parts are fetched per message (the `part_message_id_id_idx` index answers it) and stepped
 * through one row at a time, so a session of any length holds one row of parts at a time. The
 * stepping is synchronous and runs to its end before this returns: no read is left open to hold
 * back the agent's checkpoints, as with rows collected at once.
 */
export function readChat(
  path: string,
  session: string,
  each: (m: ChatMessage, parts: Iterable<ChatPart>) => void,
): boolean {
  return withinBudget(() => readChatRows(path, session, each));
}

function readChatRows(
  path: string,
  session: string,
  each: (m: ChatMessage, parts: Iterable<ChatPart>) => void,
): boolean {
  const db = tablesOf(path);
  if (db.prepare(`SELECT 1 FROM session WHERE id = ? AND ${IN_BUDGET}`).get(session) === undefined)
    return false;
  const messages = db
    .prepare(
      `SELECT id,
        json_extract(data, '$.role') AS role,
        json_extract(data, '$.time.created') AS created,
        json_extract(data, '$.error.name') AS errorName,
        json_extract(data, '$.tokens') AS tokens,
        substr(coalesce(json_extract(data, '$.error.data.message'), json_extract(data, '$.error.message')), 1, ?) AS errorMessage,
        json_type(data, '$.summary') AS summary
      FROM message WHERE session_id = ? AND ${IN_BUDGET} ORDER BY id`,
    )
    .all(MAX_TEXT_CHARS, session) as Record<string, unknown>[];
  const partsOfMessage = db.prepare(
    `SELECT
      json_extract(data, '$.type') AS type,
      substr(json_extract(data, '$.text'), 1, @text) AS text,
      json_extract(data, '$.synthetic') AS synthetic,
      json_extract(data, '$.tool') AS tool,
      json_extract(data, '$.callID') AS callID,
      json_extract(data, '$.state.status') AS status,
      json_extract(data, '$.state.metadata.exit') AS exit,
      substr(json_extract(data, '$.state.input'), 1, @input) AS input,
      substr(json_extract(data, '$.state.input.filePath'), 1, @text) AS filePath,
      substr(json_extract(data, '$.state.input.command'), 1, @text) AS command,
      substr(json_extract(data, '$.state.input.pattern'), 1, @text) AS pattern,
      substr(json_extract(data, '$.state.output'), 1, @result) AS output,
      substr(json_extract(data, '$.state.error'), 1, @result) AS error,
      coalesce(json_extract(data, '$.filename'), json_extract(data, '$.url')) AS filename,
      json_extract(data, '$.time.start') AS start,
      json_extract(data, '$.state.time.start') AS ranFrom,
      json_extract(data, '$.state.time.end') AS ranTo,
      json_extract(data, '$.tokens') AS tokens
    FROM part WHERE message_id = @message AND ${IN_BUDGET} ORDER BY id LIMIT @limit`,
  );
  for (const r of messages) {
    if (typeof r.id !== 'string') continue;
    const m: ChatMessage = {
      id: r.id,
      role: strOrNull(r.role),
      ms: typeof r.created === 'number' ? r.created : null,
      error:
        r.errorName !== null || r.errorMessage !== null
          ? { name: strOrNull(r.errorName), message: strOrNull(r.errorMessage) }
          : null,
      summary: r.summary === 'true',
      tokens: tokensFrom(parseJson(r.tokens)),
    };
    const rows = partsOfMessage.iterate({
      message: r.id,
      text: MAX_TEXT_CHARS + 1,
      input: MAX_INPUT_CHARS,
      result: MAX_RESULT_CHARS + 1,
      limit: MAX_PARTS_PER_MESSAGE,
    }) as IterableIterator<ChatPartRow>;
    const parts = (function* (): Iterable<ChatPart> {
      for (const p of rows)
        yield {
          type: strOrNull(p.type),
          text: strOrNull(p.text),
          synthetic: p.synthetic === 1,
          tool: strOrNull(p.tool),
          callId: strOrNull(p.callID),
          status: strOrNull(p.status),
          failed: callFailed(strOrNull(p.status), p.exit),
          input: inputOf(p),
          output: strOrNull(p.output),
          error: strOrNull(p.error),
          filename: strOrNull(p.filename),
          startMs: typeof p.start === 'number' ? p.start : null,
          ranFromMs: typeof p.ranFrom === 'number' ? p.ranFrom : null,
          ranToMs: typeof p.ranTo === 'number' ? p.ranTo : null,
          tokens: tokensFrom(parseJson(p.tokens)),
        };
    })();
    try {
      each(m, parts);
    } finally {
      // A reader that stopped early must not leave the statement (and its read) open.
      rows.return?.();
    }
  }
  return true;
}

/** Whether `child` is a session under `parent` (directly, or through nested tasks). */
export function isChildOf(path: string, child: string, parent: string): boolean {
  return withinBudget(() => {
    const db = tablesOf(path);
    const up = db.prepare(`SELECT parent_id AS parent FROM session WHERE id = ? AND ${IN_BUDGET}`);
    let at = child;
    for (let i = 0; i < MAX_NESTING; i++) {
      const row = up.get(at) as { parent: unknown } | undefined;
      if (row === undefined || typeof row.parent !== 'string') return false;
      if (row.parent === parent) return true;
      at = row.parent;
    }
    return false;
  });
}
