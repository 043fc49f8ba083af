/**
 * The live picture a long-running cctop keeps (the terminal table, `serve`): every few seconds it
 * re-stats the transcripts, reads only what changed, and rebuilds only the sessions whose files or
 * spend windows moved. A refresh with nothing changed costs a stat per file and a glance at the
 * working sessions' clocks.
 *
 * The first picture comes straight from the index, before any transcript is read, so a view can draw
 * at once and fill in; the index is written as files are read, so other cctops benefit.
 *
 * Not here: drawing anything, or processes (see `processes.ts`).
 */
import { EventEmitter } from 'node:events';
import { loadCatalogue } from '../index/catalogue.js';
import { findSession } from '../index/find.js';
import { defaultThreads } from '../index/pool.js';
import { scanFiles } from '../index/refresh.js';
import type { Discovery } from '../index/scan.js';
import { buildDocument, type ParsedFile, restate, type SessionCache } from '../index/sessions.js';
import { IndexStore, type StoredFile } from '../index/store.js';
import type { CallLog } from '../model/calls.js';
import type { Conversation } from '../model/conversation.js';
import { unsupported } from '../model/conversation.js';
import type { Plan, SessionDoc, SessionDocument } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { PriceBook, type PriceCache } from '../model/pricing.js';
import type { Problem, ProblemLog } from '../model/problems.js';
import { LocalTime } from '../model/time.js';
import { cacheDir } from '../paths.js';
import { conversationOf, providerById } from '../providers/index.js';
import type { Env } from '../providers/types.js';
import { DirectoryWatch } from '../providers/watch.js';
import { buildReport } from '../report/build.js';
import type { SessionReport } from '../report/types.js';

/** The shortest refresh interval accepted: below this a refresh could not finish before the next. */
export const MIN_DELAY_MS = 500;

export interface LiveOptions {
  env: Env;
  plan: Plan;
  providers: readonly ProviderId[] | null;
  timeZone?: string;
  threads?: number;
  /** false: never touch the index (tests, `--no-cache`). */
  useIndex?: boolean;
  delayMs: number;
  /**
   * Fills in what the files cannot say (the live process of each session); mutates the document and
   * returns whether something a view shows as state changed.
   */
  annotate?: (doc: SessionDocument) => boolean;
  /** For tests: the clock. */
  now?: () => number;
}

export interface LiveEvents {
  update: [SessionDocument];
  error: [Error];
  /** Something about the index the user should hear once (it was rebuilt, or is not used). */
  notice: [string];
}

export class LiveSessions extends EventEmitter<LiveEvents> {
  document: SessionDocument | null = null;
  discovery: Discovery | null = null;
  files: ParsedFile[] = [];
  /** Bumped every time the document changes in a way a view should redraw for. */
  version = 0;
  private known: Map<string, StoredFile> | undefined;
  private readonly cache: SessionCache = new Map();
  private readonly book: PriceBook;
  private readonly time: LocalTime;
  private readonly prices = new Map<string, string>();
  private builtHour = Number.NaN;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<SessionDocument> | null = null;
  private stopped = true;
  /** Watches the transcripts' directories while `start()`ed, so quiet passes cost nothing. */
  private readonly watch = new DirectoryWatch();
  /** What went wrong with the index in this process, listed in every document built. */
  private readonly indexProblems: Problem[] = [];

  constructor(private readonly o: LiveOptions) {
    super();
    this.time = new LocalTime(o.timeZone);
    const catalogue = loadCatalogue(o.env);
    const cache: PriceCache = { get: (k) => this.prices.get(k), set: (k, v) => void this.prices.set(k, v) };
    this.book = new PriceBook(catalogue.digest, cache);
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  /**
   * Run `use` with the index open (or without one), closing it once `use` has finished. An index
   * found damaged while in use is moved aside and `use` runs again, once, on a new one, from scratch:
   * what this process knew of the files came partly from the damaged one.
   */
  private async withStore<T>(use: (store: IndexStore | null) => Promise<T>): Promise<T> {
    if (this.o.useIndex === false) return use(null);
    const dir = cacheDir(this.o.env);
    const opened = IndexStore.open(dir);
    if (opened.kind === 'bypassed') {
      this.tell(opened.notice);
      return use(null);
    }
    if (opened.rebuilt !== null) this.tell(opened.rebuilt);
    const first = await this.using(opened.store, use);
    if (first.kind === 'done') return first.value;
    this.known = undefined;
    const healed = IndexStore.rebuild(dir, opened.store);
    this.tell(healed.kind === 'open' ? (healed.rebuilt ?? 'the index was rebuilt') : healed.notice);
    if (healed.kind === 'bypassed') return use(null);
    const second = await this.using(healed.store, use);
    return second.kind === 'done' ? second.value : use(null);
  }

  /** `use` on an open index, closed after; `damaged` when the index was found damaged meanwhile. */
  private async using<T>(
    store: IndexStore,
    use: (store: IndexStore | null) => Promise<T>,
  ): Promise<{ kind: 'done'; value: T } | { kind: 'damaged' }> {
    try {
      if (this.prices.size === 0) for (const [k, v] of store.loadPrices()) this.prices.set(k, v);
      const value = await use(store);
      if (store.damaged === null) return { kind: 'done', value };
    } catch (err) {
      if (store.damaged === null) throw err;
    } finally {
      store.close();
    }
    return { kind: 'damaged' };
  }

  /**
   * Say once what went wrong with the index (a view may print it: `notice`), and keep it as a `cache`
   * problem in every document this process builds.
   */
  private tell(notice: string): void {
    if (this.indexProblems.some((p) => p.detail === notice)) return;
    this.indexProblems.push({ kind: 'cache', path: cacheDir(this.o.env), count: null, detail: notice });
    this.emit('notice', notice);
  }

  /**
   * The picture the index already holds, reading no transcript: what a view draws at once while the
   * first real pass runs. Skipped when the index is empty (there is nothing to show quickly).
   */
  async fromIndex(): Promise<SessionDocument | null> {
    if (this.o.useIndex === false || this.document !== null) return this.document;
    const nowMs = this.now();
    const scan = await this.withStore((store) =>
      scanFiles({
        env: this.o.env,
        providers: this.o.providers,
        sinceMs: null,
        store,
        threads: 1,
        indexOnly: true,
      }),
    );
    if (scan.files.length === 0 || this.document !== null) return this.document;
    // Built into the same cache the passes use, so the first pass rebuilds only what changed.
    return this.settle(this.build(scan.files, scan.problems, nowMs), true);
  }

  /**
   * One pass: read what changed and rebuild what it touched. Concurrent calls share one pass.
   * `skipIfQuiet` (the timed passes of `start()`) skips looking at the files when no watched
   * directory has reported anything since the last full pass.
   */
  refresh(o: { skipIfQuiet?: boolean } = {}): Promise<SessionDocument> {
    this.running ??= this.pass(o.skipIfQuiet === true).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async pass(skipIfQuiet: boolean): Promise<SessionDocument> {
    const nowMs = this.now();
    if (
      skipIfQuiet &&
      this.document !== null &&
      this.watch.quiet(nowMs) &&
      this.time.hourStart(nowMs) === this.builtHour
    )
      return this.settle(restate(this.document, this.cache, nowMs), false);
    this.watch.begin(nowMs);
    const scan = await this.withStore((store) =>
      scanFiles({
        env: this.o.env,
        providers: this.o.providers,
        sinceMs: null,
        store,
        threads: this.o.threads ?? defaultThreads(),
        known: this.known,
      }),
    );
    this.known = scan.known;
    this.discovery = scan.discovery;
    this.files = scan.files;
    if (!this.stopped)
      this.watch.cover(
        scan.listed,
        scan.discovery.files.map((f) => f.path),
      );
    const hour = this.time.hourStart(nowMs);
    const changed =
      this.document === null ||
      scan.stats.tailed + scan.stats.read + scan.stats.gone > 0 ||
      hour !== this.builtHour;
    const doc = changed
      ? this.build(scan.files, scan.problems, nowMs)
      : restate(this.document!, this.cache, nowMs);
    return this.settle(doc, changed);
  }

  /** The whole document, rebuilding only the sessions whose files or spend windows moved. */
  private build(files: readonly ParsedFile[], problems: ProblemLog, nowMs: number): SessionDocument {
    for (const p of this.indexProblems) problems.add(p);
    const doc = buildDocument(
      files,
      {
        env: this.o.env,
        plan: this.o.plan,
        book: this.book,
        time: this.time,
        nowMs,
        sinceMs: null,
        untilMs: null,
        problems,
      },
      this.cache,
    );
    this.builtHour = this.time.hourStart(nowMs);
    return doc;
  }

  /** Fill in processes, keep the document, and announce it when a view would draw it differently. */
  private settle(doc: SessionDocument, changed: boolean): SessionDocument {
    const annotated = this.o.annotate?.(doc) ?? false;
    const moved = changed || annotated || doc.sessions !== this.document?.sessions;
    this.document = doc;
    if (moved) {
      this.version++;
      this.emit('update', doc);
    }
    return doc;
  }

  /** Refresh now and then every `delayMs` after each pass ends, until `stop()`. */
  start(): void {
    this.stopped = false;
    const tick = async () => {
      try {
        await this.refresh({ skipIfQuiet: true });
      } catch (err) {
        this.emit('error', err as Error);
      }
      if (!this.stopped) this.timer = setTimeout(tick, Math.max(MIN_DELAY_MS, this.o.delayMs));
    };
    void tick();
  }

  stop(): void {
    this.stopped = true;
    this.watch.close();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  session(query: string): SessionDoc | null {
    if (!this.document) return null;
    const found = findSession(this.document, query);
    return found.kind === 'one' ? found.session : null;
  }

  conversation(session: SessionDoc, o: { before: number | null; agent: string | null }): Conversation {
    const provider = providerById(session.provider);
    if (session.deleted)
      return unsupported(
        'the transcript of this session has been deleted; its numbers live on in the index, its words do not',
      );
    return conversationOf(provider, session.file, o);
  }

  /** The session's report; `log` when its transcript was already read elsewhere (a worker). */
  report(session: SessionDoc, log?: CallLog): SessionReport {
    return buildReport({
      session,
      files: this.files,
      book: this.book,
      time: this.time,
      nowMs: this.now(),
      ...(log ? { log } : {}),
    });
  }
}
