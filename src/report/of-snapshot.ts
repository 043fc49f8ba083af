/**
 * A session's report from the index: built from the session's own files as the snapshot knows them,
 * or, when the snapshot came from kept sessions and cannot name a session's files, from a snapshot
 * read in full. Every consumer of a report (`cctop report`, `handoff`, `export`, the MCP server)
 * asks here, so they all see the same report of the same session.
 *
 * Not here: building the report itself (`build.ts`), or choosing the session.
 */
import type { Snapshot } from '../index/snapshot.js';
import type { SessionDoc } from '../model/document.js';
import { buildReport } from './build.js';
import type { SessionReport } from './types.js';

export async function reportFor(
  s: SessionDoc,
  snap: Snapshot,
  /** A snapshot read in full, taken only when `snap` cannot give the session's files. */
  whole: () => Promise<Snapshot>,
): Promise<SessionReport> {
  let mine = snap.filesOf(s);
  let from = snap;
  if (mine === null) {
    from = await whole();
    mine = from.filesOf(s);
  }
  return buildReport({
    session: s,
    files: mine?.files ?? [],
    ...(mine?.masks ? { masks: mine.masks } : {}),
    book: from.book,
    time: from.time,
    nowMs: Date.now(),
  });
}
