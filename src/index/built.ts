/**
 * Built sessions kept in the index between runs, so a one-shot `cctop --json` or `--list` with
 * nothing changed answers from what the last run built instead of rebuilding 4,000 sessions.
 *
 * What is kept, per scope (everything a document depends on besides the files: options, price
 * catalogue, the code that builds it, the day): a digest of what discovery saw (path, size, mtime,
 * inode of every transcript), the clock hour it was built in, each session's document with the
 * signature of its inputs, and the problems the build found. A run whose discovery digest, scope and
 * hour match uses the kept documents as they are (only states move with the clock; processes are
 * looked up fresh); a run where something changed rebuilds only the sessions whose signature moved.
 *
 * Not here: deciding what to re-read (`refresh.ts`) or how a session is built (`sessions.ts`).
 */
import { crc32 } from 'node:zlib';
import { HOURS_KEPT } from '../model/cost.js';
import { Digest } from '../model/digest.js';
import type { Plan, SessionDoc, SessionDocument, SessionLiveFields } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { F, FLAG, RECORD_FIELDS } from '../model/ledger.js';
import type { Problem } from '../model/problems.js';
import type { SessionState } from '../model/state.js';
import type { Discovery } from './scan.js';
import {
  type BuildRecord,
  type LiveInputs,
  type ParsedFile,
  type SessionCache,
  sessionKey,
} from './sessions.js';

/** Scopes kept at once (the live table, a `--provider` filter, a `--since` report…); least used go first. */
export const MAX_KEPT_SCOPES = 4;

/** A problem the build found; `after` set means it only counts once the clock passes it (a partial line). */
export interface KeptProblem {
  problem: Problem;
  after: number | null;
}

export interface ScopeInputs {
  version: number;
  plan: Plan;
  providers: readonly ProviderId[];
  /** Where they were looked for (another HOME, `CLAUDE_CONFIG_DIR`, `--demo`: another history). */
  roots: readonly string[];
  sinceMs: number | null;
  untilMs: number | null;
  timeZone: string;
  catalogue: string;
  /** Digest of the code that reads and builds (parser versions, build version). */
  code: string;
  /**
   * Settings read while building that live outside the transcripts: each provider's compaction rule
   * (an auto-compact override) and the size and time of each root's `settings.json`.
   */
  settings: string;
  /**
   * The local day: a project's own settings (which can pin a session's context window) are not
   * watched; they are read again when its transcript changes and at least once a day.
   */
  day: number;
}

export function scopeKey(s: ScopeInputs): string {
  return new Digest().text(JSON.stringify(s)).hex();
}

/** What discovery saw, as one digest: any file added, removed, grown, touched or replaced changes it. */
export function discoveryDigest(d: Discovery): string {
  const h = new Digest();
  for (const f of d.files) {
    h.string(f.provider).string(f.path).number(f.size).number(f.mtimeMs).number(f.ino);
    h.string(f.role).string(f.sessionHint ?? '');
  }
  return h.number(d.files.length).hex();
}

export interface KeptScope {
  digest: string;
  hourStart: number;
  problems: KeptProblem[];
}

/**
 * How stale a scope's last-used time may get before a run that uses it writes it again: writing on
 * every run would cost each warm run a write transaction, and eviction order needs no precision.
 */
export const TOUCH_AFTER_MS = 10 * 60_000;

/**
 * A scope's sessions as stored: every document in one JSON array (one value to read and one parse,
 * not thousands), where each document's text begins and ends in it, and the rest per session.
 * The array is ASCII (see `asciiJson`), so it is read as one-byte text without decoding UTF-8.
 */
export interface KeptSessions {
  docs: Buffer;
  /** CRC-32 of `docs`, `spans` and `heads` (see `checksum`): what is printed unparsed is checked first. */
  crc: number;
  /** Offsets into `docs`: document i is bytes `spans[i]` to `spans[i + 1] - 1` (less its comma). */
  spans: Int32Array;
  /** JSON `KeptHead[]`, in the order of `docs`: all an unchanged run reads besides the text. */
  heads: string;
  /** JSON `KeptRest[]`, in the order of `docs`: what rebuilding needs. */
  rest: string;
}

/**
 * Per session, to sort and annotate it unparsed: live inputs, provider, id, project, lastActiveAt,
 * deleted, pendingTool, stateDetail.
 */
export type KeptHead = [
  LiveInputs,
  ProviderId,
  string,
  string | null,
  string | null,
  boolean,
  string | null,
  string | null,
  /** Where the live fields begin and end in the session's text (see `locateLive`), or -1. */
  number,
  number,
  /** Tokens on models without a price, for the document's problems. */
  [string, number][],
];

/** Fields of a `KeptHead`. */
const HEAD_FIELDS = 11;

/**
 * Whether parsed heads have the shape this code writes (an index from another build, or a damaged
 * one, may not): the fields an unparsed run computes with are checked, not only counted.
 */
export function wellFormed(heads: unknown): heads is KeptHead[] {
  return (
    Array.isArray(heads) &&
    heads.every(
      (h) =>
        Array.isArray(h) &&
        h.length === HEAD_FIELDS &&
        typeof h[0] === 'object' &&
        h[0] !== null &&
        typeof (h[0] as LiveInputs).mtime === 'number' &&
        typeof h[1] === 'string' &&
        typeof h[2] === 'string' &&
        typeof h[8] === 'number' &&
        typeof h[9] === 'number' &&
        Array.isArray(h[10]),
    )
  );
}

/**
 * The checksum of what a run prints or computes with without parsing: the documents' text, where
 * each begins, and their heads. (The rests are parsed, and only by builds, which check them.)
 */
function checksum(k: Pick<KeptSessions, 'docs' | 'spans' | 'heads'>): number {
  const spans = new Uint8Array(k.spans.buffer, k.spans.byteOffset, k.spans.byteLength);
  return crc32(k.heads, crc32(spans, crc32(k.docs)));
}

/** Whether kept sessions are as they were written. */
export const intact = (k: KeptSessions): boolean => checksum(k) === k.crc;

/** Per session: its key and the signature of its inputs (what a build reuses it by). */
export type KeptRest = [string, string];

/** The text, head and rest of one built session. */
export function keptParts(key: string, e: CacheEntry): { text: string; head: KeptHead; rest: KeptRest } {
  const d = e.doc;
  const text = sessionJson(d);
  remember(d, text);
  const live = locateLive(text);
  return {
    text,
    head: [
      e.live,
      d.provider,
      d.id,
      d.project,
      d.lastActiveAt,
      d.deleted,
      d.pendingTool,
      d.stateDetail,
      live?.liveStart ?? -1,
      live?.liveEnd ?? -1,
      e.unpriced,
    ],
    rest: [key, e.signature],
  };
}

type CacheEntry = NonNullable<ReturnType<SessionCache['get']>>;

/** The kept sessions as a `SessionCache` (each document remembering its text), or null when damaged. */
export function cacheFromKept(k: KeptSessions): SessionCache | null {
  if (!intact(k)) return null;
  const cache: SessionCache = new Map();
  const text = k.docs.toString('latin1');
  let docs: SessionDoc[];
  let heads: KeptHead[];
  let rest: KeptRest[];
  try {
    docs = JSON.parse(text) as SessionDoc[];
    heads = JSON.parse(k.heads) as KeptHead[];
    rest = JSON.parse(k.rest) as KeptRest[];
  } catch {
    return null;
  }
  if (!Array.isArray(docs) || !wellFormed(heads) || !Array.isArray(rest)) return null;
  if (docs.length !== heads.length || docs.length !== rest.length || k.spans.length !== docs.length + 1)
    return null;
  for (let i = 0; i < docs.length; i++) {
    const doc = docs[i]!;
    const [key, signature] = rest[i]!;
    const head = heads[i]!;
    remember(doc, text.slice(k.spans[i]!, k.spans[i + 1]! - 1));
    cache.set(key, { signature, doc, unpriced: head[10], live: head[0] });
  }
  return cache;
}

/** What to store of `cache`: documents already kept as text are not serialised again. */
export function keptFromCache(cache: SessionCache): KeptSessions {
  const texts: Buffer[] = [];
  const heads: KeptHead[] = [];
  const rest: KeptRest[] = [];
  for (const [key, e] of cache) {
    const parts = keptParts(key, e);
    texts.push(Buffer.from(parts.text, 'latin1'));
    heads.push(parts.head);
    rest.push(parts.rest);
  }
  return joinSessions(texts, heads, rest);
}

/** The kept sessions from each document's text (ASCII) and entry, in the same order. */
export function joinSessions(texts: Buffer[], heads: KeptHead[], rest: KeptRest[]): KeptSessions {
  // Kept in the order a document lists them, so the next run's sort finds them sorted already.
  const order = sortSessions(heads.map((h, i) => ({ i, lastActiveAt: h[4], id: h[2], provider: h[1] }))).map(
    (x) => x.i,
  );
  if (order.some((i, n) => i !== n)) {
    return joinSessions(
      order.map((i) => texts[i]!),
      order.map((i) => heads[i]!),
      order.map((i) => rest[i]!),
    );
  }
  const parts: Buffer[] = [OPEN];
  const spans = new Int32Array(texts.length + 1);
  let at = 1;
  for (const [i, t] of texts.entries()) {
    if (i > 0) parts.push(COMMA);
    spans[i] = at;
    parts.push(t);
    at += t.length + 1;
  }
  spans[texts.length] = at;
  parts.push(CLOSE);
  const docs = Buffer.concat(parts);
  const kept = { docs, spans, heads: JSON.stringify(heads), rest: JSON.stringify(rest) };
  return { ...kept, crc: checksum(kept) };
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/**
 * The kept sessions of an earlier hour of the same day, moved to `toHour`: each spend-per-hour
 * series slides left and gains empty hours. Exact only for sessions with nothing recorded after the
 * kept hour, which is every session when no transcript changed since (the caller checks that); a
 * session whose last record lies beyond it makes this answer null.
 */
export function shiftHours(k: KeptSessions, fromHour: number, toHour: number): KeptSessions | null {
  const slots = Math.round((toHour - fromHour) / HOUR_MS);
  if (slots <= 0) return null;
  let heads: KeptHead[];
  let rest: KeptRest[];
  try {
    heads = JSON.parse(k.heads) as KeptHead[];
    rest = JSON.parse(k.rest) as KeptRest[];
  } catch {
    return null;
  }
  if (heads.length !== rest.length || k.spans.length !== heads.length + 1) return null;
  if (!intact(k)) return null;
  const start = new Date(toHour - (HOURS_KEPT - 1) * HOUR_MS).toISOString();
  const from = String(fromHour);
  const texts: Buffer[] = [];
  for (let i = 0; i < heads.length; i++) {
    const text = k.docs.toString('latin1', k.spans[i]!, k.spans[i + 1]! - 1);
    const at = text.indexOf(BY_HOUR);
    if (at >= 0) {
      const last = heads[i]![4];
      if (last !== null && Date.parse(last) >= fromHour + HOUR_MS) return null;
      const open = text.indexOf(USD_OPEN, at);
      const close = text.indexOf(']', open);
      if (open < 0 || close < 0) return null;
      const usd = JSON.parse(text.slice(open + USD_OPEN.length - 1, close + 1)) as number[];
      if (usd.length !== HOURS_KEPT) return null;
      const moved = [
        ...usd.slice(Math.min(slots, HOURS_KEPT)),
        ...new Array<number>(Math.min(slots, HOURS_KEPT)).fill(0),
      ];
      texts.push(
        Buffer.from(
          `${text.slice(0, at)}${BY_HOUR}${start}${USD_OPEN.slice(0, -1)}${JSON.stringify(moved)}${text.slice(close + 1)}`,
          'latin1',
        ),
      );
    } else texts.push(k.docs.subarray(k.spans[i]!, k.spans[i + 1]! - 1));
    // The signature names the hour it was built in; what else it names did not change.
    const r = rest[i]!;
    if (r[1].startsWith(`${from}|`)) r[1] = `${toHour}${r[1].slice(from.length)}`;
  }
  return joinSessions(texts, heads, rest);
}

const HOUR_MS = 3_600_000;
const BY_HOUR = '"byHour":{"start":"';
const USD_OPEN = '","usd":[';

/** A kept session as an annotator sees it, with where its document is in the kept text. */
interface Head extends SessionLiveFields {
  stateDetail: string | null;
  at: number;
  /** Where the live fields are in the kept text (-1: look for them). */
  liveStart: number;
  liveEnd: number;
}

/**
 * The document of an unchanged history, straight from what was kept: the sessions' live fields are
 * decided (state from the clock, processes by the annotator) on small heads, and the documents are
 * parsed only if a view asks for them. `cctop --json` never does: it splices each kept text with its
 * live fields, so a warm run neither parses nor serialises 7 MB of JSON.
 */
export class KeptDocument {
  readonly sessions: Head[];
  private parsed: SessionDocument | null = null;

  private constructor(
    /** Each session's kept JSON (ASCII), in the order the heads' `at` index. */
    private readonly texts: Buffer[],
    heads: Head[],
    private readonly frame: Omit<SessionDocument, 'sessions'>,
  ) {
    this.sessions = heads;
  }

  /** From the kept sessions as stored, or null when they are damaged. */
  static from(
    k: KeptSessions,
    frame: Omit<SessionDocument, 'sessions'>,
    stateAt: (live: LiveInputs) => SessionState,
  ): KeptDocument | null {
    let kept: KeptHead[];
    try {
      kept = JSON.parse(k.heads) as KeptHead[];
    } catch {
      return null;
    }
    if (!wellFormed(kept) || k.spans.length !== kept.length + 1) return null;
    if (!intact(k) || k.spans[kept.length] !== k.docs.length) return null;
    const texts = kept.map((_, i) => k.docs.subarray(k.spans[i]!, k.spans[i + 1]! - 1));
    return KeptDocument.of(texts, kept, frame, stateAt);
  }

  /** From each session's text and head (what a patch made, before it is joined for the index). */
  static of(
    texts: Buffer[],
    kept: KeptHead[],
    frame: Omit<SessionDocument, 'sessions'>,
    stateAt: (live: LiveInputs) => SessionState,
  ): KeptDocument {
    const heads: Head[] = kept.map((h, at) => ({
      at,
      provider: h[1],
      id: h[2],
      project: h[3],
      lastActiveAt: h[4],
      deleted: h[5],
      pendingTool: h[6],
      stateDetail: h[7],
      liveStart: h[8],
      liveEnd: h[9],
      state: stateAt(h[0]),
      running: null,
      inferred: null,
      process: null,
    }));
    sortSessions(heads);
    return new KeptDocument(texts, heads, frame);
  }

  /** The whole document, parsed on first use, with the live fields as decided on the heads. */
  document(): SessionDocument {
    if (this.parsed) return this.parsed;
    const texts = this.texts.map((t) => t.toString('latin1'));
    const docs = JSON.parse(`[${texts.join(',')}]`) as SessionDoc[];
    const sessions = this.sessions.map((h) => {
      const d = docs[h.at]!;
      remember(d, texts[h.at]!);
      d.state = h.state;
      d.running = h.running;
      d.inferred = h.inferred;
      d.process = h.process;
      return d;
    });
    this.parsed = shaped(this.frame, sessions);
    return this.parsed;
  }

  /**
   * The document as `documentJson` writes it, as bytes: each session's kept bytes with its live
   * fields written in, never turned into a string.
   */
  json(): Buffer {
    if (this.parsed) return Buffer.from(documentJson(this.parsed), 'latin1');
    const [before, after] = frameJson(this.frame, ['\u0000']).split('\u0000') as [string, string];
    const parts: Buffer[] = [Buffer.from(before, 'latin1')];
    // Most sessions share their live fields (idle, no process): each distinct text is made once.
    const lives = new Map<string, Buffer>();
    for (const [n, h] of this.sessions.entries()) {
      if (n > 0) parts.push(COMMA);
      const t = this.texts[h.at]!;
      let open = h.liveStart;
      let end = h.liveEnd;
      // Kept offsets are trusted only where they still point at the live fields' first key.
      if (open < 0 || end > t.length || t[open] !== 0x2c || t[open + 2] !== 0x73 || t[end] !== 0x2c) {
        open = t.indexOf(LIVE_OPEN);
        const close = open < 0 ? -1 : t.indexOf(LIVE_CLOSE, open);
        end = close < 0 ? -1 : t.indexOf(NEXT_KEY, close + LIVE_CLOSE.length);
      }
      if (end < 0) {
        parts.push(t);
        continue;
      }
      const text = liveText(h);
      let live = lives.get(text);
      if (live === undefined) {
        live = Buffer.from(text, 'latin1');
        lives.set(text, live);
      }
      parts.push(t.subarray(0, open + 1), live, t.subarray(end));
    }
    parts.push(Buffer.from(after, 'latin1'));
    return Buffer.concat(parts);
  }
}

/** Newest first, then by id and provider: plain comparisons, as ISO timestamps sort by code unit. */
export function sortSessions<T extends Pick<SessionDoc, 'lastActiveAt' | 'id' | 'provider'>>(
  sessions: T[],
): T[] {
  return sessions.sort((a, b) => {
    const p = a.lastActiveAt ?? '';
    const q = b.lastActiveAt ?? '';
    if (p !== q) return p < q ? 1 : -1;
    if (a.id !== b.id) return a.id < b.id ? -1 : 1;
    return a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : 0;
  });
}

// ---- What the next run needs to rebuild only what changed -------------------------------------

/** One transcript as the last build saw it. */
export interface KeptFile {
  path: string;
  provider: ProviderId;
  /** Its session's key (`groupKey`). */
  session: string;
  size: number;
  mtimeMs: number;
  ino: number;
  deleted: boolean;
  /** Whether it took part in its session (a smaller copy of a main transcript does not). */
  grouped: boolean;
  /** Ledger records: its slice of `masks`. */
  records: number;
  /** It named sessions by Claude summaries (which a rewrite could withdraw from other sessions). */
  titled: boolean;
}

/**
 * The cross-file state of a build: which records counted after deduplication (`masks`, every file's
 * records in `files` order), the message keys of every counted-or-not record of the grouped files
 * (`keys`: file index, key high, key low), and the titles Claude summaries gave. With these, a run
 * where a few files changed checks that their messages appear in no other file and rebuilds only
 * their sessions.
 */
export interface KeptInputs {
  files: KeptFile[];
  keys: Uint32Array;
  masks: Uint8Array;
  summaries: [number, string][];
}

/** How the kept inputs name a transcript; `grouped` when it took part in its session. */
export function keptFileOf(p: ParsedFile, grouped: boolean): KeptFile {
  return {
    path: p.file.path,
    provider: p.file.provider,
    session: `${p.file.provider}\u0000${sessionKey(p)}`,
    size: p.file.size,
    mtimeMs: p.file.mtimeMs,
    ino: p.file.ino,
    deleted: p.deleted === true,
    grouped,
    records: p.result.ledger.data.length / RECORD_FIELDS,
    titled: p.result.facts.titles.summaries.length > 0,
  };
}

/**
 * Write into `into` from `k` the key triples (file index, key high, key low) of a ledger's records
 * that have a message key; returns where writing stopped.
 */
export function writeKeys(data: Uint32Array, index: number, into: Uint32Array, k: number): number {
  for (let o = 0; o < data.length; o += RECORD_FIELDS) {
    if (data[o + F.FLAGS]! & FLAG.NO_KEY) continue;
    into[k++] = index;
    into[k++] = data[o + F.KEY_HI]!;
    into[k++] = data[o + F.KEY_LO]!;
  }
  return k;
}

/** The inputs of a full build, from what it recorded. */
export function keptInputsOf(files: readonly ParsedFile[], record: BuildRecord): KeptInputs {
  // A group's key is its files' own session key, so membership is all the groups say here.
  const grouped = new Set<ParsedFile>();
  for (const g of record.groups) for (const p of g.files) grouped.add(p);
  const kept: KeptFile[] = [];
  let records = 0;
  let keyed = 0;
  for (const p of files) {
    const n = p.result.ledger.data.length / RECORD_FIELDS;
    records += n;
    if (grouped.has(p)) keyed += n;
  }
  const masks = new Uint8Array(records);
  const keys = new Uint32Array(keyed * 3);
  let at = 0;
  let k = 0;
  for (const [index, p] of files.entries()) {
    const f = keptFileOf(p, grouped.has(p));
    kept.push(f);
    const mask = record.masks.get(p);
    if (mask) masks.set(mask, at);
    else masks.fill(1, at, at + f.records);
    at += f.records;
    if (f.grouped) k = writeKeys(p.result.ledger.data, index, keys, k);
  }
  return { files: kept, keys: keys.subarray(0, k), masks, summaries: [...record.summaries] };
}

// ---- Writing the document ------------------------------------------------------------------------

/**
 * The text a session document had when it was kept, with the span of its live fields (state through
 * inferred, which the clock and the process table change) so it can be reused when only they moved.
 */
interface Remembered {
  text: string;
  liveStart: number;
  liveEnd: number;
}

const texts = new WeakMap<SessionDoc, Remembered>();

/** The live fields, in document order: `"state"` opens the span and `"inferred"` closes it. */
const LIVE_OPEN = ',"state":';
const LIVE_CLOSE = ',"inferred":';
const NEXT_KEY = ',"';

/** Remember `text` (ASCII JSON, see `asciiJson`) as what `doc` serialises to. */
function remember(doc: SessionDoc, text: string): void {
  const r = locateLive(text);
  if (r) texts.set(doc, r);
}

/** Where the live fields are in a session's JSON, or null when it does not look as expected. */
function locateLive(text: string): Remembered | null {
  // Keys are written with plain quotes and every quote inside a string value is escaped, so the
  // first `,"state":` is the key itself; the inferred value is null or a plain word.
  const liveStart = text.indexOf(LIVE_OPEN);
  const close = text.indexOf(LIVE_CLOSE, liveStart);
  if (liveStart < 0 || close < 0) return null;
  const end = text.indexOf(NEXT_KEY, close + LIVE_CLOSE.length);
  if (end < 0) return null;
  return { text, liveStart, liveEnd: end };
}

type LiveFields = Pick<
  SessionDoc,
  'state' | 'stateDetail' | 'running' | 'process' | 'pendingTool' | 'inferred'
>;

/** The live fields as ASCII JSON members, in document order, without braces. */
function liveJson(s: LiveFields): string {
  const live = JSON.stringify({
    state: s.state,
    stateDetail: s.stateDetail,
    running: s.running,
    process: s.process,
    pendingTool: s.pendingTool,
    inferred: s.inferred,
  });
  return asciiJson(live.slice(1, -1));
}

/** `liveJson`, made once for the common case: no detail, no pending tool, no process. */
const commonLives = new Map<string, string>();
function liveText(s: LiveFields): string {
  if (s.stateDetail !== null || s.pendingTool !== null || s.process !== null) return liveJson(s);
  const key = `${s.state}|${s.running}|${s.inferred}`;
  let text = commonLives.get(key);
  if (text === undefined) {
    text = liveJson(s);
    commonLives.set(key, text);
  }
  return text;
}

/** The remembered text with the live fields of `s` in place of the ones it was written with. */
function withLive(r: Remembered, s: LiveFields): string {
  return `${r.text.slice(0, r.liveStart + 1)}${liveJson(s)}${r.text.slice(r.liveEnd)}`;
}

/**
 * JSON with every character past ASCII written as a `\u` escape: the same value to any JSON reader,
 * safe through any terminal or pipe encoding, and kept in the index as one-byte text.
 */
export function asciiJson(json: string): string {
  return NOT_ASCII.test(json) ? json.replace(NOT_ASCII_ALL, escapeChar) : json;
}

const NOT_ASCII = /[\u0080-\uffff]/;
const NOT_ASCII_ALL = /[\u0080-\uffff]/g;
const escapeChar = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** One session as ASCII JSON: its kept text when there is one (with the live fields as they are now). */
export function sessionJson(s: SessionDoc): string {
  const r = texts.get(s);
  return r ? withLive(r, s) : asciiJson(JSON.stringify(s));
}

/**
 * The document as ASCII JSON (`JSON.stringify` with non-ASCII characters escaped), without
 * serialising again the sessions that were read from the index as text: a warm `--json` prints 7 MB,
 * nearly all of it already written.
 */
export function documentJson(doc: SessionDocument): string {
  const { sessions, ...frame } = doc;
  return frameJson(
    frame,
    sessions.map((s) => sessionJson(s)),
  );
}

/** A document of `frame` and `sessions`, spelled out so its keys come in the document's order. */
function shaped(frame: Omit<SessionDocument, 'sessions'>, sessions: SessionDoc[]): SessionDocument {
  return {
    version: frame.version,
    generatedAt: frame.generatedAt,
    plan: frame.plan,
    timeZone: frame.timeZone,
    sessions,
    problems: frame.problems,
  };
}

/** The document's own fields around the sessions' JSON texts. */
function frameJson(frame: Omit<SessionDocument, 'sessions'>, sessions: string[]): string {
  const head = asciiJson(JSON.stringify(shaped(frame, [])));
  // The fields written before `sessions` are a number and strings, whose quotes are escaped.
  const at = head.indexOf('"sessions":[]') + '"sessions":['.length;
  return `${head.slice(0, at)}${sessions.join(',')}${head.slice(at)}`;
}
