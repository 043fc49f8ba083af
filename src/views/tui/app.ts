/**
 * The live table: `cctop` on a terminal. Wires the live engine, the process table and the deep
 * reader to the screen and the keyboard. Everything it draws comes from `view.ts`; what a key does
 * is `input.ts`'s, and reading the selected transcript is `detail.ts`'s.
 */

import { StringDecoder } from 'node:string_decoder';
import { type HostPoller, withHostViews } from '../../hosts/index.js';
import type { BuildProgress } from '../../index/options.js';
import { watchedStates } from '../../live/agent-state.js';
import { AlertFeed } from '../../live/alert-feed.js';
import type { Alert } from '../../live/alerts.js';
import { CollisionWatch } from '../../live/collision-watch.js';
import { DeepReader } from '../../live/deep.js';
import { type LiveOptions, LiveSessions } from '../../live/engine.js';
import { type Sample, updateRates } from '../../live/token-rates.js';
import type { Collision } from '../../model/collision.js';
import type { SessionDocument } from '../../model/document.js';
import { MachineNotifier } from '../../notify/notifier.js';
import { gatherQuota } from '../../quota/gather.js';
import { alertLine } from '../alert-text.js';
import { type Paint, paint } from '../cli/color.js';
import { PROGRESS_MIN_BYTES } from '../cli/progress.js';
import { collisionLine } from '../collision-text.js';
import { buildProgress } from '../format.js';
import { hiddenFromEnv, type Row } from './columns.js';
import { DetailReader } from './detail.js';
import { heldAnswers } from './held-answers.js';
import { type KeyContext, onKey } from './input.js';
import { ESCAPE_WAIT_MS, KeyDecoder } from './keys.js';
import { alertNotification, collisionNotification, notification, WaitWatcher } from './notify.js';
import { remoteDetails } from './remote-detail.js';
import { Screen } from './screen.js';
import type { TerminalAct } from './terminal-key.js';
import { initialView, keyOf, RANG_MARK_MS, render, type ViewState } from './view.js';

export interface TuiOptions {
  live: Omit<LiveOptions, 'annotate'>;
  out: NodeJS.WriteStream;
  input: NodeJS.ReadStream;
  /** Replaces the process table (the demo says which sessions its replay runs). */
  annotate?: LiveOptions['annotate'];
  /** Called once the first picture is up (the demo starts its replay then). */
  onStart?: (live: LiveSessions) => void;
  /**
   * Send desktop and webhook notifications while this table holds the machine's sender lock
   * (`notify/`); off for the demo, whose sessions are made up.
   */
  notify?: boolean;
  /** What to say when no session shows (asked once, the first time none does): which filter matched nothing. */
  whenEmpty?: () => Promise<string>;
  /**
   * Other machines (`--host`), polled on their own schedules; their rows are shown beside this
   * machine's and never acted on. Alerts, collisions and notifications stay this machine's.
   */
  hosts?: HostPoller;
}

/** How often the screen is redrawn with nothing new (ages tick, marks expire). */
const TICK_MS = 1000;

/**
 * How often the header's quota is read again. Claude Code refreshes its own cache at most once a
 * minute and the status line's note changes once a response; every 15 s keeps the header within a
 * response of the truth, while `.claude.json` (a few MiB for a heavy user) is parsed four times a
 * minute rather than on every two-second refresh.
 */
const QUOTA_EVERY_MS = 15_000;
/** A status message stays this long. */
const STATUS_MS = 4000;

/**
 * A first build's progress and the sessions built so far are drawn at most this often: each fill
 * makes a document of every session built yet, and four a second reads as filling in.
 */
const FILL_EVERY_MS = 250;

export async function runTui(o: TuiOptions): Promise<number> {
  return new LiveTable(o).run();
}

/** One run of the live table: its state, its timers and its listeners, from the first draw to quit. */
class LiveTable {
  private readonly screen: Screen;
  private readonly p: Paint;
  private readonly live: LiveSessions;
  private readonly deep = new DeepReader();
  private readonly details: DetailReader;
  private readonly alerts: AlertFeed;
  private readonly notifier: MachineNotifier | null;
  private readonly collisions: CollisionWatch;
  private readonly v: ViewState;
  private readonly waits = new WaitWatcher(keyOf);
  private readonly previousTokens = new Map<string, Sample>();
  private readonly decoder = new KeyDecoder();
  // A character split across reads is joined before it is decoded.
  private readonly utf8 = new StringDecoder('utf8');
  private statusTimer: NodeJS.Timeout | null = null;
  private escapeTimer: NodeJS.Timeout | null = null;
  private tick: NodeJS.Timeout | null = null;
  private lastTableRows: Row[] = [];
  private tableStart = 2;
  private emptyAsked = false;
  private resolveQuit: (code: number) => void = () => {};

  /** What a key may reach; it reads the rows as last drawn when the key arrives. */
  private readonly keys: KeyContext & { act: KeyContext['act'] } = {
    tableRows: () => this.lastTableRows,
    tableStart: () => this.tableStart,
    screenRows: () => this.screen.size().rows,
    quit: () => this.finish(),
    say: (text) => this.say(text),
    repaint: () => this.screen.invalidate(),
    signal: (sequence) => this.screen.signal(sequence),
    answer: null,
    act: null,
  };

  constructor(private readonly o: TuiOptions) {
    this.screen = new Screen(o.out, o.input);
    this.p = paint(true, o.live.env);
    const watched = o.annotate ? { annotate: o.annotate } : watchedStates(o.live.env);
    this.live = new LiveSessions({ ...o.live, ...watched });
    if ('agents' in watched) {
      const by = `the live table (pid ${process.pid})`;
      this.keys.answer = (run, request, behavior) => watched.agents.driven.answer(run, request, behavior, by);
      this.keys.held = heldAnswers(o.live.env, (text) => this.say(text));
      // The demo's sessions are made up: only a table watching real processes types into them.
      this.keys.act = (key, what) => void this.act(key, what);
    }
    this.details = new DetailReader(this.live, this.deep, o.hosts ? remoteDetails(o.live, o.hosts) : null);
    this.v = initialView(hiddenFromEnv(o.live.env.CCTOP_COLUMNS_HIDE), o.live.env.HOME ?? null);
    this.notifier = o.notify
      ? new MachineNotifier({
          env: o.live.env,
          role: 'table',
          onProblem: (text) => this.say(`notify: ${text}`),
        }).watch(this.live)
      : null;
    this.alerts = new AlertFeed({
      live: this.live,
      env: o.live.env,
      deep: this.deep,
      onAlerts: this.onAlerts,
      onBudgets: (states) => {
        this.v.budgets = states;
      },
      onProblem: (text) => this.say(`config: ${text}`),
    });
    this.collisions = new CollisionWatch({
      calls: (s) => this.deep.calls(s.provider, s.file),
      onChange: (list) => {
        this.v.collisions = list;
        this.draw();
      },
      onNew: this.onCollisions,
    });
  }

  async run(): Promise<number> {
    const quit = new Promise<number>((resolve) => {
      this.resolveQuit = resolve;
      this.listen();
    });
    this.screen.start();
    this.draw();
    this.live.on('update', this.onUpdate);
    this.live.on('building', this.onBuilding);
    this.live.on('settled', this.onSettled);
    this.live.on('error', (err) => this.say(`refresh failed: ${err.message}`));
    this.o.hosts?.on('changed', this.onHosts);
    this.o.hosts?.start();
    await this.live.fromIndex().catch(() => null);
    this.live.start();
    this.alerts.start();
    this.notifier?.start();
    this.collisions.watch(this.live);
    this.o.onStart?.(this.live);
    return quit;
  }

  private readonly draw = () => {
    const { columns, rows } = this.screen.size();
    const r = render(this.v, this.p, columns, rows, Date.now());
    this.v.top = r.top;
    this.lastTableRows = r.tableRows;
    this.tableStart = r.tableStart;
    this.screen.draw(r.lines);
    this.details.load(this.v, this.draw);
  };

  /** `s` and `x`: type into or stop the session's terminal, as `cctop send` and `cctop stop` do. */
  private async act(key: string, what: TerminalAct): Promise<void> {
    const s = this.v.doc?.sessions.find((x) => keyOf(x) === key);
    if (!s) {
      this.say('that session is gone from the table');
      return;
    }
    const { interrupt, typeInto } = await import('../../act/session-pane.js');
    const r =
      what.act === 'send'
        ? await typeInto(s, what.text, this.o.live.env)
        : await interrupt(s, this.o.live.env);
    switch (r.kind) {
      case 'typed':
        this.say(`typed into ${r.where}`);
        return;
      case 'pressed':
        this.say(`pressed ${r.key} in ${r.where}`);
        return;
      case 'refused':
        this.say(`cannot: ${r.why}; ${r.fix}`);
        return;
    }
  }

  private say(text: string): void {
    this.v.status = text;
    if (this.statusTimer) clearTimeout(this.statusTimer);
    this.statusTimer = setTimeout(() => {
      this.v.status = null;
      this.draw();
    }, STATUS_MS);
    this.draw();
  }

  /** New alerts ring as a session that starts waiting does, and show for a moment in the status line. */
  private readonly onAlerts = (alerts: Alert[]) => {
    this.notifier?.alerts(alerts);
    const now = Date.now();
    for (const a of alerts) {
      if (a.kind !== 'budget' && a.kind !== 'quota') this.v.rang.set(keyOf(a.session), now + RANG_MARK_MS);
      if (this.v.notify) this.screen.signal(alertNotification(a));
    }
    const more = alerts.length > 1 ? ` (and ${alerts.length - 1} more)` : '';
    this.say(`${alertLine(alerts[0]!)}${more}`);
  };

  /** New collisions mark their rows a moment; one on a file rings, and the status line names the first. */
  private readonly onCollisions = (fresh: Collision[]) => {
    this.notifier?.collisions(fresh.filter((c) => c.level === 'file'));
    const now = Date.now();
    for (const c of fresh) for (const w of c.sessions) this.v.rang.set(keyOf(w), now + RANG_MARK_MS);
    if (this.v.notify)
      for (const c of fresh) if (c.level === 'file') this.screen.signal(collisionNotification(c));
    const more = fresh.length > 1 ? ` (and ${fresh.length - 1} more)` : '';
    this.say(`${collisionLine(fresh[0]!)}${more}`);
  };

  /** When the header's quota was last read (`QUOTA_EVERY_MS`). */
  private quotaReadMs = Number.NEGATIVE_INFINITY;

  /** When the building sessions were last drawn (`FILL_EVERY_MS`). */
  private fillMs = Number.NEGATIVE_INFINITY;

  /**
   * A refresh is building: its progress goes in the header when it reads much (a first build, a
   * history that changed a lot), and while nothing else is shown yet the table fills with the
   * sessions built so far, newest first. The refresh's own answer replaces them.
   */
  private readonly onBuilding = (b: BuildProgress) => {
    const v = this.v;
    const first = this.live.document === null;
    if (!first && b.bytesTotal < PROGRESS_MIN_BYTES) return;
    const now = Date.now();
    const edge = b.files === 0 || b.files === b.filesTotal;
    if (!edge && now - this.fillMs < FILL_EVERY_MS) return;
    this.fillMs = now;
    v.loading = buildProgress(b);
    if (first) {
      v.doc = this.withHosts(b.document());
      v.revision++;
    }
    this.draw();
  };

  /** A refresh ended: its progress, if shown, is done (an answer that changed nothing sends no update). */
  private readonly onSettled = () => {
    if (this.v.loading === null || this.live.document === null) return;
    this.v.loading = null;
    this.draw();
  };

  private readonly onUpdate = (doc: SessionDocument) => {
    const v = this.v;
    const now = Date.now();
    updateRates(v.rates, this.previousTokens, doc.sessions, now, keyOf);
    for (const c of this.waits.update(doc.sessions)) {
      if (c.into !== 'error') v.rang.set(keyOf(c.session), now + RANG_MARK_MS);
      if (v.notify) this.screen.signal(notification(c));
    }
    if (doc.sessions.length === 0 && this.o.whenEmpty && !this.emptyAsked) {
      this.emptyAsked = true;
      void this.o.whenEmpty().then(
        (text) => {
          v.empty = text;
          this.draw();
        },
        () => {},
      );
    }
    if (now - this.quotaReadMs >= QUOTA_EVERY_MS) {
      this.quotaReadMs = now;
      v.quota = gatherQuota({
        env: this.o.live.env,
        sessions: doc.sessions,
        usage: [],
        providers: this.o.live.providers,
        nowMs: now,
        startOfTodayMs: now,
      }).quota;
    }
    v.doc = this.withHosts(doc);
    v.revision++;
    v.loading = null;
    for (const [key, until] of v.rang) if (until <= now) v.rang.delete(key);
    this.draw();
  };

  /** This machine's document with the other machines' rows beside its own. */
  private withHosts(doc: SessionDocument): SessionDocument {
    return this.o.hosts ? withHostViews(doc, this.o.hosts.views()) : doc;
  }

  /** A host answered, or stopped answering: the same local document, with its rows as they now are. */
  private readonly onHosts = () => {
    const local = this.live.document;
    if (local === null) return;
    this.v.doc = this.withHosts(local);
    this.v.revision++;
    this.draw();
  };

  /** The keyboard, the terminal's size, the signals that end the program, and the clock. */
  private listen(): void {
    this.o.input.on('data', this.onData);
    this.o.out.on('resize', this.onResize);
    process.once('SIGINT', this.finish);
    process.once('SIGTERM', this.finish);
    this.tick = setInterval(this.draw, TICK_MS);
    this.tick.unref();
  }

  private readonly onData = (chunk: Buffer) => {
    if (this.escapeTimer) clearTimeout(this.escapeTimer);
    this.escapeTimer = null;
    for (const k of this.decoder.feed(this.utf8.write(chunk))) onKey(this.v, k, this.keys);
    if (this.decoder.pending)
      this.escapeTimer = setTimeout(() => {
        this.escapeTimer = null;
        for (const k of this.decoder.flush()) onKey(this.v, k, this.keys);
        this.draw();
      }, ESCAPE_WAIT_MS);
    this.draw();
  };

  private readonly onResize = () => {
    this.screen.invalidate();
    this.draw();
  };

  private readonly finish = () => {
    this.live.stop();
    this.o.hosts?.stop();
    this.o.hosts?.off('changed', this.onHosts);
    this.alerts.stop();
    this.notifier?.stop();
    this.collisions.stop();
    this.deep.close();
    this.details.close();
    if (this.tick) clearInterval(this.tick);
    if (this.escapeTimer) clearTimeout(this.escapeTimer);
    if (this.statusTimer) clearTimeout(this.statusTimer);
    this.o.input.off('data', this.onData);
    this.o.out.off('resize', this.onResize);
    process.off('SIGINT', this.finish);
    process.off('SIGTERM', this.finish);
    this.screen.stop();
    this.resolveQuit(0);
  };
}
