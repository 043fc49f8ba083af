/**
 * The server's side of the update protocol (`delta.ts`): turns each update of the live picture into
 * the one frame every open page is sent, numbered, and keeps the whole document for the pages that
 * open a stream or catch up.
 *
 * An update is encoded once and shared by every stream. The whole document is the expensive part (a
 * megabyte for six hundred sessions), so it is encoded only when something asks for it, once per
 * version: with every page following the updates, a busy machine encodes it rarely.
 *
 * Not here: the streams themselves (`sse.ts`) or the routes (`app.ts`).
 */
import type { SessionChanges, SessionDocument } from '../../model/document.js';
import type { ChangesFrame } from './delta.js';
import { type EncodedEvent, encodeEvent } from './sse.js';

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
  private json: WholeJson | null = null;
  private event: EncodedEvent | null = null;

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
  update(doc: SessionDocument, changes: SessionChanges | undefined): EncodedEvent {
    const first = this.doc === null;
    this.doc = doc;
    this.seq++;
    this.json = null;
    this.event = null;
    const problems = JSON.stringify(doc.problems);
    const sameProblems = problems === this.problems;
    this.problems = problems;
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
            removed: changes.removed.map((r) => ({ provider: r.provider, id: r.id })),
            problems: sameProblems ? null : doc.problems,
          };
    return encodeEvent('changes', this.tag, JSON.stringify(frame));
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
