/**
 * Test helper: damage a SQLite file the way a failing disk or a stray write does, in the pages of one
 * table, leaving its header and schema whole (so it still opens, and the damage is met later).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import Database from 'better-sqlite3';

/** Overwrite every page of `table` in the SQLite file at `path` with random bytes. */
export function damagePages(path: string, table: string): void {
  const db = new Database(path, { readonly: true });
  const size = db.pragma('page_size', { simple: true }) as number;
  const pages = db.prepare('SELECT pageno FROM dbstat WHERE name = ?').all(table) as { pageno: number }[];
  db.close();
  if (pages.length === 0) throw new Error(`${path} has no pages of ${table}`);
  const fd = openSync(path, 'r+');
  try {
    for (const { pageno } of pages) writeSync(fd, randomBytes(size), 0, size, (pageno - 1) * size);
  } finally {
    closeSync(fd);
  }
}
