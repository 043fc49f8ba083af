/**
 * What a harness's database is made of, asked before it is read. A database is as untrusted as a
 * transcript, and a view where a table should be can run any query; so a provider reads only what
 * `tablesOnly` confirmed to be tables, and `columnsOf` sees a view as no table at all.
 *
 * Not here: any query of the agent's own tables. Each provider knows its own schema (and that the
 * schema moves between releases), and asks for columns defensively, through these.
 */
import type BetterSqlite3 from 'better-sqlite3';

type Database = BetterSqlite3.Database;

/**
 * Refuse to read `db` unless each of `required` is a table, and each of `optional` a table or absent.
 * A view (or anything else by that name) makes the whole database a problem: it is not what the
 * agent wrote, and it could run any query.
 */
export function tablesOnly(
  db: Database,
  required: readonly string[],
  optional: readonly string[] = [],
): void {
  const kindOf = db.prepare('SELECT type FROM sqlite_master WHERE name = ? COLLATE NOCASE');
  for (const name of [...required, ...optional]) {
    const kind = (kindOf.get(name) as { type: string } | undefined)?.type;
    if (kind === undefined && optional.includes(name)) continue;
    if (kind === 'table') continue;
    throw new Error(
      kind === undefined
        ? `it has no \`${name}\` table`
        : `its \`${name}\` is a ${kind}, not a table; cctop reads only the tables an agent writes`,
    );
  }
}

/**
 * The columns a table has, or an empty set when it does not exist (schemas move between releases). A
 * view is not a table: its columns are not listed, so a caller asking before it reads treats it as
 * absent.
 */
export function columnsOf(db: Database, table: string): Set<string> {
  try {
    const kind = db.prepare('SELECT type FROM sqlite_master WHERE name = ? COLLATE NOCASE').get(table) as
      | { type: string }
      | undefined;
    if (kind?.type !== 'table') return new Set();
    const rows = db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[];
    return new Set(rows.map((r) => r.name));
  } catch {
    return new Set();
  }
}
