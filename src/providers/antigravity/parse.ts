/**
 * Reading one Antigravity conversation database into facts and ledger records: what the index calls
 * for every changed database, and where this provider's parser version is digested from
 * (`index/version.ts`). Not here: finding the databases (`place.ts`), or what the blobs mean
 * (`record.ts`).
 *
 * Each model call is billed once. Antigravity writes one call in several places (its step, its
 * generation, a retry list that repeats the attempt that succeeded, a sub-conversation that repeats
 * its parent's call): every copy carries the call's response id, which is the ledger key, so the
 * index's dedupe counts it once across every database and keeps the fuller copy. A call without
 * any id is counted as it stands.
 *
 * A row whose blob is not a protobuf message is counted as a bad line (its row number, never its
 * bytes) and the rest of the database is read. A file SQLite refuses as damaged (not a database, a
 * malformed page) is one bad line of its own and bills nothing: a half-read damaged copy must not
 * stand in for a sound copy of the same call in another database. A lock or a view where a table
 * should be still throws: the first passes, and the second is the file's problem as `../sqlite.ts`
 * words it.
 */
import { basename } from 'node:path';
import { emptyFacts, type FileFacts, noteBadLine, noteModel, noteTime } from '../../model/facts.js';
import { emptyLedger, hashString, LedgerBuilder } from '../../model/ledger.js';
import { type Database, readOnly, tablesOnly } from '../sqlite.js';
import { memberRead } from '../sqlite-members.js';
import type { ParseResult, SourceFile } from '../types.js';
import { ProtoError } from './proto.js';
import { type AgCall, generationOf, modelName, stepOf, trajectoryStart } from './record.js';

/**
 * The tables read: anything else by these names (a view) makes the database a problem (`../sqlite.ts`).
 * None is required: a database with none of them yet (an empty file, a conversation the agent has
 * only just opened) is a session with nothing in it so far.
 */
export const TABLES = {
  required: [],
  optional: ['gen_metadata', 'steps', 'trajectory_metadata_blob'],
} as const;

/**
 * Rows read per table. A conversation writes a few per turn; a long day's session holds a few
 * thousand. Past this the rest is not read (and the file says so as oversized), so a hostile
 * database cannot make a scan read without end.
 */
export const MAX_ROWS = 200_000;

const blobOf = (v: unknown): Uint8Array | null => (v instanceof Uint8Array ? v : null);

function rows(db: Database, sql: string, facts: FileFacts): unknown[][] {
  const out = db
    .prepare(`${sql} LIMIT ${MAX_ROWS + 1}`)
    .raw(true)
    .all() as unknown[][];
  if (out.length > MAX_ROWS) {
    facts.oversizedLines++;
    out.length = MAX_ROWS;
  }
  return out;
}

/** SQLite's own check found the database unsound (`sound`). */
class DamagedDatabase extends Error {}

/**
 * Throw unless SQLite's quick check finds every page sound. A damaged file can open and answer
 * queries with rows from the wrong pages (a shifted page reads as another table's), so a clean open
 * proves nothing. The check reads each page once, as the read after it does; one finding is enough.
 */
function sound(db: Database): void {
  const [first] = db.prepare('PRAGMA quick_check(1)').pluck(true).all();
  if (first !== 'ok') throw new DamagedDatabase('malformed');
}

/**
 * Whether `err` is SQLite saying the file's bytes are not a sound database. That is a property of
 * the bytes, so reading them again gives the same answer until the file changes; a busy lock or a
 * full disk is not, and is left to throw.
 */
function isDamage(err: unknown): boolean {
  if (err instanceof DamagedDatabase) return true;
  const code = err instanceof Error && 'code' in err ? err.code : undefined;
  return typeof code === 'string' && (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'));
}

export function parse(file: SourceFile, _previous: ParseResult<null> | null): ParseResult<null> {
  try {
    return read(file);
  } catch (err) {
    if (!isDamage(err)) throw err;
    const facts = emptyFacts();
    facts.sessionId = file.sessionHint ?? basename(file.path, '.db');
    facts.recordsOutcomes = false;
    facts.lines = 1;
    noteBadLine(facts, 1, 'not-sqlite');
    return memberRead(file, facts, emptyLedger());
  }
}

function read(file: SourceFile): ParseResult<null> {
  const db = readOnly(file.path);
  sound(db);
  tablesOnly(db, TABLES.required, TABLES.optional);
  const facts = emptyFacts();
  const ledger = new LedgerBuilder();
  facts.sessionId = file.sessionHint ?? basename(file.path, '.db');
  // Antigravity records no tool outcomes this reader can see.
  facts.recordsOutcomes = false;

  const decode = (blob: unknown, read: (b: Uint8Array) => AgCall | number | null): AgCall | number | null => {
    facts.lines++;
    const b = blobOf(blob);
    try {
      if (b === null) throw new ProtoError('not a blob');
      return read(b);
    } catch (err) {
      if (!(err instanceof ProtoError)) throw err;
      noteBadLine(facts, facts.lines, 'not-protobuf');
      return null;
    }
  };

  let began: number | null = null;
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'trajectory_metadata_blob'").get() !== undefined) {
    for (const [blob] of rows(db, 'SELECT data FROM trajectory_metadata_blob ORDER BY rowid', facts)) {
      const t = decode(blob, trajectoryStart);
      if (typeof t === 'number') began ??= t;
    }
  }
  const when = (ms: number | null): number => ms ?? began ?? file.mtimeMs;

  const generations: AgCall[] = [];
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'gen_metadata'").get() !== undefined) {
    for (const [, blob] of rows(db, 'SELECT idx, data FROM gen_metadata ORDER BY idx', facts)) {
      const g = decode(blob, generationOf);
      if (g !== null && typeof g !== 'number') generations.push(g);
    }
  }
  const steps: AgCall[] = [];
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'steps'").get() !== undefined) {
    for (const [, blob] of rows(
      db,
      'SELECT idx, metadata FROM steps WHERE metadata IS NOT NULL ORDER BY idx',
      facts,
    )) {
      const s = decode(blob, stepOf);
      if (s !== null && typeof s !== 'number') steps.push(s);
    }
  }

  // A step names its model rarely; the newest name the generations give stands for the rest.
  let named: string | null = null;
  for (const g of generations) named = modelName(g.model, g.modelId) ?? named;

  const bill = (call: AgCall, model: string | null): void => {
    const ms = when(call.ms);
    noteTime(facts, ms);
    for (const u of call.usages) {
      const name = modelName(null, u.modelId) ?? model ?? 'antigravity-unknown';
      noteModel(facts, name);
      facts.mainModel = name;
      ledger.push({
        key: u.id === null ? null : hashString(`antigravity\u0000${u.id}`),
        request: 0,
        tsMs: ms,
        model: name,
        sidechain: false,
        tokens: {
          input: u.input,
          output: u.output,
          cacheRead: u.cacheRead,
          cacheWrite5m: u.cacheWrite,
          cacheWrite1h: null,
          reasoning: u.reasoning,
        },
      });
      facts.context = { prompt: u.input + u.cacheRead + u.cacheWrite, model: name, atMs: ms };
    }
  };
  for (const s of steps) bill(s, modelName(s.model, s.modelId) ?? named);
  let current: string | null = null;
  for (const g of generations) {
    current = modelName(g.model, g.modelId) ?? current;
    bill(g, current);
  }
  return memberRead(file, facts, ledger.build());
}
