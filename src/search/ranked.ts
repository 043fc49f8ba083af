/**
 * The statement that answers a query: the rows FTS5 matches, narrowed by the filters in the same
 * statement (so BM25 ranks only what passes), best first, each with a snippet whose matches sit
 * between `MARK_OPEN` and `MARK_CLOSE` (the controls 2 and 3), and the session its file belongs to.
 *
 * Not here: what the typed query means (`query.ts`) or running the statement (`store.ts`).
 */
import { type Filters, ROW_SLOTS } from './rows.js';

export function rankedQuery(
  match: string,
  f: Filters,
  limit: number,
  snippetTokens: number,
): { sql: string; params: Record<string, unknown> } {
  const where: string[] = ['turns MATCH @match'];
  const params: Record<string, unknown> = { match, limit, tokens: snippetTokens };
  if (f.providers !== null) {
    where.push(`f.provider IN (${f.providers.map((_, i) => `@p${i}`).join(', ')})`);
    f.providers.forEach((p, i) => {
      params[`p${i}`] = p;
    });
  }
  if (f.project !== null) {
    where.push('instr(f.project, @project) > 0');
    params.project = f.project;
  }
  if (f.sinceMs !== null) {
    where.push('t.ts >= @since');
    params.since = f.sinceMs;
  }
  if (f.untilMs !== null) {
    where.push('t.ts < @until');
    params.until = f.untilMs;
  }
  if (f.role !== null) {
    where.push('t.role = @role');
    params.role = f.role;
  }
  // The slots are written into the statement: a bound number would arrive as a REAL, and the
  // division with it would name no file.
  const sql = `SELECT f.provider AS provider, f.session AS session, f.project AS project, f.title AS title,
      t.role AS role, t.seq AS seq, t.ts AS ts,
      snippet(turns, 0, char(2), char(3), '…', @tokens) AS snippet
    FROM turns AS t JOIN files AS f ON f.id = t.rowid / ${ROW_SLOTS}
    WHERE ${where.join(' AND ')}
    ORDER BY bm25(turns) LIMIT @limit`;
  return { sql, params };
}
