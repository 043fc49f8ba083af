/**
 * What `cctop serve` pushes to an open page, and how the page keeps its copy of the document with it;
 * and, beside the document, where the budgets stand and the alerts as they fire.
 *
 * A page gets the whole document once, when its stream opens. After that each update carries only
 * what moved: the sessions built again or whose live fields changed, the ones that went away, the
 * totals, the document's time and, when they changed, its problems and its collisions (which change
 * on their own, between refreshes: such an update moves no session). Every frame is numbered; a page
 * that sees a number out of turn (a frame lost while its stream was stalled, a server restarted
 * under it) or an update that says everything changed fetches the whole document again, and applies
 * the updates that arrived meanwhile on top of it.
 *
 * The page loads this very module: the build compiles it to `dist/views/serve/delta.js` and the
 * server serves that as `/assets/shared-delta.js`. So it imports nothing at run time (types only)
 * and uses no Node or DOM API. The server's side of the protocol (building frames) is `publish.ts`.
 */
import type { Collision } from '../../model/collision.js';
import type { HostStatus, SessionDoc, SessionDocument, SessionRef } from '../../model/document.js';
import type { Problem } from '../../model/problems.js';
import type { DocumentTotals } from '../../model/totals.js';
import type { BudgetJson } from '../../spend/json.js';

/** The whole document: the first thing a stream sends, and what `/api/sessions` answers. */
export interface WholeFrame {
  /** Names the server's run: numbers start again with every run. */
  run: string;
  seq: number;
  document: SessionDocument;
}

/** One update, numbered one past the update before it. */
export type ChangesFrame =
  | {
      kind: 'some';
      run: string;
      seq: number;
      generatedAt: string;
      totals: DocumentTotals;
      /** The sessions built again or whose live fields moved, whole. */
      changed: SessionDoc[];
      removed: RowRef[];
      /** null: the same problems as the document before. */
      problems: Problem[] | null;
      /** null: the same collisions as the document before. */
      collisions: Collision[] | null;
      /** How each other machine answered (`--host`); null or absent: as in the document before. */
      hosts?: HostStatus[] | null;
    }
  /** Everything may have changed (the first build, a rebuilt index): fetch the whole document. */
  | { kind: 'all'; run: string; seq: number };

/**
 * Where one budget of the config file stands, as a `budgets` event carries it. Those events stand
 * beside the numbered updates, not among them: each holds every budget, so the newest replaces any
 * before it and none is missed by a page that missed one.
 */
export type BudgetLine = BudgetJson;

/** A `budgets` event: sent when a stream opens and whenever a budget moves. */
export interface BudgetsFrame {
  run: string;
  budgets: BudgetLine[];
}

/**
 * An `alert` event: a budget crossed 80% or 100%, a session stalled, spends fast or loops on a
 * failing call, or two running sessions wrote the same file. Sent once, when it happens, to the pages
 * open then; not numbered, not replayed.
 */
export interface AlertFrame {
  run: string;
  kind: 'budget' | 'stall' | 'burn' | 'error-loop' | 'collision' | 'quota' | 'secret';
  /** What to say: a short title and one sentence, plain text (the same words as the terminal's). */
  title: string;
  body: string;
  /** The session it is about, for a click to open (a collision's newest writer); null for a budget or a quota. */
  session: SessionRef | null;
  /** Names the alert, so two tabs of one browser show it once (a notification's `tag`). */
  tag: string;
}

/**
 * One row of the document: a session of this machine (no `host`), or of another (`--host`), where
 * the same harness may well have written the same id.
 */
export type RowRef = SessionRef & { host?: string };

/** What a live picture says moved: this machine's `SessionChanges`, or other machines' rows. */
export type RowChanges = { kind: 'all' } | { kind: 'some'; changed: SessionDoc[]; removed: RowRef[] };

/**
 * One row's identity as one string: ids are only unique within their harness, and a harness on
 * another machine may have written the same one.
 */
export const sessionKey = (s: RowRef): string => `${s.provider}\u0000${s.id}\u0000${s.host ?? ''}`;

/**
 * The document's order: newest `lastActiveAt` first (a session without one last), then id, then
 * provider, then host (this machine's first). Plain code-unit comparisons, as ISO timestamps sort that way; the document builder
 * (`sortSessions` in `index/render.ts`) sorts by the same rule.
 */
export function documentOrder(a: SessionDoc, b: SessionDoc): number {
  const p = a.lastActiveAt ?? '';
  const q = b.lastActiveAt ?? '';
  if (p !== q) return p < q ? 1 : -1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  if (a.provider !== b.provider) return a.provider < b.provider ? -1 : 1;
  // This machine's row first, then other machines' by name.
  const g = a.host ?? '';
  const k = b.host ?? '';
  return g < k ? -1 : g > k ? 1 : 0;
}

/** Two lists each in document order, as one list in document order. */
export function mergeOrdered(a: SessionDoc[], b: SessionDoc[]): SessionDoc[] {
  const out: SessionDoc[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = documentOrder(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

/** What applying an update did. */
export type Applied =
  | { kind: 'applied' }
  /** The copy already has it (a repeat after a reconnect, or older than a document fetched since). */
  | { kind: 'stale' }
  /** It cannot be applied to this copy; the page must fetch the whole document. */
  | { kind: 'behind'; why: 'no document yet' | 'another run' | 'a gap' | 'everything changed' };

/** The page's copy of the session document, kept current by whole documents and updates. */
export class SessionMirror {
  private whole: WholeFrame | null = null;

  /** Where the copy stands, or null before the first whole document. */
  get at(): { run: string; seq: number } | null {
    return this.whole === null ? null : { run: this.whole.run, seq: this.whole.seq };
  }

  get document(): SessionDocument | null {
    return this.whole?.document ?? null;
  }

  /** Take a whole document, unless it is older than the copy (a fetch overtaken by the stream). */
  reset(frame: WholeFrame): boolean {
    const at = this.whole;
    if (at !== null && at.run === frame.run && frame.seq < at.seq) return false;
    this.whole = frame;
    return true;
  }

  apply(frame: ChangesFrame): Applied {
    const at = this.whole;
    if (at === null) return { kind: 'behind', why: 'no document yet' };
    if (frame.run !== at.run) return { kind: 'behind', why: 'another run' };
    if (frame.seq <= at.seq) return { kind: 'stale' };
    if (frame.seq !== at.seq + 1) return { kind: 'behind', why: 'a gap' };
    if (frame.kind === 'all') return { kind: 'behind', why: 'everything changed' };
    const replaced = new Set<string>();
    for (const r of frame.removed) replaced.add(sessionKey(r));
    for (const s of frame.changed) replaced.add(sessionKey(s));
    const kept = at.document.sessions.filter((s) => !replaced.has(sessionKey(s)));
    const sessions = mergeOrdered(kept, [...frame.changed].sort(documentOrder));
    // A new document object each time: a view may keep the one it drew and compare.
    const document: SessionDocument = {
      ...at.document,
      generatedAt: frame.generatedAt,
      totals: frame.totals,
      problems: frame.problems ?? at.document.problems,
      sessions,
    };
    if (frame.collisions !== null) document.collisions = frame.collisions;
    if (frame.hosts) document.hosts = frame.hosts;
    this.whole = { run: at.run, seq: frame.seq, document };
    return { kind: 'applied' };
  }
}

/**
 * Updates that arrive while the page fetches the whole document, kept to apply on top of it. With an
 * update every two seconds (the default `--delay`) and a fetch that takes well under a second, one or
 * two wait; a page this far behind after one fetch is better off fetching again than holding more.
 */
export const MAX_HELD_UPDATES = 64;

/**
 * Fetches in a row to catch up. One is enough unless updates overflowed the hold or one said
 * everything changed while it was out; past three the server is outrunning the page, which then
 * shows what it has and tries again with the next update rather than fetching in a loop.
 */
export const MAX_CATCH_UP_FETCHES = 3;

/**
 * The page's side of the stream: feeds whole documents and updates into a `SessionMirror`, shows
 * each new document, and fetches the whole document when an update cannot be applied. Network and
 * drawing are the caller's (`fetchWhole`, `show`), so this runs the same under a test.
 */
export class Follower {
  readonly mirror = new SessionMirror();
  private fetching = false;
  private held: ChangesFrame[] = [];
  /** Updates arrived past `MAX_HELD_UPDATES` during a fetch and were let go. */
  private overflowed = false;

  constructor(
    private readonly fetchWhole: () => Promise<WholeFrame | null>,
    private readonly show: (doc: SessionDocument) => void,
  ) {}

  /** A whole document from the stream or a poll. */
  whole(frame: WholeFrame): void {
    if (this.mirror.reset(frame)) this.show(frame.document);
  }

  /** An update from the stream. */
  changes(frame: ChangesFrame): void {
    if (this.fetching) {
      if (this.held.length < MAX_HELD_UPDATES) this.held.push(frame);
      else this.overflowed = true;
      return;
    }
    const r = this.mirror.apply(frame);
    if (r.kind === 'applied') this.showNow();
    else if (r.kind === 'behind') void this.catchUp();
  }

  /** Fetch the whole document and apply what arrived meanwhile; true when the copy is current. */
  async catchUp(): Promise<boolean> {
    if (this.fetching) return false;
    this.fetching = true;
    try {
      for (let i = 0; i < MAX_CATCH_UP_FETCHES; i++) {
        const whole = await this.fetchWhole();
        // A failed fetch: the next update finds the copy behind and tries again.
        if (whole === null) return false;
        this.mirror.reset(whole);
        const held = this.held.sort((a, b) => a.seq - b.seq);
        const complete = !this.overflowed;
        this.held = [];
        this.overflowed = false;
        if (held.every((f) => this.mirror.apply(f).kind !== 'behind') && complete) {
          this.showNow();
          return true;
        }
      }
      this.showNow();
      return false;
    } finally {
      this.fetching = false;
    }
  }

  private showNow(): void {
    const doc = this.mirror.document;
    if (doc !== null) this.show(doc);
  }
}
