/**
 * The ways a refresh can answer, fastest first, each exactly what the next would give:
 *
 * - `kept`: nothing changed since the build kept for this scope (same files, same sizes and times):
 *   its sessions as they are, their facts not even parsed;
 * - `patched`: a few files changed, sharing no message with any other file: those files read from
 *   where they stopped and only their sessions rebuilt (`patch.ts`);
 * - `built`: every file brought up to date through the index and every session built, reusing the
 *   records whose inputs did not move (from this process's last build, or the kept ones).
 *
 * A strategy answers or declines with its reason. A declined one leaves nothing behind: what it
 * logged went to a scratch log that is dropped with it. `built` never declines.
 *
 * Not here: picking the order, healing a damaged index (`session-index.ts`).
 */
import type { Plan } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import type { PriceBook } from '../model/pricing.js';
import { ProblemLog } from '../model/problems.js';
import type { LocalTime } from '../model/time.js';
import type { Env, ProviderPlace } from '../providers/types.js';
import { type Held, heldOfHead, heldOfRecord } from './held.js';
import { stillWritten } from './keep-one-shot.js';
import { type KeptScope, keptDigest, keptDiscovery, keptInputsOf, TOUCH_AFTER_MS } from './kept.js';
import { KEEP_PATCH_AFTER_MS, KEEP_PATCH_FILES, patchKept } from './patch.js';
import { Pipeline } from './pipeline.js';
import { type ReadProgress, type ScanOutcome, scanFiles } from './refresh.js';
import { sortSessions } from './render.js';
import type { Discovery } from './scan.js';
import {
  encodeRecord,
  type KeptHead,
  packRecords,
  packRows,
  type SealedRow,
  type SessionRecord,
} from './session-record.js';
import type { KeptProblem } from './sessions.js';
import {
  addProblem,
  type BuildOptions,
  type BuildRecord,
  buildRecords,
  type ParsedFile,
  type SessionCache,
} from './sessions.js';
import type { IndexStore, StoredFile } from './store.js';

export type Strategy = 'kept' | 'patched' | 'built';

export type ScanStats = ScanOutcome['stats'];

/** What a long-running index remembers between refreshes: every file read and every record built. */
export interface Memory {
  known: Map<string, StoredFile> | undefined;
  cache: SessionCache;
  /** The parsed files of the last build; null until one ran in this process. */
  files: ParsedFile[] | null;
}

/** What one refresh knows when it looks for an answer. */
export interface Pass {
  env: Env;
  plan: Plan;
  providers: readonly ProviderId[] | null;
  places: readonly ProviderPlace[];
  sinceMs: number | null;
  untilMs: number | null;
  threads: number;
  /** See `IndexOptions.oneRefresh`. */
  oneRefresh: boolean;
  nowMs: number;
  time: LocalTime;
  book: PriceBook;
  /** The refresh's problems: a strategy that answers adds its own here. */
  log: ProblemLog;
  discovery: Discovery;
  digest: string;
  store: IndexStore | null;
  scope: string | null;
  memory: Memory;
  /** The kept build of this scope, read once for the strategies that use it. */
  kept(): { scope: KeptScope; heads: KeptHead[] } | null;
  /** Told how far a build's reading is, with the sessions built so far (see `Building`). */
  building?: (b: Building) => void;
}

/** How far a build is: files and bytes read of how many, and the sessions built so far. */
export interface Building {
  files: number;
  filesTotal: number;
  bytes: number;
  bytesTotal: number;
  /** The sessions built so far (some may be built again once every file is read), in no order. */
  built: ReadonlyMap<string, SessionRecord>;
}

export type Answer =
  | {
      kind: 'answered';
      strategy: Strategy;
      /** The sessions, in the document's order. */
      held: Held[];
      stats: ScanStats;
      /** Whether the index holds the build these sessions came from (a report can read a session's files there). */
      indexed: boolean;
      /**
       * The problems of the answer as a build keeps them (each with the moment it shows from), or
       * null when the answer holds problems that are not kept (a file that could not be read).
       */
      problems: KeptProblem[] | null;
    }
  | { kind: 'declined'; strategy: Strategy; reason: string };

const declined = (strategy: Strategy, reason: string): Answer => ({ kind: 'declined', strategy, reason });

const noReads = (reused: number): ScanStats => ({
  reused,
  tailed: 0,
  read: 0,
  deleted: 0,
  bytesRead: 0,
  gone: 0,
});

/** The kept sessions, when nothing changed since they were built. */
export function fromKept(p: Pass): Answer {
  const kept = p.kept();
  if (kept === null) return declined('kept', 'no build is kept for these options');
  if (keptDiscovery(kept.scope.digest) !== p.digest)
    return declined('kept', 'transcripts changed since the kept build');
  // Counted only now: the digest of what discovery saw costs no query, and differs most often.
  if (kept.scope.digest !== keptDigest(p.digest, filesHeld(p))) return declined('kept', HOLDS_OTHERS);
  for (const k of kept.scope.problems) addProblem(k.problem, k.after, p.nowMs, p.log, undefined);
  if (p.nowMs - kept.scope.usedAt > TOUCH_AFTER_MS) {
    try {
      p.store?.kept.touch(p.scope!, p.nowMs);
    } catch {
      // Only the order in which scopes are forgotten suffers.
    }
  }
  return {
    kind: 'answered',
    strategy: 'kept',
    held: sortSessions(kept.heads.map(heldOfHead)),
    stats: noReads(p.discovery.files.length),
    indexed: true,
    problems: kept.scope.problems,
  };
}

/** Most often a transcript another run stored (a patch not written back, another scope) and deleted since. */
const HOLDS_OTHERS = 'the index holds other files than the kept build';

/** How many files the index holds that a full build of this pass reads, on disk or deleted; -1 without one. */
function filesHeld(p: Pass): number {
  const roots = [...new Set(p.discovery.roots.map((r) => r.path))];
  const providers = p.places.map((x) => x.id);
  return p.store?.countFiles(roots, providers) ?? -1;
}

/** The kept sessions with the few that changed rebuilt, when that provably equals a full build. */
export async function byPatch(p: Pass): Promise<Answer> {
  const kept = p.kept();
  const store = p.store;
  if (kept === null || store === null || p.scope === null)
    return declined('patched', 'no build is kept for these options');
  // The inputs of the very write whose sessions were read: another cctop may have kept since.
  const inputs = store.kept.inputs(p.scope, kept.scope.keptAt);
  if (inputs === null) return declined('patched', 'the kept build has no inputs to patch');
  const scratch = new ProblemLog();
  const patch = await patchKept({
    store,
    discovery: p.discovery,
    kept: kept.scope,
    heads: kept.heads,
    inputs,
    build: buildOptions(p, scratch),
    threads: p.threads,
    appendOnly: (id) => p.places.find((x) => x.id === id)?.appendOnly === true,
    filesHeld: () => filesHeld(p),
  });
  if (patch.kind === 'declined') return declined('patched', patch.reason);
  p.log.absorb(scratch);
  // Written back only now and then (`KEEP_PATCH_FILES`): until then each run patches the same build.
  // But a one-shot's answer that is not kept warm, transcripts being still written, is written back
  // at once: with nothing changed, the next run then answers as kept (and keeps that warm), where it
  // would otherwise patch the same build again (`patch.ts`), cheaper than a build but not free.
  const worth =
    patch.changedFiles > KEEP_PATCH_FILES ||
    p.nowMs - kept.scope.keptAt > KEEP_PATCH_AFTER_MS ||
    (p.oneRefresh && stillWritten(p.discovery, p.nowMs));
  let indexed = false;
  const gone = new Set([...patch.removed, ...patch.changed.map((r) => r.key)]);
  const unchanged = kept.heads.filter((h) => !gone.has(h.key));
  if (worth) {
    try {
      indexed = store.kept.keepPatch(
        p.scope,
        { keptAt: kept.scope.keptAt, heads: kept.heads, inputs },
        {
          digest: keptDigest(p.digest, patch.fileCount),
          problems: patch.problems,
          changed: patch.changed,
          removed: patch.removed,
          files: patch.files(),
        },
        p.nowMs,
      );
    } catch {
      // Another cctop held the index, or the disk is full: the answer stands, the next run patches again.
    }
  }
  const held = [...unchanged.map(heldOfHead), ...patch.changed.map((r) => heldOfRecord(r))];
  const stats = {
    ...patch.stats,
    deleted: 0,
    reused: p.discovery.files.length - patch.stats.tailed - patch.stats.read,
  };
  return {
    kind: 'answered',
    strategy: 'patched',
    held: sortSessions(held),
    stats,
    indexed,
    problems: patch.problems,
  };
}

/** Every session built, reusing what did not move; kept for the next run when the read was clean. */
export async function byBuild(p: Pass): Promise<Answer & { kind: 'answered' }> {
  const store = p.store;
  const memory = p.memory;
  if (memory.files === null && memory.cache.size === 0 && store !== null && p.scope !== null) {
    // The records kept for this scope are reused where their inputs did not move.
    for (const r of store.kept.records(p.scope) ?? []) memory.cache.set(r.key, r);
  }
  const logged = p.log.list.length + p.log.dropped;
  // Sessions are built as their files are read; the full build below reuses what still holds.
  const pipeline = new Pipeline(buildOptions(p, p.log));
  let first = true;
  const onRead = (r: ReadProgress): void => {
    pipeline.take(r, first ? r.reading : null);
    first = false;
    p.building?.({
      files: r.files,
      filesTotal: r.filesTotal,
      bytes: r.bytes,
      bytesTotal: r.bytesTotal,
      built: pipeline.built,
    });
  };
  const scan = await scanFiles({
    env: p.env,
    providers: p.providers,
    sinceMs: p.sinceMs,
    store,
    threads: p.threads,
    discovered: { discovery: p.discovery, problems: p.log },
    ...(memory.known ? { known: memory.known } : {}),
    once: store === null && p.oneRefresh,
    onRead,
  });
  pipeline.into(memory.cache);
  // A file that could not be read this time must be tried again next time, not answered from the index.
  const clean = p.log.list.length + p.log.dropped === logged;
  const record: BuildRecord = { problems: [], groups: [], masks: new Map(), summaries: new Map() };
  const records = buildRecords(scan.files, { ...buildOptions(p, p.log), record }, memory.cache);
  const keeping = store !== null && p.scope !== null && clean;
  // A one-shot seals its records once, into the pack the index keeps; its sessions hold their rows as
  // views into it, which the warm snapshot written after this answer reuses. A running view does not
  // hold 11 MB of sealed rows (1.2 GiB bench history) for the rest of its life: it seals for the index
  // only, and drops them.
  const sealed = keeping && p.oneRefresh ? packRecords(records) : null;
  const held = records.map((r, i) => heldOf(r, sealed?.rows[i]));
  let indexed = false;
  if (store !== null && p.scope !== null && keeping) {
    try {
      const inputs = keptInputsOf(scan.files, record);
      const pack = sealed?.pack ?? packRows(records.map(encodeRecord));
      const digest = keptDigest(p.digest, inputs.files.length);
      store.kept.keep(p.scope, { digest, problems: record.problems, inputs }, pack, p.nowMs);
      indexed = true;
    } catch (err) {
      // Another cctop held the index, or the disk is full: the answer stands and the next run builds
      // again. Said, since every run will pay for it until it is fixed.
      p.log.add({
        kind: 'cache',
        path: store.path,
        count: null,
        detail: `could not keep the sessions built in the index: ${(err as Error).message}`,
      });
    }
  }
  memory.known = scan.known;
  memory.files = scan.files;
  return {
    kind: 'answered',
    strategy: 'built',
    held,
    stats: scan.stats,
    indexed,
    problems: clean ? record.problems : null,
  };
}

/** One `Held` per record object, so a record reused by a later build is the same session to a view. */
const helds = new WeakMap<object, Held>();
function heldOf(r: SessionRecord, sealed?: SealedRow): Held {
  let h = helds.get(r);
  if (h === undefined) {
    h = heldOfRecord(r, sealed);
    helds.set(r, h);
  }
  return h;
}

function buildOptions(p: Pass, problems: ProblemLog): BuildOptions {
  return {
    env: p.env,
    plan: p.plan,
    book: p.book,
    time: p.time,
    nowMs: p.nowMs,
    sinceMs: p.sinceMs,
    untilMs: p.untilMs,
    problems,
  };
}
