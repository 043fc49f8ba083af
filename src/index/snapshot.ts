/**
 * One picture of every session now: the scan (through the index unless told not to) and the
 * session document. Views ask this; they never parse a transcript themselves.
 */
import type { Plan, SessionDocument } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { PriceBook, type PriceCache } from '../model/pricing.js';
import { LocalTime } from '../model/time.js';
import { cacheDir } from '../paths.js';
import type { Env } from '../providers/types.js';
import { type CatalogueInfo, loadCatalogue } from './catalogue.js';
import { defaultThreads } from './pool.js';
import { type ScanOutcome, scanFiles } from './refresh.js';
import type { Discovery } from './scan.js';
import { buildDocument, type ParsedFile } from './sessions.js';
import { IndexStore } from './store.js';

export interface SnapshotOptions {
  env: Env;
  plan: Plan;
  providers: readonly ProviderId[] | null;
  timeZone?: string;
  sinceMs: number | null;
  untilMs: number | null;
  nowMs?: number;
  /** false for `--no-cache`: a cold scan that leaves the index alone. */
  useIndex?: boolean;
  /** Fills in the live processes (`running`); left out, `running` stays null. */
  annotate?: (doc: SessionDocument) => boolean;
  threads?: number;
}

export interface Snapshot {
  document: SessionDocument;
  discovery: Discovery;
  problemsDropped: number;
  catalogue: CatalogueInfo;
  notice: string | null;
  stats: ScanOutcome['stats'];
  /** What the document was built from, for views that go deeper into one session (the report). */
  files: ParsedFile[];
  book: PriceBook;
  time: LocalTime;
}

export async function takeSnapshot(o: SnapshotOptions): Promise<Snapshot> {
  const catalogue = loadCatalogue(o.env);
  let notice: string | null = null;
  let store: IndexStore | null = null;
  if (o.useIndex ?? true) {
    const opened = IndexStore.open(cacheDir(o.env));
    if (opened.kind === 'open') store = opened.store;
    else notice = opened.notice;
  }
  try {
    const scan = await scanFiles({
      env: o.env,
      providers: o.providers,
      sinceMs: o.sinceMs,
      store,
      threads: o.threads ?? defaultThreads(),
    });
    // Resolved prices are kept in the index too: a warm run never loads the catalogue.
    const known = store?.loadPrices() ?? new Map<string, string>();
    const added = new Map<string, string>();
    const cache: PriceCache = {
      get: (k) => known.get(k),
      set: (k, v) => {
        known.set(k, v);
        added.set(k, v);
      },
    };
    const book = new PriceBook(catalogue.digest, cache);
    const time = new LocalTime(o.timeZone);
    const document = buildDocument(scan.files, {
      env: o.env,
      plan: o.plan,
      book,
      time,
      nowMs: o.nowMs ?? Date.now(),
      sinceMs: o.sinceMs,
      untilMs: o.untilMs,
      problems: scan.problems,
    });
    o.annotate?.(document);
    if (store && added.size > 0) {
      try {
        store.savePrices(added);
      } catch {
        // Not worth failing over: the prices are recomputed next time.
      }
    }
    return {
      document,
      discovery: scan.discovery,
      problemsDropped: scan.problems.dropped,
      catalogue,
      notice,
      stats: scan.stats,
      files: scan.files,
      book,
      time,
    };
  } finally {
    store?.close();
  }
}
