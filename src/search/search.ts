/**
 * `search`: every conversation on this machine, ranked for a query. What `cctop search`, serve's
 * `/api/search` and the MCP server's `search` tool all call.
 *
 * It catches the index up first, within a budget (`MAX_CATCH_UP_MS` unless the caller gives its
 * own), and says when what is left unread may hold results (`behind`). A result names the session
 * and the turn, and the command that opens the conversation there; its snippet is the transcript's
 * words with the matches marked, made one line and cut to `MAX_SNIPPET_CHARS`, but otherwise as the
 * transcript has them: every view makes it safe for where it shows it (a terminal, a page), and a
 * program reading it takes it as data.
 *
 * Not here: the index's tables (`store.ts`), keeping it current (`catch-up.ts`), what a query means
 * (`query.ts`).
 */
import { isCorruption } from '../index/damage.js';
import type { ProviderId } from '../model/facts.js';
import { cacheDir } from '../paths.js';
import type { Env } from '../providers/types.js';
import { type Behind, type CaughtUp, catchUp } from './catch-up.js';
import { parseQuery } from './query.js';
import type { FoundRow, RowRole } from './rows.js';
import { MARK_CLOSE, MARK_OPEN, SearchDb } from './store.js';

/**
 * How long a search spends bringing the index up to date before it answers. Two seconds reads about
 * 100 MB of transcripts on one core: every change of a working day, and a first search of a large
 * history makes a start and says how much is left.
 */
export const MAX_CATCH_UP_MS = 2000;

/** Results one search returns: a page of them; a program wanting more narrows the query. */
export const MAX_RESULTS = 100;

export const DEFAULT_RESULTS = 20;

/**
 * Characters of a snippet. FTS5 cuts a snippet by words, and a word can be a base64 image of a
 * megabyte: the snippet is cut again, around its first match.
 */
export const MAX_SNIPPET_CHARS = 300;

/** Words of context FTS5 gives a snippet: about a line of a terminal. */
const SNIPPET_TOKENS = 20;

/** Characters shown before the first match when a snippet is cut. */
const LEAD_CHARS = 80;

export type SearchRole = 'user' | 'assistant' | 'tool';

export interface SearchOptions {
  env: Env;
  /** As typed: words, "phrases", prefix* (`query.ts`). */
  query: string;
  providers?: readonly ProviderId[] | null;
  /** Only sessions whose project's path contains this. */
  project?: string | null;
  /** Only turns from (and before) these times. */
  sinceMs?: number | null;
  untilMs?: number | null;
  role?: SearchRole | null;
  /** 1 to `MAX_RESULTS`; `DEFAULT_RESULTS` when left out. */
  limit?: number;
  /** Time to spend catching up first: `MAX_CATCH_UP_MS` when left out, Infinity to read everything. */
  budgetMs?: number;
}

export interface SearchHit {
  provider: ProviderId;
  /** The session's id, as `cctop chat` takes it. */
  session: string;
  project: string | null;
  title: string | null;
  /** Who said it: the person, the agent, the agent's calls, or the session's title. */
  role: RowRole;
  /** The turn (as `cctop chat` numbers it); null for a title. */
  seq: number | null;
  /** When the turn was written (ISO); null when the transcript did not say, and for a title. */
  at: string | null;
  /** One line of the transcript's words around the match, as written (not yet made safe). */
  snippet: string;
  /** Where the matches are in `snippet`: [start, end) in UTF-16 units, in order. */
  marks: [number, number][];
  /** The command that opens the conversation at this turn. */
  open: string;
}

export type SearchAnswer =
  | {
      kind: 'results';
      results: SearchHit[];
      /** Transcripts not read yet when the budget ran out: results from them are missing. */
      behind: Behind | null;
      /** Something the user should know (the index was rebuilt, the session index was bypassed). */
      notice: string | null;
    }
  | { kind: 'malformed'; why: string }
  | { kind: 'unavailable'; why: string };

/** A snippet as one line with its marks found, cut around the first match when it is long. */
export function shapeSnippet(raw: string): { snippet: string; marks: [number, number][] } {
  const flat = raw.replace(/\s+/g, ' ').trim();
  let text = '';
  const marks: [number, number][] = [];
  let open: number | null = null;
  for (const ch of flat) {
    if (ch === MARK_OPEN) open = text.length;
    else if (ch === MARK_CLOSE) {
      if (open !== null && text.length > open) marks.push([open, text.length]);
      open = null;
    } else text += ch;
  }
  if (text.length <= MAX_SNIPPET_CHARS) return { snippet: text, marks };
  let from = Math.max(0, (marks[0]?.[0] ?? 0) - LEAD_CHARS);
  // Never start in the middle of a surrogate pair.
  if (from > 0 && /[\udc00-\udfff]/.test(text[from]!)) from--;
  let to = Math.min(text.length, from + MAX_SNIPPET_CHARS);
  if (to < text.length && /[\ud800-\udbff]/.test(text[to - 1]!)) to--;
  const kept = marks
    .filter(([a]) => a >= from && a < to)
    .map(([a, b]): [number, number] => [
      a - from + (from > 0 ? 1 : 0),
      Math.min(b, to) - from + (from > 0 ? 1 : 0),
    ]);
  return {
    snippet: `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`,
    marks: kept,
  };
}

/** The shell words of `cctop chat <id> --at <seq>`, quoted where an id needs it. */
export function openCommand(session: string, seq: number | null): string {
  const id = /^[A-Za-z0-9._:@+-]+$/.test(session) ? session : `'${session.replace(/'/g, `'\\''`)}'`;
  return `cctop chat ${id}${seq === null ? '' : ` --at ${seq}`}`;
}

function hitOf(r: FoundRow): SearchHit {
  const { snippet, marks } = shapeSnippet(r.snippet ?? '');
  return {
    provider: r.provider,
    session: r.session,
    project: r.project,
    title: r.title,
    role: r.role,
    seq: r.seq,
    at: r.ts === null ? null : new Date(r.ts).toISOString(),
    snippet,
    marks,
    open: openCommand(r.session, r.seq),
  };
}

/** SQLite's own failures (a lock held past the busy timeout, a full disk), told apart from bugs. */
const fromSqlite = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_');
};

/**
 * Catch the index up within the budget. A write the database refuses (another cctop holding it past
 * the busy timeout, a full disk) leaves the index as it was: the query still answers from it, and
 * says it may be behind. Damage is thrown on, for `search` to set the index aside.
 */
async function catchingUp(db: SearchDb, o: SearchOptions): Promise<CaughtUp> {
  const budget = Math.max(0, o.budgetMs ?? MAX_CATCH_UP_MS);
  try {
    return await catchUp(db, {
      env: o.env,
      clock: () => performance.now(),
      deadline: performance.now() + budget,
    });
  } catch (err) {
    if (isCorruption(err) || !fromSqlite(err)) throw err;
    return {
      behind: null,
      read: { files: 0, bytes: 0 },
      listed: false,
      notice: `the search index could not be brought up to date (${(err as Error).message}); these results may be behind`,
    };
  }
}

/** Catch the index up within the budget, then run the query. Never throws for a query or a damaged index. */
export async function search(o: SearchOptions): Promise<SearchAnswer> {
  const parsed = parseQuery(o.query);
  if (parsed.kind === 'malformed') return parsed;
  const dir = cacheDir(o.env);
  const opened = SearchDb.open(dir);
  if (opened.kind === 'unavailable') return opened;
  const db = opened.db;
  try {
    const caught = await catchingUp(db, o);
    const limit = Math.min(MAX_RESULTS, Math.max(1, Math.floor(o.limit ?? DEFAULT_RESULTS)));
    const rows = db.query(
      parsed.match,
      {
        providers: o.providers ?? null,
        project: o.project ?? null,
        sinceMs: o.sinceMs ?? null,
        untilMs: o.untilMs ?? null,
        role: o.role ?? null,
      },
      limit,
      SNIPPET_TOKENS,
    );
    const notice = [opened.notice, caught.notice].filter((n) => n !== null).join('; ');
    return {
      kind: 'results',
      results: rows.map(hitOf),
      behind: caught.behind,
      notice: notice.length > 0 ? notice : null,
    };
  } catch (err) {
    if (!isCorruption(err)) throw err;
    const ino = db.ino();
    db.close();
    const again = SearchDb.again(db.path, ino, (err as Error).message);
    if (again.kind === 'open') again.db.close();
    return {
      kind: 'unavailable',
      why: `${again.kind === 'open' ? again.notice : again.why}; search again to index the transcripts anew`,
    };
  } finally {
    db.close();
  }
}
