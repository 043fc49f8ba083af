/**
 * The one session index every view reads: one-shot commands, the live table, serve, the reports
 * and the library. Opened once; `refresh()` reads what changed (through the strategies in
 * `strategies.ts`) and says which sessions changed; `sessions()`, `session()`, `totals()`,
 * `document()` and `json()` read what the last refresh found, with the live fields (state against
 * the clock, processes) joined at that moment. `peek()` answers from what the index kept, touching
 * no transcript at all (a status line or the first frame of the live table).
 *
 * An index found damaged while answering is moved aside and the refresh asked again of a new one,
 * once; a new index damaged at once is a disk to distrust, and the refresh reads without one.
 *
 * Not here: the database held between refreshes, its notices and prices (`connection.ts`); how
 * sessions are built (`sessions.ts`), kept (`kept-store.ts`) or printed (`render.ts`); whether a
 * one-shot's answer is kept warm for the next one (`keep-one-shot.ts`); processes (an `Annotator`
 * the caller passes in).
 */
import type { SessionChanges, SessionDoc, SessionDocument, SessionRef } from '../model/document.js';
import { PriceBook } from '../model/pricing.js';
import { ProblemLog } from '../model/problems.js';
import { LocalTime } from '../model/time.js';
import type { DocumentTotals } from '../model/totals.js';
import type { SessionUsage } from '../model/usage-cells.js';
import { cacheDir } from '../paths.js';
import { lookingWith, recordListings, recordLooks } from '../providers/fsutil.js';
import type { ProviderPlace } from '../providers/types.js';
import { type CatalogueInfo, loadCatalogue } from './catalogue.js';
import { IndexConnection } from './connection.js';
import { type SessionFiles, sessionFilesIn } from './files-of.js';
import { type Found, findSession } from './find.js';
import { heldOfHead, heldOfRecord, type ListedSession } from './held.js';
import { keepOneShot, type OneShotAnswer } from './keep-one-shot.js';
import { discoveryDigest } from './kept.js';
import { type LookMemory, lookMemoryOf } from './look-memory.js';
import type { IndexOptions, Refreshed } from './options.js';
import { type DocumentExtras, Picture, type UsageFilter } from './picture.js';
import { defaultThreads, prestartWorkers } from './pool.js';
import { sortSessions } from './render.js';
import { chosenProviders, type Discovery, discoverAll } from './scan.js';
import { rootPaths, scopeOf } from './scope.js';
import { sessionKeyOf } from './session-record.js';
import type { ParsedFile } from './sessions.js';
import {
  type Answer,
  byBuild,
  byPatch,
  fromKept,
  type Memory,
  type Pass,
  type ScanStats,
  type Strategy,
} from './strategies.js';

export type { BuildProgress, IndexOptions, Refreshed } from './options.js';

/** A pass's answer, once it is known the index was sound while giving it. */
interface Trusted extends OneShotAnswer {
  declined: Refreshed['declined'];
  listed: Set<string>;
  /** What discovery looked at, to remember for the next one-shot (`look-memory.ts`); null when not kept. */
  looks: LookMemory | null;
}

/** What the last refresh (or peek) found, besides its sessions (in the picture). */
interface Answered {
  indexed: boolean;
  strategy: Strategy;
  stats: ScanStats;
  log: ProblemLog;
  scope: string | null;
}

export class SessionIndex {
  /** The database each refresh opens and closes, its notices and its saved prices. */
  private readonly conn: IndexConnection;
  private readonly time: LocalTime;
  private readonly places: readonly ProviderPlace[];
  readonly catalogue: CatalogueInfo;
  readonly book: PriceBook;
  private memory: Memory = { known: undefined, cache: new Map(), files: null };
  private answer: Answered | null = null;
  private readonly picture: Picture;
  private running: Promise<Refreshed> | null = null;
  /** What the last discovery found (roots and files). */
  discovery: Discovery = { roots: [], files: [] };
  /** The notice of this refresh to tell the user, once per process; null when there is none or it was told. */
  notice: string | null = null;

  private constructor(private readonly o: IndexOptions) {
    this.time = new LocalTime(o.timeZone);
    this.places = chosenProviders(o.providers);
    this.catalogue = loadCatalogue(o.env);
    this.conn = new IndexConnection(o.env, o.useIndex !== false);
    this.book = new PriceBook(this.catalogue.digest, this.conn.priceCache);
    this.picture = new Picture(this.time, o.annotate);
  }

  /**
   * The index for these options. Opening touches nothing: the database is opened by each refresh
   * (and peek) and closed when it has its answer, so a long-running view holds no connection, no
   * stale page and no growing log between refreshes.
   */
  static open(o: IndexOptions): SessionIndex {
    return new SessionIndex(o);
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  /** Read what changed. Concurrent calls share one refresh. */
  refresh(): Promise<Refreshed> {
    this.running ??= this.healing()
      .then(async (t) => this.commit(t))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** Take a trusted answer as the index's own and join its live fields now. */
  private async commit(t: Trusted): Promise<Refreshed> {
    const { answer, log, scope, nowMs, declined, listed, discovery } = t;
    this.discovery = discovery;
    this.answer = { indexed: answer.indexed, strategy: answer.strategy, stats: answer.stats, log, scope };
    const changes = this.picture.take(answer.held, nowMs);
    const keep = () => {
      // Written with the warm answers, after the answer is out: the next run's to read, not this one's.
      t.looks?.save();
      return keepOneShot(t, {
        options: this.o,
        places: this.places,
        catalogue: this.catalogue.digest,
        time: this.time,
      });
    };
    if (this.o.keepLater === undefined) await keep();
    else this.o.keepLater(keep);
    return { strategy: answer.strategy, changes, stats: answer.stats, declined, listed };
  }

  /** A refresh; when the index proves damaged on the way, the same refresh of a rebuilt one. */
  private async healing(): Promise<Trusted> {
    this.conn.open();
    try {
      const first = await this.attempt();
      if (first !== null) return first;
      // What this process knew came partly from the damaged index: forget it and ask again.
      this.forget();
      this.conn.rebuild();
      const second = await this.attempt();
      if (second !== null) return second;
      this.conn.close();
      this.conn.tell(
        `${this.conn.lastNotice() ?? 'the index was rebuilt'}, but the new index was damaged too; reading without it`,
      );
      this.forget();
      return (await this.attempt())!;
    } finally {
      this.conn.close();
    }
  }

  private forget(): void {
    this.memory = { known: undefined, cache: new Map(), files: null };
  }

  /** One refresh, or null when the index was found damaged while answering (the answer is not trusted). */
  private async attempt(): Promise<Trusted | null> {
    const store = this.conn.store;
    try {
      const done = await this.pass();
      if (store === null || store.damaged === null) return done;
    } catch (err) {
      if (store === null || store.damaged === null) throw err;
    }
    return null;
  }

  /** One pass over the files, answered by the first strategy that will; nothing is kept yet. */
  private async pass(): Promise<Trusted> {
    const nowMs = this.now();
    const log = this.startLog();
    const threads = this.o.threads ?? defaultThreads();
    const store = this.conn.store;
    // A pass that will read everything starts its workers first, to load while discovery runs.
    if (threads > 1 && this.memory.files === null && (store === null || store.isEmpty()))
      prestartWorkers(threads);
    const listed = new Set<string>();
    // A one-shot notes what it looked at, for the warm snapshot's next freshness check.
    const looked = this.o.oneRefresh === true && store !== null ? new Map<string, number>() : null;
    const memory = lookMemoryOf(this.o, store !== null, nowMs);
    const walk = () => recordListings(listed, () => discoverAll(this.o.env, this.places, log));
    const discover = memory === null ? walk : () => lookingWith(memory, walk);
    const discovery = looked === null ? discover() : recordLooks(looked, discover);
    const scope =
      store === null
        ? null
        : this.scopeAt(
            discovery.roots.map((r) => r.path),
            nowMs,
          );
    const p = this.passOf({ nowMs, log, threads, discovery, scope });
    const declined: Refreshed['declined'] = [];
    let answer: Answer | null = null;
    for (const strategy of this.strategies()) {
      answer = await strategy(p);
      if (answer.kind === 'answered') break;
      declined.push({ strategy: answer.strategy, reason: answer.reason });
    }
    if (answer?.kind !== 'answered') throw new Error('no strategy answered');
    this.conn.savePrices();
    return {
      answer,
      log,
      scope,
      nowMs,
      sweptAt: memory?.sweptAt ?? nowMs,
      declined,
      listed,
      discovery,
      digest: p.digest,
      looked,
      looks: memory,
    };
  }

  /** In order of preference; a process that built once keeps building from what it holds. */
  private strategies(): ((p: Pass) => Answer | Promise<Answer>)[] {
    if (this.o.needFiles === true || this.memory.files !== null) return [byBuild];
    return [fromKept, byPatch, byBuild];
  }

  /** What a build in progress tells the caller (`IndexOptions.onBuilding`). */
  private building(nowMs: number): Pass['building'] {
    const tell = this.o.onBuilding;
    if (tell === undefined) return undefined;
    // One picture for the whole build, so a session shown before is not decoded again.
    const picture = new Picture(this.time, this.o.annotate);
    return (b) =>
      tell({
        files: b.files,
        filesTotal: b.filesTotal,
        bytes: b.bytes,
        bytesTotal: b.bytesTotal,
        document: () => {
          picture.take(sortSessions([...b.built.values()].map((r) => heldOfRecord(r))), nowMs);
          return picture.document({ plan: this.o.plan, problems: [] });
        },
      });
  }

  private passOf(x: Pick<Pass, 'nowMs' | 'log' | 'threads' | 'discovery' | 'scope'>): Pass {
    const store = this.conn.store;
    let kept: ReturnType<Pass['kept']> | undefined;
    const building = this.building(x.nowMs);
    return {
      ...x,
      ...(building ? { building } : {}),
      env: this.o.env,
      plan: this.o.plan,
      providers: this.o.providers,
      places: this.places,
      sinceMs: this.o.sinceMs,
      untilMs: this.o.untilMs,
      oneRefresh: this.o.oneRefresh === true,
      time: this.time,
      book: this.book,
      digest: discoveryDigest(x.discovery),
      store,
      memory: this.memory,
      kept: () => {
        if (kept === undefined) kept = store === null || x.scope === null ? null : store.kept.build(x.scope);
        return kept;
      },
    };
  }

  /** A log holding the index's notices as `cache` problems, and this refresh's notice to tell. */
  private startLog(): ProblemLog {
    const { log, notice } = this.conn.startLog();
    this.notice = notice;
    return log;
  }

  private scopeAt(roots: string[], nowMs: number): string {
    return scopeOf(this.o, this.places, roots, this.catalogue.digest, this.time, nowMs);
  }

  /**
   * What the index kept for these options, reading no transcript and listing no directory; false
   * when it keeps nothing for them (then `refresh()`). Files may have changed since: a peek is the
   * last build as it was, its states read against the clock now.
   */
  peek(): boolean {
    this.conn.open();
    const store = this.conn.store;
    if (store === null) return false;
    const nowMs = this.now();
    const scope = this.scopeAt(rootPaths(this.o.env, this.places), nowMs);
    let found: ReturnType<typeof store.kept.build> = null;
    try {
      found = store.kept.build(scope);
    } finally {
      this.conn.close();
    }
    if (found === null) return false;
    const log = this.startLog();
    for (const k of found.scope.problems) if (k.after === null || nowMs > k.after) log.add(k.problem);
    const stats = { reused: 0, tailed: 0, read: 0, deleted: 0, bytesRead: 0, gone: 0 };
    this.answer = { indexed: true, strategy: 'kept', stats, log, scope };
    this.picture.take(sortSessions(found.heads.map(heldOfHead)), nowMs);
    return true;
  }

  /**
   * The live fields again at the clock now, reading nothing (a quiet tick of the live table): which
   * sessions' state or process moved.
   */
  restate(): SessionChanges {
    return this.picture.restate(this.now());
  }

  /** Every session, newest activity first, as of the last refresh. */
  sessions(): SessionDoc[] {
    return this.picture.sessions();
  }

  /** The session a query names (an id, or a prefix unique enough: see `findSession`). */
  session(query: string | null): Found {
    return findSession({ sessions: this.sessions() }, query);
  }

  /** Every session as a `cctop --list` row reads it, as of the last refresh (no document made). */
  listed(): ListedSession[] {
    return this.picture.listed();
  }

  /** Per harness and overall, over the sessions of the last refresh. */
  totals(): DocumentTotals {
    return this.picture.totals();
  }

  /** Sessions' requests per UTC hour, local day and model (all, or those `keep` keeps): the spend reports. */
  usage(keep?: UsageFilter, withTools = true): SessionUsage[] {
    return this.picture.usage(keep, withTools);
  }

  /** Problems found by the last refresh, and how many more were dropped past the bound. */
  get problems(): ProblemLog {
    return this.answer?.log ?? new ProblemLog();
  }

  get localTime(): LocalTime {
    return this.time;
  }

  /** The parsed files of the last build, when this process built (null when it answered from the index). */
  get files(): readonly ParsedFile[] | null {
    return this.answer?.strategy === 'built' ? this.memory.files : null;
  }

  /** The whole session document. */
  document(): SessionDocument {
    return this.picture.document({ plan: this.o.plan, problems: this.problems.list });
  }

  /**
   * The document as `cctop --json` prints it (ASCII JSON), making no session's document; plus `extra`,
   * and `tail` (a newline) after it. `jsonParts`: the same bytes as the parts of one `writev`.
   */
  json(extra: DocumentExtras = {}, tail = ''): Buffer {
    return Buffer.concat(this.jsonParts(extra, tail));
  }
  jsonParts(extra: DocumentExtras = {}, tail = ''): Uint8Array[] {
    return this.picture.jsonParts({ plan: this.o.plan, problems: this.problems.list, ...extra }, tail);
  }

  /**
   * A session's parsed files and which of their records count, for views that go deeper (the
   * report): from this process's build, or from the index when it holds the build answered from.
   */
  filesOf(s: SessionRef): SessionFiles | null {
    const a = this.answer;
    if (a === null) return null;
    if (a.strategy === 'built' && this.memory.files !== null)
      return { files: this.memory.files.filter((p) => p.file.provider === s.provider), masks: null };
    if (!a.indexed || a.scope === null || this.o.useIndex === false) return null;
    const key = sessionKeyOf(s.provider, s.id);
    return sessionFilesIn(this.conn.store, cacheDir(this.o.env), a.scope, key);
  }

  /**
   * Close the index (again is harmless): what the last refresh found stays readable, and a next
   * `refresh()` reads without the index. One-shot commands close it as soon as they have their answer.
   */
  close(): void {
    this.conn.close();
  }
}
