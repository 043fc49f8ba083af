/**
 * A session as the index holds it between refreshes: a kept row's head (its facts still as text,
 * decoded on first use) or a record just built. Both answer the same questions, so the index never
 * asks where a session came from.
 *
 * Not here: the clock or the process table (`shownOf` joins them at a moment, `render.ts` prints).
 */
import type { SpendBuckets } from '../model/cost.js';
import type { SessionDoc, SessionLiveFields } from '../model/document.js';
import { stateNow } from '../model/state.js';
import { totalTokens } from '../model/usage.js';
import type { UsageCell } from '../model/usage-cells.js';
import type { ListFacts } from '../views/cli/list.js';
import {
  docOf,
  type JsonWriter,
  type SessionLive,
  type ShowClock,
  writeSession,
  writeSessionText,
} from './render.js';
import type { HeadFields, SessionHead } from './session-head.js';
import {
  decodeOwnFacts,
  decodeSpend,
  decodeUsage,
  encodeRecord,
  type FactsText,
  factsText,
  headOf,
  type KeptHead,
  keptFacts,
  partsOf,
  recordOfHead,
  type SealedRow,
  type SessionFacts,
  type SessionRecord,
  signatureOf,
} from './session-record.js';

/** A session held between refreshes: its head's fields, read without touching its facts, and the rest on demand. */
export interface Held extends HeadFields {
  key: string;
  /** The inputs it was built from: two with the same key and signature have the same facts. */
  signature: string;
  /** The spend buckets, decoded on first use (a session whose windows are all quiet never asks). */
  spend(): SpendBuckets;
  /**
   * Its requests per hour, day and model, decoded on first use (only the spend reports ask);
   * `withTools` false: perhaps without their split by tool, for a report that does not split by it.
   */
  usage(withTools?: boolean): UsageCell[];
  /** The whole record, decoded on first use. */
  record(): SessionRecord;
  /** Its facts as the index keeps them and the printer joins them (`FactsText`), made once. */
  text(): FactsText;
  /**
   * Its JSON as `cctop --json` prints it into `w`, with `live` and `windows` (`windowsMembers`) joined:
   * a kept session straight from its record's bytes, nothing made for it (not even its `text()`).
   */
  print(w: JsonWriter, live: SessionLive, windows: string): void;
  /** Its record as the index seals it (`encodeRecord`): what the warm snapshot keeps of it. */
  sealed(): Buffer;
  /** The few facts `cctop --list` shows besides the head's: the warm snapshot keeps them beside it. */
  listed(): ListedFacts;
}

/** The facts a `--list` row reads that the head (and its tally) does not hold. */
export interface ListedFacts {
  startedAt: string | null;
  title: string | null;
  model: string | null;
  used: number | null;
  compactAt: number | null;
  /** The harness's own rate-limit snapshot (Codex's): the quota in `--list`'s headings reads it. */
  rateLimits: unknown;
}

/**
 * A session as a `--list` row reads it (`ListFacts` in `views/cli/list.ts`), with its live fields:
 * made from a held session and its shown fields (`Picture.listed`), or from the warm snapshot, with
 * no session document made either way.
 */
export interface ListedSession extends ListFacts {
  rateLimits: unknown;
  state: Shown['state'];
  stateSource: Shown['stateSource'];
  /** Whether a process runs it (the quota in the headings reads it), null when none was looked for. */
  running: boolean | null;
  /** Whether `cctop run` holds it: its row says so before its title. */
  cctopRun: boolean;
}

/**
 * Whether `--list` says "no price" of `h`: as the document's `cost.unpriced` reads, one entry per
 * model without a price, whether it counted tokens or not. Every `--list` (the document's, the index's
 * and both warm files') asks this one question.
 */
export const anyUnpriced = (h: Pick<Held, 'unpriced'>): boolean => h.unpriced.length > 0;

/** The `--list` row's facts of `h` that no process or clock moves: its facts decoded, not its spend or usage. */
export function listFactsOf(h: Held): Omit<ListedSession, 'state' | 'stateSource' | 'running' | 'cctopRun'> {
  const l = h.listed();
  return {
    provider: h.provider,
    id: h.id,
    project: h.project,
    title: l.title,
    lastActiveAt: h.lastActiveAt,
    startedAt: l.startedAt,
    model: l.model,
    usd: h.tally.usd,
    included: h.tally.included,
    tokens: totalTokens(h.tally.tokens),
    unpriced: anyUnpriced(h),
    rateLimits: l.rateLimits,
    context: { used: l.used, compactAt: l.compactAt },
  };
}

/** The `--list` row's facts of `h`, shown as `s`. */
export function listedSession(h: Held, s: Shown): ListedSession {
  return {
    ...listFactsOf(h),
    state: s.state,
    stateSource: s.stateSource,
    running: s.running,
    // Truthy, as `rowOfDoc` reads it (the run's id).
    cctopRun: Boolean(s.process?.cctopRun),
  };
}

const listedOf = (f: Omit<SessionFacts, 'cost'>): ListedFacts => ({
  startedAt: f.startedAt,
  title: f.title,
  model: f.model,
  used: f.context.used,
  compactAt: f.context.compactAt,
  rateLimits: f.rateLimits,
});

/**
 * A held session's head fields, read from the one head it was made with: a kept row's as read, or
 * one made from a record just built. Read-only, as every held session's head is.
 */
abstract class HeadHeld<H extends HeadFields> implements Readonly<HeadFields> {
  constructor(protected readonly h: H) {}

  get provider(): HeadFields['provider'] {
    return this.h.provider;
  }
  get id(): HeadFields['id'] {
    return this.h.id;
  }
  get file(): HeadFields['file'] {
    return this.h.file;
  }
  get project(): HeadFields['project'] {
    return this.h.project;
  }
  get lastActiveAt(): HeadFields['lastActiveAt'] {
    return this.h.lastActiveAt;
  }
  get deleted(): HeadFields['deleted'] {
    return this.h.deleted;
  }
  get live(): HeadFields['live'] {
    return this.h.live;
  }
  get unpriced(): HeadFields['unpriced'] {
    return this.h.unpriced;
  }
  get tally(): HeadFields['tally'] {
    return this.h.tally;
  }
}

/** A record just built (or reused from the last build) as held. */
class BuiltHeld extends HeadHeld<HeadFields> implements Held {
  readonly key: string;
  readonly signature: string;
  private printed: FactsText | null = null;

  constructor(
    private readonly r: SessionRecord,
    /** Its sealed row, when the build sealed it already (a view into the pack the index keeps). */
    private sealedRow: SealedRow | null = null,
  ) {
    super(headOf(r));
    this.key = r.key;
    this.signature = r.signature;
  }

  spend(): SpendBuckets {
    return this.r.spend;
  }

  usage(): UsageCell[] {
    return this.r.usage;
  }

  record(): SessionRecord {
    return this.r;
  }

  text(): FactsText {
    this.printed ??= factsText(this.r.facts);
    return this.printed;
  }

  print(w: JsonWriter, live: SessionLive, windows: string): void {
    // Sealed already (a build keeps its records packed): printed from those bytes, none made again.
    const record = this.sealedRow?.record;
    const at = record === undefined ? null : partsOf(record);
    if (record !== undefined && at !== null)
      writeSession(w, record, at.facts, at.cost, at.spend, live, windows);
    else writeSessionText(w, this.text(), live, windows);
  }

  sealed(): Buffer {
    this.sealedRow ??= encodeRecord(this.r);
    return this.sealedRow.record;
  }

  listed(): ListedFacts {
    return listedOf(this.r.facts);
  }
}

/**
 * A kept row's head as held: its facts are parsed the first time a view asks for the session, its
 * spend the first time its windows can hold any of it. The row passed its checksum when read, so
 * bytes that do not decode are this code's own bug, and said so.
 */
class KeptHeld extends HeadHeld<KeptHead> implements Held {
  private decoded: SessionRecord | null = null;
  private buckets: SpendBuckets | null = null;
  private cells: UsageCell[] | null = null;
  private untooled: UsageCell[] | null = null;
  private signed: string | null = null;
  private listedFacts: ListedFacts | null = null;

  get key(): string {
    return this.h.key;
  }
  get signature(): string {
    this.signed ??= signatureOf(this.h);
    return this.signed;
  }

  spend(): SpendBuckets {
    this.buckets ??= decodeSpend(this.h) ?? broken(this.h, 'spend');
    return this.buckets;
  }

  usage(withTools = true): UsageCell[] {
    // Kept once decoded: a running view with budgets asks for every session's cells at each check,
    // and a session whose facts did not move is this same object the next time.
    const whole = this.cells ?? this.decoded?.usage ?? null;
    if (!withTools && whole === null) {
      this.untooled ??= decodeUsage(this.h, false) ?? broken(this.h, 'usage');
      return this.untooled;
    }
    this.cells = whole ?? decodeUsage(this.h) ?? broken(this.h, 'usage');
    return this.cells;
  }

  record(): SessionRecord {
    this.decoded ??= recordOfHead(this.h) ?? broken(this.h, 'facts or spend');
    return this.decoded;
  }

  text(): FactsText {
    return keptFacts(this.h);
  }

  print(w: JsonWriter, live: SessionLive, windows: string): void {
    const { sealed, at } = this.h;
    writeSession(w, sealed.record, at.facts, at.cost, at.spend, live, windows);
  }

  sealed(): Buffer {
    return this.h.sealed.record;
  }

  listed(): ListedFacts {
    // Only the facts, not their cost (the head tallies it): the rest stays bytes. Kept once decoded:
    // both warm writers (the snapshot and the document's list part) ask for every session's, and a
    // decode is a JSON parse.
    this.listedFacts ??= listedOf(this.decoded?.facts ?? decodeOwnFacts(this.h) ?? broken(this.h, 'facts'));
    return this.listedFacts;
  }
}

function broken(h: KeptHead, what: string): never {
  throw new Error(`the kept ${what} of ${h.provider} ${h.id} passed its checksum but does not decode`);
}

export const heldOfRecord = (r: SessionRecord, sealed?: SealedRow): Held => new BuiltHeld(r, sealed ?? null);
export const heldOfHead = (h: KeptHead): Held => new KeptHeld(h);

/** A session's live fields at a moment, before processes are looked up: what an annotator settles. */
export type Shown = SessionLiveFields;

/** `h`'s live fields at `nowMs`: its state worked out from its head, no process looked up yet. */
export function shownOf(h: SessionHead, nowMs: number): Shown {
  const signal = h.live.signal;
  return {
    provider: h.provider,
    id: h.id,
    file: h.file,
    project: h.project,
    lastActiveAt: h.lastActiveAt,
    deleted: h.deleted,
    state: stateNow(signal, h.live.mtime, h.live.lastMs, nowMs),
    stateDetail: signal?.detail ?? null,
    stateSource: 'inferred',
    pendingTool: signal?.pendingTool ?? null,
    running: null,
    inferred: null,
    process: null,
  };
}

/** The session's document at `clock`, with the live fields as shown (annotated). */
export function docOfHeld(h: Held, s: Shown, clock: ShowClock): SessionDoc {
  const doc = docOf(h.record(), clock);
  doc.state = s.state;
  doc.stateDetail = s.stateDetail;
  doc.stateSource = s.stateSource;
  doc.running = s.running;
  doc.process = s.process;
  doc.pendingTool = s.pendingTool;
  doc.inferred = s.inferred;
  return doc;
}

/** What a view would redraw for in a session's live fields. */
export function liveStamp(s: Shown): string {
  const p = s.process;
  return `${s.state}|${s.stateSource}|${s.stateDetail}|${s.pendingTool}|${s.running}|${s.inferred}|${
    p === null ? '' : `${p.pids.join(',')}:${p.cpu}:${p.memory}:${p.command}`
  }`;
}
