/**
 * One picture of every session now: the scan (through the index unless told not to) and the
 * session document. Views ask this; they never parse a transcript themselves.
 *
 * Three ways to an answer, fastest first, each exactly what the next would give:
 * - nothing changed since the sessions kept in the index were built (same files, same sizes and
 *   times; same options, code, catalogue and day): those sessions, their states read again against
 *   the clock and their processes looked up (an earlier hour of the day slides the spend series);
 * - a few files changed, sharing no message with any other file: those files read from where they
 *   stopped and only their sessions rebuilt (`patch.ts`);
 * - otherwise every file brought up to date through the index and every session built, reusing the
 *   kept sessions whose inputs did not move; what was built is kept for the next run.
 */

import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Annotator, Plan, SessionDocument } from '../model/document.js';
import { DOCUMENT_VERSION } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { RECORD_FIELDS } from '../model/ledger.js';
import { PriceBook, type PriceCache } from '../model/pricing.js';
import { ProblemLog } from '../model/problems.js';
import { stateNow } from '../model/state.js';
import { LocalTime } from '../model/time.js';
import { cacheDir } from '../paths.js';
import type { Env, ProviderPlace } from '../providers/types.js';
import {
  cacheFromKept,
  discoveryDigest,
  documentJson,
  KeptDocument,
  type KeptFile,
  keptFromCache,
  keptInputsOf,
  scopeKey,
  shiftHours,
  TOUCH_AFTER_MS,
} from './built.js';
import { type CatalogueInfo, loadCatalogue } from './catalogue.js';
import { KEEP_PATCH_AFTER_MS, KEEP_PATCH_FILES, patchKept } from './patch.js';
import { defaultThreads, prestartWorkers } from './pool.js';
import { asParsed, type ScanOutcome, scanFiles } from './refresh.js';
import { chosenProviders, type Discovery, discoverAll } from './scan.js';
import {
  addProblem,
  type BuildOptions,
  type BuildRecord,
  buildDocument,
  type LiveInputs,
  type ParsedFile,
  type SessionCache,
} from './sessions.js';
import { IndexStore } from './store.js';
import { buildVersion } from './version.js';

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
  annotate?: Annotator;
  threads?: number;
  /**
   * Whether an unchanged history may be answered from the sessions the last run kept in the index
   * (default true). Views that need the parsed files themselves (`report`, `doctor`) say false.
   */
  fromKept?: boolean;
}

export interface Snapshot {
  readonly document: SessionDocument;
  /** The document as `cctop --json` prints it (see `documentJson`): ASCII bytes. */
  json(): Buffer;
  discovery: Discovery;
  problemsDropped: number;
  catalogue: CatalogueInfo;
  notice: string | null;
  stats: ScanOutcome['stats'];
  /**
   * What the document was built from, for views that go deeper into one session (the report); null
   * when the document came whole from the sessions kept in the index.
   */
  files: ParsedFile[] | null;
  book: PriceBook;
  time: LocalTime;
  /**
   * The parsed files of one session and which of their records count, for views that go deeper
   * (the report): from `files` when the snapshot has them, else from the index.
   */
  filesOf(session: { provider: ProviderId; id: string }): SessionFiles | null;
}

export interface SessionFiles {
  files: ParsedFile[];
  /** Which records count, decided over the whole history; null: deduplicate `files` yourself. */
  masks: Map<ParsedFile, Uint8Array> | null;
}

export async function takeSnapshot(o: SnapshotOptions): Promise<Snapshot> {
  return toldOnce(await throughIndex(o));
}

/** The snapshot through the index: opened, rebuilt once when found damaged, or bypassed. */
async function throughIndex(o: SnapshotOptions): Promise<Snapshot> {
  const catalogue = loadCatalogue(o.env);
  if (o.useIndex === false) return answer(o, catalogue, null, null);
  const dir = cacheDir(o.env);
  const opened = IndexStore.open(dir);
  if (opened.kind === 'bypassed') return answer(o, catalogue, null, opened.notice);
  const first = await answerFrom(o, catalogue, opened.store, opened.rebuilt);
  if (first.kind === 'answered') return first.snapshot;
  // The index proved damaged on the way: what it gave is dropped and the question asked again of a
  // new one, once. A new index damaged at once is a disk to distrust: then no index this run.
  const healed = IndexStore.rebuild(dir, opened.store);
  if (healed.kind === 'bypassed') return answer(o, catalogue, null, healed.notice);
  const second = await answerFrom(o, catalogue, healed.store, healed.rebuilt);
  if (second.kind === 'answered') return second.snapshot;
  return answer(
    o,
    catalogue,
    null,
    `${healed.rebuilt}, but the new index was damaged too; reading without it`,
  );
}

/**
 * The answer with `store` open (closed after), or `damaged` when the index was found damaged while
 * answering, even where that only cost time (a kept build that would not read): the answer is then
 * not trusted, since it was given by a damaged index.
 */
async function answerFrom(
  o: SnapshotOptions,
  catalogue: CatalogueInfo,
  store: IndexStore,
  notice: string | null,
): Promise<{ kind: 'answered'; snapshot: Snapshot } | { kind: 'damaged' }> {
  try {
    const snapshot = await answer(o, catalogue, store, notice);
    if (store.damaged === null) return { kind: 'answered', snapshot };
  } catch (err) {
    if (store.damaged === null) throw err;
  } finally {
    store.close();
  }
  return { kind: 'damaged' };
}

/** Notices this process already gave: a command that takes two snapshots says each once. */
const told = new Set<string>();

/** `s` with its notice kept only the first time this process gives it (its problem stays). */
function toldOnce(s: Snapshot): Snapshot {
  if (s.notice !== null && told.has(s.notice)) s.notice = null;
  else if (s.notice !== null) told.add(s.notice);
  return s;
}

/**
 * One answer, through `store` when there is one (the caller closes it). `notice` says why the index
 * was rebuilt or is not used: it goes to the user (once: `toldOnce`) and into the problems every time
 * (a `cache` problem, which `cctop doctor` lists).
 */
async function answer(
  o: SnapshotOptions,
  catalogue: CatalogueInfo,
  store: IndexStore | null,
  notice: string | null,
): Promise<Snapshot> {
  const nowMs = o.nowMs ?? Date.now();
  const time = new LocalTime(o.timeZone);
  const hourStart = time.hourStart(nowMs);
  const problems = new ProblemLog();
  if (notice !== null) problems.add({ kind: 'cache', path: cacheDir(o.env), count: null, detail: notice });
  const providers = chosenProviders(o.providers);
  // A pass that will read everything starts its workers first, to load while discovery runs.
  const threads = o.threads ?? defaultThreads();
  if (threads > 1 && (store === null || store.isEmpty())) prestartWorkers(threads);
  const discovery = discoverAll(o.env, providers, problems);
  const scope = store ? scopeOf(o, providers, discovery, catalogue.digest, time, nowMs) : null;
  const digest = discoveryDigest(discovery);
  // The scope, its sessions and (when a patch may need them) its inputs, as one consistent read.
  let read: ReturnType<typeof readKept> | null = null;
  try {
    if (store && scope) read = store.reading(() => readKept(store, scope, hourStart, digest));
  } catch {
    // Kept sessions only save time: unreadable, they are simply not used.
  }
  const kept = read?.kept ?? null;
  // Resolved prices are kept in the index too: a warm run never loads the catalogue.
  const known = store?.loadPrices() ?? new Map<string, string>();
  const added = new Map<string, string>();
  const book = new PriceBook(catalogue.digest, priceCache(known, added));
  const build: BuildOptions = {
    env: o.env,
    plan: o.plan,
    book,
    time,
    nowMs,
    sinceMs: o.sinceMs,
    untilMs: o.untilMs,
    problems,
  };
  const savePrices = () => {
    if (!store || added.size === 0) return;
    try {
      store.savePrices(added);
    } catch {
      // Not worth failing over: the prices are recomputed next time.
    }
  };

  const frame = {
    version: DOCUMENT_VERSION,
    generatedAt: new Date(nowMs).toISOString(),
    plan: o.plan,
    timeZone: time.timeZone,
    problems: problems.list,
  };
  const stateAt = (l: LiveInputs) => stateNow(l.signal, l.mtime, l.lastMs, nowMs);
  /**
   * A snapshot straight from kept sessions, or null when they are damaged; `settle` runs once they
   * are known good (to log the kept problems); `indexed` says whether the index holds what the
   * sessions were built from (a report can then read one session's files from it).
   */
  const fromKept = (
    view: KeptDocument | null,
    stats: ScanOutcome['stats'],
    settle = () => {},
    indexed = true,
  ): Snapshot | null => {
    if (!view) return null;
    settle();
    o.annotate?.(view);
    return {
      get document() {
        return view.document();
      },
      json: () => view.json(),
      discovery,
      problemsDropped: problems.dropped,
      catalogue,
      notice,
      stats,
      files: null,
      book,
      time,
      filesOf: (s) =>
        scope && indexed ? keptSessionFiles(o.env, scope, `${s.provider}\u0000${s.id}`) : null,
    };
  };

  // Kept sessions built in an earlier hour of the day are moved to this one (spend windows slide).
  let stored = read?.sessions ?? null;
  let rehoured = false;
  if (stored && kept && kept.hourStart < hourStart) {
    stored = shiftHours(stored, kept.hourStart, hourStart);
    rehoured = stored !== null;
  }
  if (store && scope && kept && stored && o.fromKept !== false) {
    if (kept.digest === digest) {
      // Nothing changed: the kept sessions as they are.
      const stats = {
        reused: discovery.files.length,
        tailed: 0,
        read: 0,
        deleted: 0,
        bytesRead: 0,
        gone: 0,
      };
      const snap = fromKept(
        safely(() => KeptDocument.from(stored, frame, stateAt)),
        stats,
        () => {
          for (const k of kept.problems) addProblem(k.problem, k.after, nowMs, problems, undefined);
        },
      );
      if (snap) {
        if (rehoured) {
          try {
            store.rehour(scope, kept, hourStart, stored, nowMs);
          } catch {
            // The next run moves them again.
          }
        } else if (nowMs - kept.usedAt > TOUCH_AFTER_MS) {
          try {
            store.touchScope(scope, nowMs);
          } catch {
            // Only the eviction order suffers.
          }
        }
        return snap;
      }
    } else {
      // A few files changed: rebuild only their sessions, when that provably equals a full build.
      const listedBefore = problems.list.length;
      const droppedBefore = problems.dropped;
      const inputs = read?.inputs ?? null;
      let patched: Awaited<ReturnType<typeof patchKept>> = null;
      try {
        if (inputs)
          patched = await patchKept({
            store,
            discovery,
            problems: kept.problems,
            sessions: stored,
            inputs,
            build,
            threads,
            appendOnly: (id) => providers.find((p) => p.id === id)?.appendOnly === true,
          });
      } catch {
        // Kept sessions that do not read as written: build in full.
        patched = null;
      }
      let keptNow = false;
      const worthKeeping =
        patched !== null && (patched.changed > KEEP_PATCH_FILES || nowMs - kept.keptAt > KEEP_PATCH_AFTER_MS);
      if (patched && worthKeeping) {
        try {
          store.keep(
            scope,
            { digest, hourStart, problems: patched.problems },
            patched.joined(),
            patched.inputs(),
            nowMs,
          );
          keptNow = true;
        } catch {
          // Another cctop held the index, or the disk is full: build in full (a snapshot from
          // kept sessions must be able to find its files' masks in the index).
        }
      }
      if (patched && (keptNow || !worthKeeping)) {
        savePrices();
        const stats = {
          reused: discovery.files.length - patched.stats.tailed - patched.stats.read,
          deleted: 0,
          ...patched.stats,
        };
        // The index's masks are those of the kept build: they serve a report only once written.
        const view = safely(() => KeptDocument.of(patched.texts, patched.heads, frame, stateAt));
        const snap = fromKept(view, stats, () => {}, keptNow);
        if (snap) return snap;
      }
      // What the patch logged is found again by the full build.
      problems.list.length = Math.min(problems.list.length, listedBefore);
      problems.dropped = droppedBefore;
    }
  }

  const cache: SessionCache = (stored && cacheFromKept(stored)) ?? new Map();
  const logged = problems.list.length + problems.dropped;
  const scan = await scanFiles({
    env: o.env,
    providers: o.providers,
    sinceMs: o.sinceMs,
    store,
    threads,
    discovered: { discovery, problems },
    once: store === null,
  });
  // A file that could not be read this time must be tried again next time, not answered from here.
  const clean = problems.list.length + problems.dropped === logged;
  const record: BuildRecord = { problems: [], groups: [], masks: new Map(), summaries: new Map() };
  const document = buildDocument(scan.files, { ...build, record }, cache);
  if (store && scope && clean) {
    try {
      store.keep(
        scope,
        { digest, hourStart, problems: record.problems },
        keptFromCache(cache),
        keptInputsOf(scan.files, record),
        nowMs,
      );
    } catch {
      // Another cctop held the index, or the disk is full: the next run builds again.
    }
  }
  o.annotate?.(document);
  savePrices();
  return {
    document,
    json: () => Buffer.from(documentJson(document), 'latin1'),
    discovery,
    problemsDropped: problems.dropped,
    catalogue,
    notice,
    stats: scan.stats,
    files: scan.files,
    book,
    time,
    filesOf: (s) => ({
      files: scan.files.filter((p) => p.file.provider === s.provider),
      masks: null,
    }),
  };
}

/** What the index keeps of `scope` that this run can use: sessions of this day up to this hour. */
function readKept(store: IndexStore, scope: string, hourStart: number, digest: string) {
  const kept = store.keptScope(scope);
  if (!kept || kept.hourStart > hourStart) return { kept, sessions: null, inputs: null };
  const sessions = store.keptSessions(scope);
  // The inputs (4 MB on a large history) only serve a patch: an unchanged history needs none.
  const inputs = sessions && kept.digest !== digest ? store.keptInputs(scope) : null;
  return { kept, sessions, inputs };
}

/**
 * One session's files from the index, with the masks the kept build decided over the whole history
 * (a session's messages may repeat in other sessions' files, so deduplicating it alone could differ).
 */
function keptSessionFiles(env: Env, scope: string, key: string): SessionFiles | null {
  const opened = IndexStore.open(cacheDir(env));
  if (opened.kind !== 'open') return null;
  const store = opened.store;
  try {
    const inputs = store.keptInputs(scope);
    if (!inputs) return null;
    const mine: { at: number; file: KeptFile }[] = [];
    let at = 0;
    for (const f of inputs.files) {
      if (f.session === key) mine.push({ at, file: f });
      at += f.records;
    }
    // A damaged index serves nothing here: the caller then reads the session's files itself.
    const rows = safely(() => store.loadPaths(mine.map((m) => m.file.path)));
    if (!rows || store.damaged !== null) return null;
    const files: ParsedFile[] = [];
    const masks = new Map<ParsedFile, Uint8Array>();
    for (const m of mine) {
      const row = rows.get(m.file.path);
      if (!row || row.result.ledger.data.length / RECORD_FIELDS !== m.file.records) return null;
      const p = asParsed(row, m.file.deleted);
      files.push(p);
      masks.set(p, inputs.masks.subarray(m.at, m.at + m.file.records));
    }
    return files.length > 0 ? { files, masks } : null;
  } finally {
    store.close();
  }
}

/** What `f` gives, or null when it throws: kept sessions that do not read as written are not used. */
function safely<T>(f: () => T | null): T | null {
  try {
    return f();
  } catch {
    return null;
  }
}

/** Resolved prices read from (and added to) the index. */
function priceCache(known: Map<string, string>, added: Map<string, string>): PriceCache {
  return {
    get: (k) => known.get(k),
    set: (k, v) => {
      known.set(k, v);
      added.set(k, v);
    },
  };
}

/** The scope of a build: everything its documents depend on besides the transcripts and the hour. */
function scopeOf(
  o: SnapshotOptions,
  providers: readonly ProviderPlace[],
  discovery: Discovery,
  catalogue: string,
  time: LocalTime,
  nowMs: number,
): string {
  return scopeKey({
    version: DOCUMENT_VERSION,
    plan: o.plan,
    providers: providers.map((p) => p.id),
    roots: discovery.roots.map((r) => r.path),
    sinceMs: o.sinceMs,
    untilMs: o.untilMs,
    timeZone: time.timeZone,
    catalogue,
    code: buildVersion(),
    settings: JSON.stringify([
      providers.map((p) => p.compactRatio(o.env)),
      // A harness-wide settings file can change a window rule (Claude pins a 1M window there).
      discovery.roots.map((r) => {
        const st = statSync(join(r.path, 'settings.json'), { throwIfNoEntry: false });
        return st ? [st.size, st.mtimeMs] : null;
      }),
    ]),
    day: time.dayNumber(nowMs),
  });
}
