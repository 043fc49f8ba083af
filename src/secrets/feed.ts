/**
 * A reader of one transcript that keeps only where secrets were: each found secret as its kind and
 * its first and last few characters, with its turn's number and time, and where a later read of the
 * grown file may start. The search index keeps these beside its rows (`search/read.ts`), and a live
 * view reads a running session with it to tell the person when a new one appears (`live/alerts.ts`).
 *
 * Not here: finding secrets (`detect.ts`, called as each turn is sealed), or the turns themselves.
 */
import type { ReadPoint, Turn, TurnFeed } from '../model/conversation.js';
import type { Secret } from './redact.js';
import { SHOWN_CHARS } from './redact.js';

/** A found secret as it may be kept: never the whole value. */
export interface SecretEnds {
  /** The turn it was found in, numbered in the whole transcript. */
  seq: number;
  kind: string;
  head: string;
  /** Its last characters, when it is long enough that they and the head leave most of it unsaid. */
  tail: string;
  /** The turn's time; null when the harness recorded none. */
  tsMs: number | null;
}

/** A secret's ends: enough to know which key it was, too little to use. */
export function endsOf(seq: number, s: Secret): SecretEnds {
  return {
    seq,
    kind: s.kind,
    head: s.value.slice(0, SHOWN_CHARS),
    tail: s.value.length > 2 * SHOWN_CHARS ? s.value.slice(-SHOWN_CHARS) : '',
    tsMs: null,
  };
}

export class SecretFeed implements TurnFeed {
  began: ReadPoint = { offset: 0, seq: 0 };
  resume: ReadPoint = { offset: 0, seq: 0 };
  readonly secrets: SecretEnds[] = [];
  /** Secrets before this one have been given their turn's time. */
  private timed = 0;

  constructor(readonly from: ReadPoint | null) {}

  secret(seq: number, s: Secret): void {
    this.secrets.push(endsOf(seq, s));
  }

  begin(at: ReadPoint): void {
    this.began = at;
    this.resume = at;
  }

  turn(t: Turn): void {
    // A turn's secrets are told just before the turn itself: they take its time.
    const ms = Date.parse(t.ts);
    for (let i = this.timed; i < this.secrets.length; i++)
      if (this.secrets[i]!.seq === t.seq) this.secrets[i]!.tsMs = Number.isFinite(ms) ? ms : null;
    this.timed = this.secrets.length;
  }

  end(resume: ReadPoint): void {
    this.resume = resume;
  }
}
