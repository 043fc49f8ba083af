/**
 * The server's side of the update protocol (`delta.ts`): turns each update of the live picture into
 * the one frame every open page is sent, numbered, and keeps the whole document for the pages that
 * open a stream or catch up. Beside the updates it sends where the budgets stand and each alert as
 * it fires (`servedAlerts`). The collisions (`servedCollisions`) are part of the document: a change
 * in them is a numbered update of its own, and a new file collision is an alert as well. Alerts and
 * file collisions also go to the machine notifier, when the server runs one (`servedNotifier`).
 *
 * An update is encoded once and shared by every stream. The whole document is the expensive part (a
 * megabyte for six hundred sessions), so it is encoded only when something asks for it, once per
 * version: with every page following the updates, a busy machine encodes it rarely.
 *
 * Not here: the streams themselves (`sse.ts`) or the routes (`app.ts`).
 */
import type { BudgetState } from '../../config/index.js';
import { AlertFeed } from '../../live/alert-feed.js';
import type { Alert } from '../../live/alerts.js';
import { CollisionWatch } from '../../live/collision-watch.js';
import { DeepReader } from '../../live/deep.js';
import type { LiveSessions } from '../../live/engine.js';
import type { Collision } from '../../model/collision.js';
import type { SessionDocument } from '../../model/document.js';
import { MachineNotifier } from '../../notify/notifier.js';
import type { Env } from '../../providers/types.js';
import { budgetJson } from '../../spend/json.js';
import { alertText } from '../alert-text.js';
import { collisionText } from '../collision-text.js';
import type { AlertFrame, BudgetsFrame, ChangesFrame, RowChanges, RowRef } from './delta.js';
import { type EncodedEvent, type EventHub, encodeEvent, encodeNotice } from './sse.js';

/** The whole document as `/api/sessions` sends it, with where it stands in the numbering. */
export interface WholeJson {
  run: string;
  seq: number;
  /** The document alone, exactly as `cctop --json` prints it. */
  json: string;
  /** Changes with every update: an ETag, and a stream's event id. */
  tag: string;
}

export class Publication {
  private doc: SessionDocument | null = null;
  private seq = 0;
  /** The problems of the newest document, encoded, to tell whether an update changed them. */
  private problems = '';
  /** How the other machines answered in the newest document, encoded, likewise. */
  private hosts = '';
  private json: WholeJson | null = null;
  private event: EncodedEvent | null = null;
  /** The budgets as last sent, encoded, to send them only when they move. */
  private budgetsSent = '';
  /** The collisions every document carries from now on, and as last sent, encoded. */
  private collisions: Collision[] = [];
  private collisionsSent = '[]';

  constructor(
    /** Names this run of the server: numbers and tags from an earlier run never match this one's. */
    readonly run: string,
  ) {}

  get ready(): boolean {
    return this.doc !== null;
  }

  get tag(): string {
    return `${this.run}.${this.seq}`;
  }

  /**
   * Take the live picture's update and return what to send every stream. `changes` absent (a live
   * picture that does not say what changed) counts as everything.
   */
  update(doc: SessionDocument, changes: RowChanges | undefined): EncodedEvent {
    const first = this.doc === null;
    this.doc = { ...doc, collisions: this.collisions };
    this.seq++;
    this.json = null;
    this.event = null;
    const problems = JSON.stringify(doc.problems);
    const sameProblems = problems === this.problems;
    this.problems = problems;
    const hosts = JSON.stringify(doc.hosts ?? null);
    const sameHosts = hosts === this.hosts;
    this.hosts = hosts;
    const frame: ChangesFrame =
      first || changes === undefined || changes.kind === 'all'
        ? { kind: 'all', run: this.run, seq: this.seq }
        : {
            kind: 'some',
            run: this.run,
            seq: this.seq,
            generatedAt: doc.generatedAt,
            totals: doc.totals,
            changed: changes.changed,
            removed: changes.removed.map(refOf),
            problems: sameProblems ? null : doc.problems,
            collisions: null,
            ...(sameHosts ? {} : { hosts: doc.hosts ?? null }),
          };
    return encodeEvent('changes', this.tag, JSON.stringify(frame));
  }

  /**
   * Take the collisions as they are now: the update that says so, or null when they read as the ones
   * sent last, or before the first document (which will carry them).
   */
  collide(list: readonly Collision[]): EncodedEvent | null {
    const data = JSON.stringify(list);
    if (data === this.collisionsSent) return null;
    this.collisionsSent = data;
    this.collisions = [...list];
    const doc = this.doc;
    if (doc === null) return null;
    this.doc = { ...doc, collisions: this.collisions };
    this.seq++;
    this.json = null;
    this.event = null;
    const frame: ChangesFrame = {
      kind: 'some',
      run: this.run,
      seq: this.seq,
      generatedAt: doc.generatedAt,
      totals: doc.totals,
      changed: [],
      removed: [],
      problems: null,
      collisions: this.collisions,
    };
    return encodeEvent('changes', this.tag, JSON.stringify(frame));
  }

  /** The `alert` event for a new collision; a click opens its newest writer. */
  collisionAlert(c: Collision): Uint8Array {
    const { title, body } = collisionText(c);
    const newest = c.sessions[0]!;
    const frame: AlertFrame = {
      run: this.run,
      kind: 'collision',
      title,
      body,
      session: { provider: newest.provider, id: newest.id },
      tag: `collision-${c.key}`,
    };
    return encodeNotice('alert', JSON.stringify(frame));
  }

  /** The `budgets` event for these states, or null when they read as the ones sent last. */
  budgets(states: readonly BudgetState[]): Uint8Array | null {
    const frame: BudgetsFrame = { run: this.run, budgets: states.map(budgetJson) };
    const data = JSON.stringify(frame);
    if (data === this.budgetsSent) return null;
    this.budgetsSent = data;
    return encodeNotice('budgets', data);
  }

  /** The `alert` event for `a`. */
  alert(a: Alert): Uint8Array {
    const { title, body } = alertText(a);
    const session =
      a.kind === 'budget' || a.kind === 'quota' ? null : { provider: a.session.provider, id: a.session.id };
    const frame: AlertFrame = { run: this.run, kind: a.kind, title, body, session, tag: alertTag(a) };
    return encodeNotice('alert', JSON.stringify(frame));
  }

  /** The newest whole document as JSON, or null before the first update. */
  whole(): WholeJson | null {
    if (this.doc === null) return null;
    this.json ??= { run: this.run, seq: this.seq, json: JSON.stringify(this.doc), tag: this.tag };
    return this.json;
  }

  /**
   * What a stream opens with (the `Opening` of `sse.ts`): the newest whole document, or null before
   * the first update or when the client's last event is the newest (a reconnect that missed nothing).
   */
  opening(lastEventId: string | null): EncodedEvent | null {
    if (this.doc === null || lastEventId === this.tag) return null;
    if (this.event !== null) return this.event;
    const w = this.whole();
    if (w === null) return null;
    // A `WholeFrame` written out around the document's JSON, so the document is encoded once for both.
    const data = `{"run":${JSON.stringify(w.run)},"seq":${w.seq},"document":${w.json}}`;
    this.event = encodeEvent('sessions', w.tag, data);
    return this.event;
  }
}

/** A removed row as a frame names it: its harness and id, and its machine when it is another's. */
const refOf = (r: RowRef): RowRef =>
  r.host === undefined
    ? { provider: r.provider, id: r.id }
    : { provider: r.provider, id: r.id, host: r.host };

/** The same alert in two tabs has the same tag; the next crossing of the same kind, another. */
function alertTag(a: Alert): string {
  switch (a.kind) {
    case 'budget':
      return `budget-${a.state.budget.key}-${a.state.fromDay}-${a.level}`;
    case 'stall':
      return `stall-${a.session.provider}-${a.session.id}-${a.session.lastActiveAt ?? ''}`;
    case 'burn':
      return `burn-${a.session.provider}-${a.session.id}-${a.usdPerHour.toFixed(2)}`;
    case 'error-loop':
      return `loop-${a.session.provider}-${a.session.id}-${a.tool}-${a.count}`;
    case 'secret':
      return `secret-${a.session.provider}-${a.session.id}-${a.found.map((f) => `${f.seq}.${f.kind}`).join('.')}`;
    case 'quota':
      return `quota-${a.figure.harness}-${a.figure.account ?? ''}-${a.figure.window}-${a.figure.resetsAt ?? ''}-${a.crossed.why}`;
  }
}

/**
 * The alerts of a running server: the budgets go to every page whenever they move (and to each
 * stream as it opens), each alert to the pages open when it fires. Stop it with the server.
 */
export function servedAlerts(o: {
  live: LiveSessions;
  env: Env;
  hub: EventHub;
  publication: Publication;
  onProblem: (text: string) => void;
  /** The machine notifier (`servedNotifier`), to send each alert on the desktop and to the webhook too. */
  notifier?: MachineNotifier | null;
  /** For tests: the clock. */
  now?: () => number;
}): AlertFeed {
  const feed = new AlertFeed({
    live: o.live,
    env: o.env,
    ...(o.now ? { now: o.now } : {}),
    onAlerts: (alerts) => {
      for (const a of alerts) o.hub.publishAlert(o.publication.alert(a));
      o.notifier?.alerts(alerts);
    },
    onBudgets: (states) => {
      const bytes = o.publication.budgets(states);
      if (bytes !== null) o.hub.publishBudgets(bytes);
    },
    onProblem: o.onProblem,
  });
  feed.start();
  return feed;
}

/**
 * The collisions of a running server: each change goes to every page as a numbered update (and into
 * the whole document), each new file collision as an alert. Reads calls on a thread of its own.
 * Stop it with the server.
 */
export function servedCollisions(o: {
  live: LiveSessions;
  hub: EventHub;
  publication: Publication;
  notifier?: MachineNotifier | null;
}): {
  stop(): void;
} {
  const deep = new DeepReader();
  const watch = new CollisionWatch({
    calls: (s) => deep.calls(s.provider, s.file),
    onChange: (list) => {
      const e = o.publication.collide(list);
      if (e !== null) o.hub.publish(e);
    },
    // A shared repository without a shared file is shown, not rung.
    onNew: (fresh) => {
      for (const c of fresh) if (c.level === 'file') o.hub.publishAlert(o.publication.collisionAlert(c));
      o.notifier?.collisions(fresh.filter((c) => c.level === 'file'));
    },
  });
  watch.watch(o.live);
  return {
    stop() {
      watch.stop();
      deep.close();
    },
  };
}

/**
 * The machine notifier of a running server (`notify/`): sends desktop and webhook notifications while
 * this server holds the machine's sender lock, its notices linking to `dashboard` (its own address)
 * unless the config names another. Pass it to `servedAlerts` and `servedCollisions`; stop it with the
 * server. Not for the demo, whose sessions are made up.
 */
export function servedNotifier(o: {
  live: LiveSessions;
  env: Env;
  dashboard: string | null;
  onProblem: (text: string) => void;
}): MachineNotifier {
  const notifier = new MachineNotifier({
    env: o.env,
    role: 'dashboard',
    dashboard: o.dashboard,
    onProblem: (text) => o.onProblem(`notify: ${text}`),
  }).watch(o.live);
  notifier.start();
  return notifier;
}
