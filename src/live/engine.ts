/**
 * The live picture a long-running cctop keeps (the terminal table, `serve`): a `SessionIndex` opened
 * once and refreshed every few seconds. While no watched directory reports a change, a tick reads
 * nothing and only joins the live fields again (a working session lapses to idle with time alone);
 * otherwise it refreshes, which reads only what changed and rebuilds only the sessions it touched.
 *
 * The first picture is the index's own (`fromIndex`, reading no transcript), so a view can draw at
 * once and fill in.
 *
 * Not here: building or keeping sessions (`index/`), drawing anything, or processes (`processes.ts`).
 */
import { EventEmitter } from 'node:events';
import type { Discovery } from '../index/scan.js';
import { type BuildProgress, SessionIndex } from '../index/session-index.js';
import type { ParsedFile } from '../index/sessions.js';
import type { CallLog } from '../model/calls.js';
import type { Conversation } from '../model/conversation.js';
import { unsupported } from '../model/conversation.js';
import type { Annotator, Plan, SessionChanges, SessionDoc, SessionDocument } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import type { LocalTime } from '../model/time.js';
import type { SessionUsage } from '../model/usage-cells.js';
import { conversationOf, providerById } from '../providers/index.js';
import type { Env } from '../providers/types.js';
import { DirectoryWatch } from '../providers/watch.js';
import { buildReport } from '../report/build.js';
import type { SessionReport } from '../report/types.js';
import type { AgentStates } from './agent-state.js';
import { drivenChanges, withDriven } from './driven-doc.js';

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
  /** Fills in what the files cannot say (the live process of each session). */
  annotate?: Annotator;
  /**
   * The agents' own word on states (hooks, registries), listened to while `start()`ed: a state they
   * change is shown at once. The annotator applies its overlay.
   */
  agents?: AgentStates;
  /** For tests: the clock. */
  now?: () => number;
}

export interface LiveEvents {
  /** The document changed in a way a view shows, and what changed in it. */
  update: [SessionDocument, SessionChanges];
  error: [Error];
  /** Something about the index the user should hear once (it was rebuilt, or is not used). */
  notice: [string];
  /** A refresh is building: how far its reading is, and the sessions built so far (`BuildProgress`). */
  building: [BuildProgress];
  /** A pass ended (its update, if it changed anything, was sent first). */
  settled: [];
}

export class LiveSessions extends EventEmitter<LiveEvents> {
  document: SessionDocument | null = null;
  /** Bumped every time the document changes in a way a view should redraw for. */
  version = 0;
  private readonly index: SessionIndex;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<SessionDocument> | null = null;
  private stopped = true;
  /** Watches the transcripts' directories while `start()`ed, so quiet passes cost nothing. */
  private readonly watch = new DirectoryWatch();
  private readonly told = new Set<string>();
  /** The driven runs' version the document was last made with. */
  private drivenSeen = 0;

  constructor(private readonly o: LiveOptions) {
    super();
    this.index = SessionIndex.open({
      env: o.env,
      plan: o.plan,
      providers: o.providers,
      ...(o.timeZone ? { timeZone: o.timeZone } : {}),
      sinceMs: null,
      untilMs: null,
      ...(o.useIndex === false ? { useIndex: false } : {}),
      ...(o.threads ? { threads: o.threads } : {}),
      ...(o.annotate ? { annotate: o.annotate } : {}),
      ...(o.now ? { now: o.now } : {}),
      onBuilding: (b) => this.emit('building', b),
    });
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  /** What discovery found in the last refresh. */
  get discovery(): Discovery | null {
    return this.document === null ? null : this.index.discovery;
  }

  /** The parsed files of the last build (empty when the index answered without reading them). */
  get files(): readonly ParsedFile[] {
    return this.index.files ?? [];
  }

  /** Every session's usage cells as of the last refresh (the spend reports, the budgets). */
  usage(): SessionUsage[] {
    return this.document === null ? [] : this.index.usage();
  }

  /** The zone days and hours are counted in. */
  get localTime(): LocalTime {
    return this.index.localTime;
  }

  /**
   * The picture the index already holds, reading no transcript: what a view draws at once while the
   * first refresh runs. Null when the index keeps nothing for these options.
   */
  async fromIndex(): Promise<SessionDocument | null> {
    if (this.document !== null) return this.document;
    if (!this.index.peek()) return null;
    return this.settle({ kind: 'all' });
  }

  /**
   * One pass: read what changed and rebuild what it touched. Concurrent calls share one pass.
   * `skipIfQuiet` (the timed passes of `start()`) reads nothing when no watched directory has
   * reported anything since the last full pass, and only joins the live fields again.
   */
  refresh(o: { skipIfQuiet?: boolean } = {}): Promise<SessionDocument> {
    this.running ??= this.pass(o.skipIfQuiet === true).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async pass(skipIfQuiet: boolean): Promise<SessionDocument> {
    const nowMs = this.now();
    if (skipIfQuiet && this.document !== null && this.watch.quiet(nowMs))
      return this.settle(this.index.restate());
    this.watch.begin(nowMs);
    const r = await this.index.refresh();
    if (!this.stopped)
      this.watch.cover(
        r.listed,
        this.index.discovery.files.map((f) => f.path),
      );
    const doc = this.settle(this.document === null ? { kind: 'all' } : r.changes);
    this.emit('settled');
    return doc;
  }

  /** Keep the document, say what the index had to say, and announce what changed. */
  private settle(changes: SessionChanges): SessionDocument {
    const notice = this.index.notice;
    if (notice !== null && !this.told.has(notice)) {
      this.told.add(notice);
      this.emit('notice', notice);
    }
    const quiet = changes.kind === 'some' && changes.changed.length === 0 && changes.removed.length === 0;
    const driven = this.o.agents?.driven;
    const drivenMoved = driven !== undefined && driven.version !== this.drivenSeen;
    if (quiet && !drivenMoved && this.document !== null) return this.document;
    this.drivenSeen = driven?.version ?? 0;
    const doc = this.index.document();
    this.document = driven === undefined ? doc : withDriven(doc, driven.list());
    this.version++;
    // A driven run moved: which rows it touched (its own, or the one it left) is not worth working out.
    // Otherwise the rows the index rebuilt are told as this document has them: marked where a run is on them.
    this.emit('update', this.document, drivenMoved ? { kind: 'all' } : drivenChanges(changes, this.document));
    return this.document;
  }

  /**
   * Look again now, reading only what changed: an agent said a state moved. A pass already running
   * is joined; what it missed is seen at the next tick.
   */
  poke(): void {
    if (this.stopped) return;
    this.refresh({ skipIfQuiet: true }).catch((err) => this.emit('error', err as Error));
  }

  private readonly onAgents = (): void => this.poke();

  /** Refresh now and then every `delayMs` after each pass ends, until `stop()`. */
  start(): void {
    this.stopped = false;
    if (this.o.agents) {
      this.o.agents.on('changed', this.onAgents);
      this.o.agents.start();
    }
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
    if (this.o.agents) {
      this.o.agents.off('changed', this.onAgents);
      this.o.agents.stop();
    }
    this.watch.close();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  session(query: string): SessionDoc | null {
    if (!this.document) return null;
    const found = this.index.session(query);
    return found.kind === 'one' ? found.session : null;
  }

  conversation(session: SessionDoc, o: { before: number | null; agent: string | null }): Conversation {
    const provider = providerById(session.provider);
    if (session.file === '')
      return unsupported('this driven run has not written its session yet, or cctop has not read it yet');
    if (session.deleted)
      return unsupported(
        'the transcript of this session has been deleted; its numbers live on in the index, its words do not',
      );
    return conversationOf(provider, session.file, o);
  }

  /** The session's report; `log` when its transcript was already read elsewhere (a worker). */
  report(session: SessionDoc, log?: CallLog): SessionReport {
    const mine = this.index.filesOf(session);
    return buildReport({
      session,
      files: mine?.files ?? [],
      ...(mine?.masks ? { masks: mine.masks } : {}),
      book: this.index.book,
      time: this.index.localTime,
      nowMs: this.now(),
      ...(log ? { log } : {}),
    });
  }
}
