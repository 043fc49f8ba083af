/**
 * One refresh of the session index, as one object: what a one-shot command (and many tests) asks
 * for. A thin face over `SessionIndex`, which does all the work; nothing here reads or builds.
 */
import type { SessionDocument } from '../model/document.js';
import type { PriceBook } from '../model/pricing.js';
import type { LocalTime } from '../model/time.js';
import type { CatalogueInfo } from './catalogue.js';
import type { SessionFiles } from './files-of.js';
import type { DocumentExtras } from './picture.js';
import type { Discovery } from './scan.js';
import { type IndexOptions, type Refreshed, SessionIndex } from './session-index.js';
import type { ParsedFile } from './sessions.js';
import type { ScanStats, Strategy } from './strategies.js';

export type { SessionFiles } from './files-of.js';

export interface SnapshotOptions extends Omit<IndexOptions, 'now'> {
  nowMs?: number;
}

export interface Snapshot {
  readonly index: SessionIndex;
  readonly document: SessionDocument;
  /**
   * The document as `cctop --json` prints it: ASCII bytes in one buffer; `extra` adds what the index
   * does not know, `tail` (a newline) goes after it.
   */
  json(extra?: DocumentExtras, tail?: string): Buffer;
  /** The same bytes as the parts of one `writev`: the kept facts where they lie, no copy of them made. */
  jsonParts(extra?: DocumentExtras, tail?: string): Uint8Array[];
  discovery: Discovery;
  problemsDropped: number;
  catalogue: CatalogueInfo;
  notice: string | null;
  stats: ScanStats;
  strategy: Strategy;
  declined: Refreshed['declined'];
  /** The parsed files, when this refresh built (null when it answered from the index). */
  files: readonly ParsedFile[] | null;
  book: PriceBook;
  time: LocalTime;
  filesOf(session: {
    provider: SessionDocument['sessions'][number]['provider'];
    id: string;
  }): SessionFiles | null;
}

export async function takeSnapshot(o: SnapshotOptions): Promise<Snapshot> {
  const { nowMs, ...rest } = o;
  const once = { ...rest, oneRefresh: true };
  const index = SessionIndex.open(nowMs === undefined ? once : { ...once, now: () => nowMs });
  const r = await index.refresh();
  // A one-shot answer: the index is closed at once (its log is folded back into the database).
  index.close();
  let document: SessionDocument | null = null;
  return {
    index,
    get document() {
      document ??= index.document();
      return document;
    },
    json: (extra, tail) => index.json(extra, tail),
    jsonParts: (extra, tail) => index.jsonParts(extra, tail),
    discovery: index.discovery,
    problemsDropped: index.problems.dropped,
    catalogue: index.catalogue,
    notice: index.notice,
    stats: r.stats,
    strategy: r.strategy,
    declined: r.declined,
    files: index.files,
    book: index.book,
    time: index.localTime,
    filesOf: (s) => index.filesOf(s),
  };
}
