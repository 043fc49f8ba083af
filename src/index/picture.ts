/**
 * The sessions a refresh answered with, joined with what moves at a moment: the state read against
 * the clock and the process fields an annotator fills in. It says what changed since the last moment
 * (the sessions whose facts or live fields moved, the ones gone), makes a session's document only
 * when a view asks for it, and prints the whole document without making any.
 *
 * Not here: reading or building (`session-index.ts`, `strategies.ts`).
 */
import type {
  Annotator,
  Plan,
  SessionChanges,
  SessionDoc,
  SessionDocument,
  SessionRef,
} from '../model/document.js';
import { DOCUMENT_VERSION } from '../model/document.js';
import type { Problem } from '../model/problems.js';
import type { LocalTime } from '../model/time.js';
import { type DocumentTotals, totalsOfTallies } from '../model/totals.js';
import type { SessionUsage } from '../model/usage-cells.js';
import {
  docOfHeld,
  type Held,
  type ListedSession,
  listedSession,
  liveStamp,
  type Shown,
  shownOf,
} from './held.js';
import { documentParts, windowsMembers } from './render.js';

/** What the document says besides its sessions and totals. */
/** Which sessions' cells to decode, by what is known of them without decoding. */
export type UsageFilter = (s: Pick<Held, 'provider' | 'lastActiveAt'>) => boolean;

export interface Frame extends DocumentExtras {
  plan: Plan;
  problems: Problem[];
}

/** What a document may carry that the index does not know: the collisions, when someone looked. */
export type DocumentExtras = Pick<SessionDocument, 'collisions'>;

export class Picture {
  private held: Held[] = [];
  private shown: Shown[] = [];
  private at = 0;
  /**
   * Per session key, its live fields as last shown and the document last handed out (for changes and
   * identity); null until asked for after a picture where every session changed (`entries`).
   */
  private docs: Map<string, Entry> | null = new Map();
  private taken = false;

  constructor(
    private readonly time: LocalTime,
    private readonly annotate: Annotator | undefined,
  ) {}

  /** When the picture was last taken (ms). */
  get nowMs(): number {
    return this.at;
  }

  /**
   * Take `held` as the sessions now, each whose facts did not move kept as the object held before
   * (its decoded facts are reused and a view sees the same session), and join the live fields.
   */
  take(held: Held[], nowMs: number): SessionChanges {
    const fresh = !this.taken;
    this.taken = true;
    const before = this.entries();
    this.held = held.map((h) => {
      const was = before.get(h.key)?.held;
      return was !== undefined && was.signature === h.signature ? was : h;
    });
    return this.join(nowMs, fresh, before);
  }

  /** The live fields again at `nowMs`, reading nothing: which sessions' state or process moved. */
  restate(nowMs: number): SessionChanges {
    return this.taken ? this.join(nowMs, false, this.entries()) : { kind: 'all' };
  }

  private join(nowMs: number, fresh: boolean, before: Map<string, Entry>): SessionChanges {
    const shown = this.held.map((h) => shownOf(h, nowMs));
    this.annotate?.({ sessions: shown });
    // Every session's spend windows move with the hour.
    const all = fresh || this.time.hourStart(nowMs) !== this.time.hourStart(this.at);
    this.shown = shown;
    this.at = nowMs;
    if (all) {
      // Nothing to compare: every session changed (and a one-shot command stops here, so the entries
      // are made only if a view asks for a session's document or for what changed next time).
      this.docs = null;
      return { kind: 'all' };
    }
    const docs = new Map<string, Entry>();
    this.docs = docs;
    const changed: SessionDoc[] = [];
    for (const [i, h] of this.held.entries()) {
      const was = before.get(h.key);
      const same = was !== undefined && was.held === h && liveStamp(was.shown) === liveStamp(shown[i]!);
      docs.set(h.key, same ? { ...was, shown: shown[i]! } : { held: h, shown: shown[i]!, doc: null });
      if (!same) changed.push(this.docAt(i));
    }
    const removed: SessionRef[] = [];
    for (const [key, was] of before)
      if (!docs.has(key)) removed.push({ provider: was.held.provider, id: was.held.id });
    return { kind: 'some', changed, removed };
  }

  /** Every session's entry, made now if the last picture had every session change. */
  private entries(): Map<string, Entry> {
    if (this.docs !== null) return this.docs;
    const docs = new Map<string, Entry>();
    for (const [i, h] of this.held.entries()) docs.set(h.key, { held: h, shown: this.shown[i]!, doc: null });
    this.docs = docs;
    return docs;
  }

  /** The document of the i-th session, made once per change. */
  private docAt(i: number): SessionDoc {
    const h = this.held[i]!;
    const entry = this.entries().get(h.key)!;
    entry.doc ??= docOfHeld(h, this.shown[i]!, { time: this.time, nowMs: this.at });
    return entry.doc;
  }

  /** Every session, newest activity first. */
  sessions(): SessionDoc[] {
    return this.held.map((_, i) => this.docAt(i));
  }

  /**
   * Every session as a `cctop --list` row reads it, newest activity first: only its facts decoded,
   * no session document made (its spend, usage cells and windows are never read).
   */
  listed(): ListedSession[] {
    return this.held.map((h, i) => listedSession(h, this.shown[i]!));
  }

  totals(): DocumentTotals {
    return totalsOfTallies(this.held.map((h) => h.tally));
  }

  /**
   * The usage cells of the sessions `keep` keeps (decoded now: only the spend reports ask);
   * `withTools` false: perhaps without their split by tool (`decodeCells`).
   */
  usage(keep: UsageFilter = () => true, withTools = true): SessionUsage[] {
    const out: SessionUsage[] = [];
    for (const h of this.held)
      if (keep(h))
        out.push({ provider: h.provider, id: h.id, project: h.project, cells: h.usage(withTools) });
    return out;
  }

  document(f: Frame): SessionDocument {
    return {
      ...this.head(f),
      sessions: this.sessions(),
      problems: f.problems,
      totals: this.totals(),
      ...extras(f),
    };
  }

  /**
   * The document as `cctop --json` prints it, with `tail` (a newline) after it: each session's kept
   * facts as they are and its live fields joined, into one buffer, and nothing made per session but
   * what moves.
   */
  json(f: Frame, tail = ''): Buffer {
    return Buffer.concat(this.jsonParts(f, tail));
  }

  /**
   * As `json`, as the parts of one `writev` (`render.ts` `PartsWriter`): the kept facts are written
   * from where they lie, not copied into a buffer of the whole document first.
   */
  jsonParts(f: Frame, tail = ''): Uint8Array[] {
    const windows = windowsMembers(this.time, this.at);
    const frame = { ...this.head(f), problems: f.problems, totals: this.totals(), ...extras(f) };
    const { held, shown } = this;
    return documentParts(
      frame,
      held.length,
      (i, w) => {
        const h = held[i]!;
        h.print(w, shown[i]!, windows(h));
      },
      tail,
    );
  }

  private head(f: Frame): Pick<SessionDocument, 'version' | 'generatedAt' | 'plan' | 'timeZone'> {
    return {
      version: DOCUMENT_VERSION,
      generatedAt: new Date(this.at).toISOString(),
      plan: f.plan,
      timeZone: this.time.timeZone,
    };
  }
}

/** A session as last shown, and its document once made. */
interface Entry {
  held: Held;
  shown: Shown;
  doc: SessionDoc | null;
}

/** The extras a frame carries, and nothing for those it does not (an absent field stays absent). */
const extras = (f: DocumentExtras): DocumentExtras =>
  f.collisions === undefined ? {} : { collisions: f.collisions };
