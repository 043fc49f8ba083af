/**
 * The warm snapshot: beside the index, one file per scope holding what a warm one-shot prints, so
 * that `cctop --json`, `--list` or `cctop daily --json` with nothing changed costs one read, one freshness
 * check, the live fields joined and one write. It is written when a one-shot's refresh settles
 * (kept, patched or built) and holds, in the document's order, each session's sealed record (the
 * bytes the index keeps: facts as printed text, spend, usage cells) and what is shown of it without
 * parsing anything (its head), apart from them the few facts a `cctop --list` row reads (so the list
 * needs no session document), with the totals, the problems as a build keeps them, and what
 * discovery saw: every directory it asked to list with the time it had, and every transcript with
 * its size, time and inode.
 *
 * Fresh means: the same scope (options, roots, prices, code, settings, day), every directory with
 * the same time (nothing added, removed or renamed in it), every transcript touched in the last hour
 * with the same size, time and inode, and a full look (a refresh through the index, which lists every
 * directory and stats every transcript) at most a minute ago. Anything else declines with its reason
 * and the index answers, as it always did. What this can miss, and for how long, is in
 * docs/limits.md.
 *
 * Loads no SQLite, no provider and no parser: only the printer, the places (to know the roots) and
 * the scope. Not here: deciding when a refresh may use the index (`session-index.ts`), the document's
 * printing rules (`render.ts`).
 */
import {
  closeSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { Annotator, Plan } from '../model/document.js';
import { DOCUMENT_VERSION } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { PROVIDERS } from '../model/facts.js';
import { type Problem, ProblemLog } from '../model/problems.js';
import type { LiveSignal } from '../model/state.js';
import { LocalTime } from '../model/time.js';
import { type DocumentTotals, totalsOfTallies } from '../model/totals.js';
import { totalTokens } from '../model/usage.js';
import type { SessionUsage } from '../model/usage-cells.js';
import { cacheDir } from '../paths.js';
import { dirTime } from '../providers/fsutil.js';
import type { Env, SourceFile } from '../providers/types.js';
import { addProblem, type KeptProblem } from './build-problems.js';
import { loadCatalogue } from './catalogue.js';
import { type Held, type Shown, shownOf } from './held.js';
import type { DocumentExtras } from './picture.js';
import { documentBytes, windowsMembers, writeSession } from './render.js';
import { chosenProviders } from './scan.js';
import { rootPaths, scopeOf } from './scope.js';
import {
  decodeFacts,
  decodeSpend,
  decodeUsage,
  type KeptHead,
  type LiveInputs,
  partsOf,
  sessionKeyOf,
} from './session-record.js';

/** The layout of the file; another number is another layout, and declines. */
const WARM_FORMAT = 3;

/**
 * How long a look that skips unchanged directories and quiet transcripts is trusted before a full
 * one: an append to a transcript quiet for an hour, in a directory that did not change, is seen
 * within this. A minute, as search's sweep: a status glance is not worth a full look each time.
 */
export const SWEEP_EVERY_MS = 60_000;

/**
 * A transcript touched this recently may be growing: its size and time are checked on every warm
 * run. An agent writes to its transcript every few seconds while it works; an hour covers a long
 * pause (a human reading, a slow tool) before it writes again.
 */
export const GROWING_MS = 60 * 60_000;

/** The discovery digest's length (`Digest.hex()`), kept at the start to be checked without the rest. */
const DIGEST_CHARS = 16;

/** The fixed part before the header: its length, the CRC of everything after it, the discovery digest. */
const PREFIX_BYTES = 8 + DIGEST_CHARS;

/** What is shown of a session without parsing its record (its head, less what the totals hold). */
interface WarmSession {
  provider: ProviderId;
  id: string;
  file: string;
  project: string | null;
  lastActiveAt: string | null;
  deleted: boolean;
  live: LiveInputs;
  usd: number | null;
  /** Its record in the pack: where it starts and how long it is. */
  start: number;
  length: number;
}

interface WarmHeader {
  format: number;
  scope: string;
  /** When this answer was taken (the clock of the refresh that wrote it). */
  takenAt: number;
  dirs: [string, number][];
  files: [string, number, number, number][];
  problems: KeptProblem[];
  totals: DocumentTotals;
  sessions: WarmSession[];
  /** The length of the `--list` facts (`ListedRow`s, JSON) between the header and the records. */
  listedBytes: number;
}

/**
 * What `cctop --list` reads of a session besides its head: kept apart from the header, in its order,
 * so that `--json` does not parse them. A tuple: 4,000 of them are parsed by each warm `--list`.
 */
type ListedRow = [
  startedAt: string | null,
  title: string | null,
  model: string | null,
  used: number | null,
  compactAt: number | null,
  tokens: number | null,
  included: boolean,
  unpriced: boolean,
];

/** A session as a `--list` row reads it (`ListFacts` in `views/cli/list.ts`), with its live fields. */
export interface WarmListed {
  provider: ProviderId;
  id: string;
  project: string | null;
  title: string | null;
  lastActiveAt: string | null;
  startedAt: string | null;
  model: string | null;
  usd: number | null;
  included: boolean;
  tokens: number | null;
  unpriced: boolean;
  context: { used: number | null; compactAt: number | null };
  state: Shown['state'];
  stateSource: Shown['stateSource'];
}

// ---- Writing -----------------------------------------------------------------------------------

/** What a settled one-shot refresh hands over to be kept warm. */
export interface WarmAnswer {
  env: Env;
  scope: string;
  /** The discovery digest: a snapshot with the same one holds the same sessions. */
  digest: string;
  nowMs: number;
  /** Whether the answer came from the kept build unchanged (then a snapshot of the same digest is it). */
  unchanged: boolean;
  looked: ReadonlyMap<string, number>;
  files: readonly SourceFile[];
  held: readonly Held[];
  problems: KeptProblem[];
}

export function warmPath(env: Env, scope: string): string {
  return join(cacheDir(env), `warm-${scope}.snap`);
}

/**
 * Keep `a` as the snapshot of its scope, or, when the snapshot there already holds this answer, only
 * mark it as looked at now (its file time is when the last full look was). Never throws: the
 * snapshot only saves time, and the index answered already.
 */
export function keepWarm(a: WarmAnswer): void {
  const path = warmPath(a.env, a.scope);
  try {
    if (a.unchanged && digestOf(path) === a.digest) {
      utimesSync(path, a.nowMs / 1000, a.nowMs / 1000);
      return;
    }
    const sessions: WarmSession[] = [];
    const records: Buffer[] = [];
    const listed: ListedRow[] = [];
    let at = 0;
    for (const h of a.held) {
      const record = h.sealed();
      const l = h.listed();
      listed.push([
        l.startedAt,
        l.title,
        l.model,
        l.used,
        l.compactAt,
        totalTokens(h.tally.tokens),
        h.tally.included,
        h.tally.unpricedTokens > 0,
      ]);
      sessions.push({
        provider: h.provider,
        id: h.id,
        file: h.file,
        project: h.project,
        lastActiveAt: h.lastActiveAt,
        deleted: h.deleted,
        live: h.live,
        usd: h.tally.usd,
        start: at,
        length: record.length,
      });
      records.push(record);
      at += record.length;
    }
    const list = Buffer.from(JSON.stringify(listed));
    const header: WarmHeader = {
      format: WARM_FORMAT,
      scope: a.scope,
      takenAt: a.nowMs,
      dirs: [...a.looked],
      files: a.files.map((f) => [f.path, f.size, f.mtimeMs, f.ino]),
      problems: a.problems,
      totals: totalsOfTallies(a.held.map((h) => h.tally)),
      sessions,
      listedBytes: list.length,
    };
    // Session text is ASCII already (the records are); the header's paths may not be.
    const head = Buffer.from(JSON.stringify(header));
    const prefix = Buffer.alloc(PREFIX_BYTES);
    const body = Buffer.concat([head, list, ...records]);
    prefix.writeUInt32LE(head.length, 0);
    prefix.writeUInt32LE(crc32(body) >>> 0, 4);
    prefix.write(a.digest.slice(0, DIGEST_CHARS).padEnd(DIGEST_CHARS), 8, 'latin1');
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([prefix, body]));
    utimesSync(tmp, a.nowMs / 1000, a.nowMs / 1000);
    renameSync(tmp, path);
    forgetOthers(cacheDir(a.env));
  } catch {
    // A full disk or a read-only cache: every run then answers through the index, as before.
  }
}

/**
 * Snapshots kept at once, as the index keeps scopes (`MAX_KEPT_SCOPES`): a new day is a new scope, and
 * a snapshot is the size of the index's records (11 MB for 4,000 sessions), so the least recently
 * looked at go first.
 */
export const MAX_WARM_SNAPSHOTS = 4;

function forgetOthers(dir: string): void {
  const kept = readdirSync(dir)
    .filter((n) => n.startsWith('warm-') && n.endsWith('.snap'))
    .map((n) => ({ path: join(dir, n), at: statSync(join(dir, n), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((x, y) => y.at - x.at);
  for (const k of kept.slice(MAX_WARM_SNAPSHOTS)) unlinkSync(k.path);
}

/** The discovery digest a snapshot was written for, or null when there is none. */
function digestOf(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    // No snapshot yet.
    return null;
  }
  try {
    const b = Buffer.alloc(PREFIX_BYTES);
    return readSync(fd, b, 0, PREFIX_BYTES, 0) === PREFIX_BYTES ? b.toString('latin1', 8).trimEnd() : null;
  } finally {
    closeSync(fd);
  }
}

// ---- Reading -----------------------------------------------------------------------------------

export interface WarmOptions {
  env: Env;
  plan: Plan;
  providers: readonly ProviderId[] | null;
  timeZone?: string | undefined;
  sinceMs: number | null;
  untilMs: number | null;
  nowMs: number;
  /** Fills in the process fields, as the index's; left out, `running` stays null. */
  annotate?: Annotator | undefined;
}

export type WarmReading =
  | { kind: 'answered'; snapshot: WarmSnapshot }
  | { kind: 'declined'; strategy: 'snapshot'; reason: string };

const declined = (reason: string): WarmReading => ({ kind: 'declined', strategy: 'snapshot', reason });

/** The snapshot of these options, when it can be proved fresh now; else why not. */
export function readWarm(o: WarmOptions): WarmReading {
  const time = new LocalTime(o.timeZone);
  const places = chosenProviders(o.providers);
  const catalogue = loadCatalogue(o.env);
  const scope = scopeOf(o, places, rootPaths(o.env, places), catalogue.digest, time, o.nowMs);
  const path = warmPath(o.env, scope);
  let b: Buffer;
  let sweptAt: number;
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    // Nothing kept warm for these options yet.
    return declined('no snapshot is kept for these options');
  }
  try {
    // The time and the bytes of one file: a snapshot replaced meanwhile is not judged by the new one's time.
    sweptAt = fstatSync(fd).mtimeMs;
    b = readFileSync(fd);
  } catch {
    // Unreadable: the index answers, and writes it again.
    return declined('the snapshot cannot be read');
  } finally {
    closeSync(fd);
  }
  if (o.nowMs - sweptAt > SWEEP_EVERY_MS || o.nowMs < sweptAt)
    return declined('the last full look at the transcripts is over a minute old');
  if (b.length < PREFIX_BYTES) return discarded(path, 'the snapshot is damaged');
  const headBytes = b.readUInt32LE(0);
  if (PREFIX_BYTES + headBytes > b.length || crc32(b.subarray(PREFIX_BYTES)) >>> 0 !== b.readUInt32LE(4))
    return discarded(path, 'the snapshot is damaged');
  const header = headerOf(b.toString('utf8', PREFIX_BYTES, PREFIX_BYTES + headBytes));
  if (header === null) return discarded(path, 'the snapshot is of another version');
  if (header.scope !== scope) return discarded(path, 'the snapshot is of other options');
  const listAt = PREFIX_BYTES + headBytes;
  if (listAt + header.listedBytes > b.length) return discarded(path, 'the snapshot is damaged');
  const moved = movedSince(header, o.nowMs);
  if (moved !== null) return declined(moved);
  const list = b.subarray(listAt, listAt + header.listedBytes);
  return {
    kind: 'answered',
    snapshot: new WarmSnapshot(header, list, b.subarray(listAt + header.listedBytes), time, o),
  };
}

/**
 * Declined, and the file removed: the next answer through the index writes it whole (a snapshot
 * kept as it is would otherwise only have its time renewed while nothing changes).
 */
function discarded(path: string, reason: string): WarmReading {
  try {
    unlinkSync(path);
  } catch {
    // Gone already, or not ours to remove: the next writer replaces it anyway.
  }
  return declined(reason);
}

/** What changed since the snapshot, or null when nothing it can see did. */
function movedSince(h: WarmHeader, nowMs: number): string | null {
  for (const [dir, mtime] of h.dirs) if (dirTime(dir) !== mtime) return `${dir} changed`;
  for (const [path, size, mtimeMs, ino] of h.files) {
    if (nowMs - mtimeMs > GROWING_MS) continue;
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(path, { throwIfNoEntry: false });
    } catch {
      // Unreadable now: the index says why.
      return `${path} cannot be read`;
    }
    if (st === undefined || st.size !== size || st.mtimeMs !== mtimeMs || st.ino !== ino)
      return `${path} changed`;
  }
  return null;
}

/** The sessions of a fresh snapshot, joined with the live fields at one moment. */
export class WarmSnapshot {
  readonly problems: Problem[];
  readonly time: LocalTime;
  private readonly shown: Shown[];

  constructor(
    private readonly h: WarmHeader,
    private readonly listBytes: Buffer,
    private readonly pack: Buffer,
    time: LocalTime,
    private readonly o: WarmOptions,
  ) {
    this.time = time;
    const log = new ProblemLog();
    for (const k of h.problems) addProblem(k.problem, k.after, o.nowMs, log, undefined);
    this.problems = log.list;
    this.shown = h.sessions.map((s) => shownOf(s, o.nowMs));
    o.annotate?.({ sessions: this.shown });
  }

  get count(): number {
    return this.h.sessions.length;
  }

  private part(s: WarmSession): Pick<KeptHead, 'sealed' | 'at'> {
    const record = this.pack.subarray(s.start, s.start + s.length);
    const at = partsOf(record);
    if (at === null) throw new Error(`the warm snapshot's record of ${s.provider} ${s.id} does not fit`);
    return { sealed: { record, crc: 0 }, at };
  }

  /** Each session's title, for the few views that name sessions besides printing them (collisions). */
  titles(): { provider: ProviderId; id: string; title: string | null }[] {
    return this.h.sessions.map((s) => {
      const facts = decodeFacts({ key: sessionKeyOf(s.provider, s.id), ...this.part(s) });
      if (facts === null) throw new Error(`the warm snapshot's facts of ${s.provider} ${s.id} do not decode`);
      return { provider: s.provider, id: s.id, title: facts.title };
    });
  }

  /**
   * The document as `cctop --json` prints it, with the live fields joined when it was read: written
   * straight from the snapshot's bytes into one buffer, with `tail` (a newline) after it.
   */
  json(extra: DocumentExtras = {}, tail = ''): Buffer {
    const nowMs = this.o.nowMs;
    const shown = this.shown;
    const windows = windowsMembers(this.time, nowMs);
    const frame = {
      version: DOCUMENT_VERSION,
      generatedAt: new Date(nowMs).toISOString(),
      plan: this.o.plan,
      timeZone: this.time.timeZone,
      problems: this.problems,
      totals: this.h.totals,
      ...(extra.collisions === undefined ? {} : { collisions: extra.collisions }),
    };
    const pack = this.pack;
    // The facts and costs are most of the document; the live members and windows add about 400
    // bytes a session.
    const hint = pack.length + this.count * 512;
    return documentBytes(
      frame,
      this.count,
      hint,
      (i, w) => {
        const s = this.h.sessions[i]!;
        const start = s.start;
        const at = partsOf(pack, start, start + s.length);
        if (at === null) throw new Error(`the warm snapshot's record of ${s.provider} ${s.id} does not fit`);
        let spend: ReturnType<typeof decodeSpend> | undefined;
        const windowed = {
          tally: { usd: s.usd },
          lastActiveAt: s.lastActiveAt,
          spend: () => {
            spend ??= decodeSpend(this.part(s));
            if (spend === null)
              throw new Error(`the warm snapshot's spend of ${s.provider} ${s.id} does not decode`);
            return spend;
          },
        };
        writeSession(
          w,
          pack,
          [start + at.facts, start + at.cost],
          [start + at.cost, start + at.spend],
          shown[i]!,
          windows(windowed),
        );
      },
      tail,
    );
  }

  /**
   * Every session as a `cctop --list` row reads it, with the live fields joined when it was read: no
   * record is decoded.
   */
  listed(): WarmListed[] {
    const rows = listedOf(this.listBytes.toString('utf8'), this.count);
    if (rows === null) throw new Error("the warm snapshot's --list facts do not read");
    return this.h.sessions.map((s, i) => {
      const [startedAt, title, model, used, compactAt, tokens, included, unpriced] = rows[i]!;
      const live = this.shown[i]!;
      return {
        provider: s.provider,
        id: s.id,
        project: s.project,
        title,
        lastActiveAt: s.lastActiveAt,
        startedAt,
        model,
        usd: s.usd,
        included,
        tokens,
        unpriced,
        context: { used, compactAt },
        state: live.state,
        stateSource: live.stateSource,
      };
    });
  }

  /** Every session's requests per hour, day and model, as `SessionIndex.usage()` gives them. */
  usage(): SessionUsage[] {
    return this.h.sessions.map((s) => {
      const cells = decodeUsage(this.part(s));
      if (cells === null)
        throw new Error(`the warm snapshot's usage of ${s.provider} ${s.id} does not decode`);
      return { provider: s.provider, id: s.id, project: s.project, cells };
    });
  }
}

// ---- Narrowing the header ------------------------------------------------------------------------

const KNOWN = new Set<string>(PROVIDERS);

function headerOf(text: string): WarmHeader | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    // Passed its CRC yet is not JSON: written by another layout.
    return null;
  }
  return isHeader(v) ? v : null;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const nullable = (v: unknown, type: 'string' | 'number'): boolean => v === null || typeof v === type;

function isHeader(v: unknown): v is WarmHeader {
  if (!isObj(v) || v.format !== WARM_FORMAT || typeof v.scope !== 'string' || typeof v.takenAt !== 'number')
    return false;
  const { dirs, files, problems, totals, sessions } = v;
  if (
    !Array.isArray(dirs) ||
    !dirs.every((d) => Array.isArray(d) && typeof d[0] === 'string' && typeof d[1] === 'number')
  )
    return false;
  if (
    !Array.isArray(files) ||
    !files.every((f) => Array.isArray(f) && typeof f[0] === 'string' && f.length === 4)
  )
    return false;
  if (
    !Array.isArray(problems) ||
    !problems.every((p) => isObj(p) && isObj(p.problem) && nullable(p.after, 'number'))
  )
    return false;
  return (
    typeof v.listedBytes === 'number' && isObj(totals) && Array.isArray(sessions) && sessions.every(isSession)
  );
}

/** The `--list` facts, `count` of them, or null when they are not what `keepWarm` writes. */
function listedOf(text: string, count: number): ListedRow[] | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    // Passed the CRC yet is not JSON: another layout.
    return null;
  }
  return Array.isArray(v) && v.length === count && v.every(isListedRow) ? v : null;
}

function isListedRow(r: unknown): r is ListedRow {
  return (
    Array.isArray(r) &&
    r.length === 8 &&
    nullable(r[0], 'string') &&
    nullable(r[1], 'string') &&
    nullable(r[2], 'string') &&
    nullable(r[3], 'number') &&
    nullable(r[4], 'number') &&
    nullable(r[5], 'number') &&
    typeof r[6] === 'boolean' &&
    typeof r[7] === 'boolean'
  );
}

function isSession(s: unknown): s is WarmSession {
  if (!isObj(s) || typeof s.provider !== 'string' || !KNOWN.has(s.provider)) return false;
  if (typeof s.id !== 'string' || typeof s.file !== 'string' || typeof s.deleted !== 'boolean') return false;
  if (!nullable(s.project, 'string') || !nullable(s.lastActiveAt, 'string') || !nullable(s.usd, 'number'))
    return false;
  if (typeof s.start !== 'number' || typeof s.length !== 'number') return false;
  const live = s.live;
  return (
    isObj(live) &&
    typeof live.mtime === 'number' &&
    nullable(live.lastMs, 'number') &&
    (live.signal === null || isSignal(live.signal))
  );
}

const isSignal = (v: unknown): v is LiveSignal => isObj(v);
