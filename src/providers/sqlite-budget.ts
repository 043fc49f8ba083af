/**
 * The time budget of one read of a harness's database. A database is as untrusted as a transcript:
 * anyone who can write a file where an agent keeps its data can put a view where a table should be,
 * and a view can run any query, one that never ends included. So a read runs within a time budget
 * (`withinBudget`) that SQLite itself enforces: each statement that may visit many rows calls
 * `IN_BUDGET` for each row or group, which stops the statement once the budget is spent. Past it, the
 * read is a problem, not a hang.
 *
 * Not here: refusing a view outright (`sqlite-schema.ts`), nor opening the connections the budget's
 * SQL function is added to (`sqlite.ts` adds it to each one it opens).
 *
 * known limit: the budget is checked between rows, not inside one. Over real tables a row costs at most
 * its own bytes, but a table without the index a grouped count expects is sorted whole before its
 * first group, so a hostile database of many gigabytes can take longer than the budget; it ends.
 * A worker thread would not do better: `Worker.terminate()` cannot stop a thread inside SQLite, and
 * the process then cannot exit either (tried: better-sqlite3 12 offers neither
 * `sqlite3_progress_handler` nor `sqlite3_interrupt`).
 */
import type BetterSqlite3 from 'better-sqlite3';

/**
 * How long one read of a harness's database may take: listing its sessions, or reading one session
 * or its conversation. Listing an OpenCode database of 100,000 messages and 500,000 parts took 0.06 s
 * here, and a session is a small part of that: 10 s is over a hundred times the largest read measured
 * and still short of when a person gives up on `cctop --list`, and it turns a read that would never
 * end (a view over an endless query) into a problem.
 */
export const DB_READ_BUDGET_MS = 10_000;

/** The SQL function `IN_BUDGET` calls, as `addBudgetCheck` registers it. */
const BUDGET_FUNCTION = 'cctop_in_budget';

/**
 * The SQL that keeps a statement within the budget: true while time is left, an error once it is
 * spent. Put where SQLite evaluates it for each row or group (`WHERE`, `HAVING`) of a statement that
 * may visit many.
 */
export const IN_BUDGET = `${BUDGET_FUNCTION}()`;

/** When the read under way must stop (a monotonic time in ms); none outside `withinBudget`. */
let deadline = Number.POSITIVE_INFINITY;

/** Thrown by `IN_BUDGET` inside SQLite, which stops the statement and hands it back. */
class OverBudget extends Error {}

/**
 * Run `read` (which queries through `readOnly` connections) within `budgetMs`. Past it, the statement
 * under way stops and this throws an error that says so. A read inside another keeps the outer budget.
 */
export function withinBudget<T>(read: () => T, budgetMs = DB_READ_BUDGET_MS): T {
  if (deadline !== Number.POSITIVE_INFINITY) return read();
  deadline = performance.now() + budgetMs;
  try {
    return read();
  } catch (err) {
    if (err instanceof OverBudget)
      throw new Error(
        `reading it took longer than ${budgetMs / 1000} s, the budget for one read of an agent's database; it is skipped this time`,
      );
    throw err;
  } finally {
    deadline = Number.POSITIVE_INFINITY;
  }
}

function inBudget(): 1 {
  if (performance.now() > deadline) throw new OverBudget('over budget');
  return 1;
}

/** Make `IN_BUDGET` callable in `db`'s statements. */
export function addBudgetCheck(db: BetterSqlite3.Database): void {
  db.function(BUDGET_FUNCTION, { deterministic: false, directOnly: true }, inBudget);
}
