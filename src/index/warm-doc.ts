/**
 * Writing the warm document (layout: `warm-doc-layout.ts`): `cctop --json` for the default options,
 * printed when a one-shot's refresh settles, so that a warm `cctop --json` is one read, a freshness
 * check, a few joins and one write, by an entry that loads none of this (`../warm-answer.ts`).
 *
 * Printed as if no process runs any session and no agent says anything of one: the reader proves
 * both before it prints (a process scan for the agents' words; the agents' registries; the hook
 * journal unchanged since, its events' say lapsed, which the key records when it is written),
 * and leaves the answer to the full route when it cannot. A session's live members are printed here
 * when they cannot change any more (they read the same now and two days on: every state rule lapses
 * one way, to `idle`, within a day); else the reader works them out. Its spend windows are joined by
 * the reader, since they move with the hour.
 *
 * With a config file, the document is kept once the config reader has loaded (`docKept` says when).
 *
 * Not here: when a refresh may keep it (`session-index.ts`, with the warm snapshot, `warm.ts`), or
 * its key, everything besides the transcripts the answer depends on (`warm-doc-key.ts`).
 */
import { closeSync, openSync, readSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { Digest } from '../model/digest.js';
import { DOCUMENT_VERSION, type Plan } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { ProblemLog } from '../model/problems.js';
import { type SessionState, UNSEEN_WAITING_TTL_MS } from '../model/state.js';
import type { LocalTime } from '../model/time.js';
import { totalsOfTallies } from '../model/totals.js';
import { DAYS_KEPT, HOURS_KEPT } from '../model/windows.js';
import { cacheDir } from '../paths.js';
import type { Env, ProviderPlace, SourceFile } from '../providers/types.js';
import { addProblem, type KeptProblem } from './build-problems.js';
import type { Held } from './held.js';
import { liveMembers, NO_WINDOWS, unrunLive, windowsMembers } from './live-text.js';
import { ByteWriter, documentHead, documentTail } from './render.js';
import { partsOf } from './session-record.js';
import { keyOf, loadConfigReader, needsConfigReader } from './warm-doc-key.js';
import {
  DOC_FILE,
  DOC_FORMAT,
  DOC_ID_CHARS,
  DOC_IDS_AT,
  DOC_PREFIX_BYTES,
  type DocHeader,
  type DocKey,
  HOLE_KIND_SHIFT,
  HOLE_LIVE,
  HOLE_QUIET_WINDOWS,
  HOLE_WINDOWS,
  type LiveEntry,
  type WindowedEntry,
} from './warm-doc-layout.js';
import { listPartOf } from './warm-doc-list.js';

/**
 * How far on a session's live members are read again to see whether they can still change: past the
 * longest a state rule waits before it lapses (`UNSEEN_WAITING_TTL_MS`, a day), doubled for margin.
 */
const SETTLED_AFTER_MS = 2 * UNSEEN_WAITING_TTL_MS;

const HOUR_MS = 3_600_000;

/** What a settled one-shot refresh hands over, with what its scope was worked out from. */
export interface DocAnswer {
  env: Env;
  scope: string;
  digest: string;
  nowMs: number;
  /** When the last full look behind it was: the file's time, which the reader trusts for `SWEEP_EVERY_MS`. */
  sweptAt: number;
  unchanged: boolean;
  looked: ReadonlyMap<string, number>;
  files: readonly SourceFile[];
  held: readonly Held[];
  problems: readonly KeptProblem[];
  options: {
    plan: Plan;
    providers: readonly ProviderId[] | null;
    timeZone?: string | undefined;
    sinceMs: number | null;
    untilMs: number | null;
  };
  places: readonly ProviderPlace[];
  catalogue: string;
  time: LocalTime;
  /** Transcripts touched this recently may be growing: the reader checks them (`warm.ts` `GROWING_MS`). */
  growingMs: number;
}

export const docPath = (env: Env): string => join(cacheDir(env), DOC_FILE);

/** The document being kept once the config reader has loaded (tests wait on it: `docKept`). */
let pending: Promise<void> = Promise.resolve();

/** Settled once every document `keepWarmDoc` set out to keep is kept (or given up). */
export const docKept = (): Promise<void> => pending;

/**
 * Keep `a` as the warm document, when it was asked with the default options (those of a bare
 * `cctop --json`) and its key can be recorded; when the document there is this answer already,
 * only mark it as looked at now. With a config file, once its reader has loaded. Never throws: the
 * document only saves time.
 */
export function keepWarmDoc(a: DocAnswer): void {
  const o = a.options;
  if (o.plan !== 'retail' || o.providers !== null || o.timeZone !== undefined) return;
  if (o.sinceMs !== null || o.untilMs !== null) return;
  if (needsConfigReader(a.env)) {
    pending = pending
      .then(loadConfigReader)
      .then(() => keepWarmDoc(a))
      .catch(() => {
        // The reader would not load: no document, and the full route answers as before.
      });
    return;
  }
  try {
    const key = keyOf(a);
    if (key === null) return;
    // The hour is in it: the quiet windows are printed for one, so the sweep prints them again in the next.
    // The layout too: a document of another layout is written anew, not only marked as looked at.
    const keyDigest = new Digest().text(JSON.stringify([key, a.time.hourStart(a.nowMs), DOC_FORMAT])).hex();
    const path = docPath(a.env);
    if (a.unchanged && prefixOf(path) === idsOf(a.digest, a.scope, keyDigest)) {
      utimesSync(path, a.sweptAt / 1000, a.sweptAt / 1000);
      return;
    }
    const bytes = docBytes(a, key, keyDigest);
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, bytes);
    utimesSync(tmp, a.sweptAt / 1000, a.sweptAt / 1000);
    renameSync(tmp, path);
  } catch {
    // A full disk or a read-only cache: a warm answer then comes through the snapshot, as before.
  }
}

const idsOf = (digest: string, scope: string, key: string): string =>
  [digest, scope, key].map((s) => s.slice(0, DOC_ID_CHARS).padEnd(DOC_ID_CHARS)).join('');

/** The ids a document was written with, or null when there is none. */
function prefixOf(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    // No document yet.
    return null;
  }
  try {
    const b = Buffer.alloc(DOC_PREFIX_BYTES);
    return readSync(fd, b, 0, DOC_PREFIX_BYTES, 0) === DOC_PREFIX_BYTES
      ? b.toString('latin1', DOC_IDS_AT)
      : null;
  } finally {
    closeSync(fd);
  }
}

/** The whole file: prefix, header, hole table, body. */
function docBytes(a: DocAnswer, key: DocKey, keyDigest: string): Buffer {
  const { nowMs, time } = a;
  const body = new BodyWriter(a.held.length * 2048);
  const live: LiveEntry[] = [];
  const windowed: WindowedEntry[] = [];
  const matched = new Set(a.places.filter((p) => p.processes !== undefined).map((p) => p.id));
  // A session last active before every window's start has nothing in any of them, now or later.
  const oldestHour = time.hourStart(nowMs) - (HOURS_KEPT - 1) * HOUR_MS;
  const oldestDay = time.dayNumber(nowMs) - (DAYS_KEPT - 1);
  const since = new Date(Math.min(oldestHour, time.dayStartMs(oldestDay))).toISOString();
  const quiet = windowsMembers(time, nowMs)({ tally: { usd: 0 }, lastActiveAt: null, spend: () => NO_SPEND });
  // Each session's state now, and its entry in `live` when the reader works it out again (else -1).
  const states: SessionState[] = [];
  const liveRefs: number[] = [];
  a.held.forEach((h, i) => {
    const record = h.sealed();
    const at = partsOf(record);
    if (at === null) throw new Error(`the record of ${h.provider} ${h.id} does not fit`);
    if (i > 0) body.text(',');
    body.text('{');
    body.bytes(record, at.facts, at.cost);
    const running = matched.has(h.provider) ? false : null;
    const { signal, mtime, lastMs } = h.live;
    const shown = unrunLive(signal, mtime, lastMs, h.lastActiveAt, running, nowMs);
    const now = liveMembers(shown);
    const later = liveMembers(
      unrunLive(signal, mtime, lastMs, h.lastActiveAt, running, nowMs + SETTLED_AFTER_MS),
    );
    states.push(shown.state);
    if (now === later) {
      body.text(now);
      liveRefs.push(-1);
    } else {
      const ref = live.push([signal, mtime, lastMs, h.lastActiveAt, running]) - 1;
      body.hole(HOLE_LIVE, ref);
      liveRefs.push(ref);
    }
    body.bytes(record, at.cost, at.spend);
    body.text(',');
    if (h.tally.usd === null) body.text(NO_WINDOWS);
    else if (h.lastActiveAt !== null && h.lastActiveAt < since) {
      body.hole(HOLE_QUIET_WINDOWS, 0);
      body.text(quiet);
    } else {
      const spend = h.spend();
      body.hole(HOLE_WINDOWS, windowed.push([h.lastActiveAt, spend.hours, spend.days]) - 1);
    }
    body.text('}}');
  });
  const log = new ProblemLog();
  for (const k of a.problems) addProblem(k.problem, k.after, nowMs, log, undefined);
  const frame = {
    version: DOCUMENT_VERSION,
    generatedAt: GENERATED_AT,
    plan: a.options.plan,
    timeZone: time.timeZone,
    problems: log.list,
    totals: totalsOfTallies(a.held.map((h) => h.tally)),
    // No process runs a session the reader answers for, so no two running sessions collide.
    collisions: [],
  };
  const list = listPartOf(a, states, liveRefs);
  const head = documentHead(frame);
  const cut = head.indexOf(GENERATED_AT);
  const header: DocHeader = {
    format: DOC_FORMAT,
    scope: a.scope,
    takenAt: nowMs,
    key,
    dirs: [...a.looked],
    files: a.files
      .filter((f) => nowMs - f.mtimeMs <= a.growingMs)
      .map((f) => [f.path, f.size, f.mtimeMs, f.ino]),
    head: [head.slice(0, cut), head.slice(cut + GENERATED_AT.length)],
    tail: `${documentTail(frame)}\n`,
    live,
    windowed,
    quiet: [time.hourStart(nowMs), quiet.length],
    holes: body.holes.length / 2,
    listBytes: list.length,
  };
  const headBytes = Buffer.from(JSON.stringify(header));
  const holes = Buffer.alloc(body.holes.length * 4);
  for (let i = 0; i < body.holes.length; i++) holes.writeUInt32LE(body.holes[i]!, i * 4);
  return withPrefix(
    headBytes,
    Buffer.concat([headBytes, holes, list]),
    body.done(),
    idsOf(a.digest, a.scope, keyDigest),
  );
}

/** The file: the prefix (`DOC_PREFIX_BYTES`: lengths, CRC-32s, ids), the head, the body. */
function withPrefix(header: Buffer, head: Buffer, body: Buffer, ids: string): Buffer {
  const prefix = Buffer.alloc(DOC_PREFIX_BYTES);
  prefix.writeUInt32LE(header.length, 0);
  prefix.writeUInt32LE(crc32(body, crc32(head)) >>> 0, 4);
  prefix.writeUInt32LE(head.length, 8);
  prefix.writeUInt32LE(crc32(head) >>> 0, 12);
  prefix.write(ids, DOC_IDS_AT, 'latin1');
  return Buffer.concat([prefix, head, body]);
}

const NO_SPEND = { hours: [], days: [] };

/** Stands for the moment of printing in the head; cut out there (it needs no escaping). */
const GENERATED_AT = 'generated-at';

/** The body as it is written: ASCII text, kept bytes, and where the holes are (offset, tag pairs). */
class BodyWriter extends ByteWriter {
  readonly holes: number[] = [];

  hole(kind: number, ref: number): void {
    this.holes.push(this.size, ((kind << HOLE_KIND_SHIFT) | ref) >>> 0);
  }
}
