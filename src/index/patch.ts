/**
 * Bringing the kept sessions up to date when a few transcripts changed, without loading the rest of
 * the history: read the new bytes, prove that the changed files share no message with any other
 * file (so no other file's deduplication can move), and rebuild only the sessions they belong to.
 *
 * Whenever that proof or any other shortcut does not hold (a message seen in another file, a new
 * Claude summary, a read that failed, too many changes, `--since`), it declines, saying why, and
 * the caller builds in full: this module may decline, never differ. What it logged on the way is in
 * its own scratch log, dropped with it. The tests compare it with a full build.
 */
import type { ProviderId } from '../model/facts.js';
import { type ProblemKind, ProblemLog } from '../model/problems.js';
import type { SourceFile } from '../providers/types.js';
import { byDedupeOrder, dedupeOrdered } from './group.js';
import {
  type KeptFile,
  type KeptFileChange,
  type KeptInputs,
  type KeptScope,
  patchedFiles,
  TITLES_UNKNOWN,
  titlesOf,
} from './kept.js';
import { asParsed, type Fresh, parseTasks, taskFor } from './refresh.js';
import type { Discovery } from './scan.js';
import { decodeOwnFacts, type KeptHead, type SessionRecord } from './session-record.js';
import {
  addProblem,
  type BuildOptions,
  type BuildRecord,
  buildGroups,
  deletedSummaries,
  type Group,
  group,
  type KeptProblem,
  NO_SUMMARIES,
  type ParsedFile,
  problemsOfFile,
  sessionKey,
  sinkOf,
  unpricedProblems,
} from './sessions.js';
import { sharesMessages } from './shared-keys.js';
import type { IndexStore, StoredFile } from './store.js';
import { parserVersion } from './version.js';

/** Beyond this many changed transcripts a full build is the simpler answer, and hardly slower. */
export const PATCH_MAX_FILES = 64;

/**
 * A patch is written back to the index only when this many files changed since the kept build, or
 * when that build is older than `KEEP_PATCH_AFTER_MS` (or, for a one-shot, while transcripts are
 * being written: `strategies.ts` `byPatch`). In between, each run patches the same kept build again,
 * which costs little once the index holds the new bytes. A write-back is the rebuilt sessions and
 * the files read, beside the kept build (`kept-store.ts`), not the build again.
 */
export const KEEP_PATCH_FILES = 16;
export const KEEP_PATCH_AFTER_MS = 5 * 60_000;

/** Problems that belong to one file (dropped and found again when the file changes). */
const FILE_PROBLEMS: ReadonlySet<ProblemKind> = new Set([
  'bad-lines',
  'oversized-lines',
  'inconsistent-usage',
  'untimed-requests',
  'partial-line',
  // A main file's window lookup that failed (see `fileProblems` in sessions.ts).
  'unreadable',
  'vanished',
  'session-note',
]);

export interface PatchInput {
  store: IndexStore;
  discovery: Discovery;
  kept: KeptScope;
  /** Every kept session's head, to find the unpriced totals of the ones the patch does not rebuild. */
  heads: readonly KeptHead[];
  inputs: KeptInputs;
  /** The build's options, with a log of the patch's own: it receives every problem now due, in order. */
  build: BuildOptions;
  threads: number;
  appendOnly: (provider: ProviderId) => boolean;
  /** How many files the index holds that a full build reads (`IndexStore.countFiles`). */
  filesHeld: () => number;
}

export interface Patched {
  kind: 'answered';
  /** The sessions rebuilt, and the keys of the ones that no longer exist. */
  changed: SessionRecord[];
  removed: string[];
  /** Every problem of the patched build, due or not, to keep with it. */
  problems: KeptProblem[];
  /** The files it read, as the cross-file state holds them after the patch (only to write it back). */
  files(): KeptFileChange[];
  stats: { tailed: number; read: number; bytesRead: number; gone: number };
  /** Files that differ from the kept build (read now, or already up to date in the index). */
  changedFiles: number;
  /** How many files the patched build holds, on disk or deleted (`keptDigest`). */
  fileCount: number;
}

/** Why a patch would not answer: the caller then builds in full. */
export interface Declined {
  kind: 'declined';
  reason: string;
}

export type PatchAnswer = Patched | Declined;

const declined = (reason: string): Declined => ({ kind: 'declined', reason });

export async function patchKept(x: PatchInput): Promise<PatchAnswer> {
  if (x.build.sinceMs !== null) return declined('--since counts only part of each file');
  const index = new Map<string, number>();
  for (let i = 0; i < x.inputs.files.length; i++) index.set(x.inputs.files[i]!.path, i);
  const moved = movedFiles(x, index);
  const count = moved.changed.length + moved.gone.length;
  if (count === 0) return declined('nothing changed');
  if (count > PATCH_MAX_FILES)
    return declined(`${count} files changed (a patch takes at most ${PATCH_MAX_FILES})`);
  const read = await readMoved(x, moved);
  if (read.kind === 'declined') return read;
  const { parsed, tasks } = read;
  const retitled = summariesMoved(x.inputs, index, parsed);
  if (retitled !== null) return declined(retitled);
  const touched = await touchedSessions(x, index, parsed);
  if (touched.kind === 'declined') return touched;
  const { groups, members, grouped, affected } = touched;
  if (sharesMessages(x.inputs, index, parsed, grouped))
    return declined('a changed file repeats a message another file holds');
  const masks = patchMasks(x.inputs, index, parsed, members, grouped);
  const gone = goneSummaries(x, groups, touched.paths);
  if (gone.kind === 'declined') return gone;
  // A file stored by another run and deleted since is neither kept nor on disk, but a full build holds it.
  const fileCount = x.inputs.files.length + moved.changed.filter((f) => !index.has(f.path)).length;
  if (x.filesHeld() !== fileCount) return declined('the index holds other files than the kept build');
  const summaries = new Map(x.inputs.summaries);
  const record: BuildRecord = { problems: [], groups: [], masks: new Map(), summaries };
  const o: BuildOptions = { ...x.build, record };
  const summed = { onDisk: summaries, deleted: gone.summaries };
  const built = buildGroups(groups, masks.byFile, summed, o, titledBefore(x.heads, affected));
  const changed = [...built.values()].filter((r): r is SessionRecord => r !== null);
  const removed = [...affected].filter((key) => (built.get(key) ?? null) === null);
  patchProblems(x, parsed, changed, removed, o);
  return {
    kind: 'answered',
    changed,
    removed,
    problems: record.problems,
    files: () => patchedFiles(x.inputs, index, parsed, masks.byFile, grouped),
    changedFiles: parsed.length,
    fileCount,
    stats: {
      tailed: tasks.filter((t) => t.previous).length,
      read: tasks.filter((t) => !t.previous).length,
      bytesRead: tasks.reduce((n, t) => n + t.file.size - (t.previous?.offset ?? 0), 0),
      gone: moved.gone.length,
    },
  };
}

/** The titles the kept build gave the sessions about to be rebuilt, by key (see `titlesOf` in titles.ts). */
function titledBefore(heads: readonly KeptHead[], keys: ReadonlySet<string>): Map<string, string | null> {
  const titled = new Map<string, string | null>();
  for (const h of heads) {
    if (!keys.has(h.key)) continue;
    const own = decodeOwnFacts(h);
    if (own !== null) titled.set(h.key, own.title);
  }
  return titled;
}

/** What moved since the kept build: files grown, touched, replaced or new, and files gone. */
function movedFiles(x: PatchInput, index: Map<string, number>): { changed: SourceFile[]; gone: KeptFile[] } {
  // The kept files discovery saw, by their place in `index` (a set of 3,800 paths cost more).
  const seen = new Uint8Array(x.inputs.files.length);
  const changed: SourceFile[] = [];
  for (const f of x.discovery.files) {
    const i = index.get(f.path);
    const k = i === undefined ? undefined : x.inputs.files[i]!;
    if (i !== undefined) seen[i] = 1;
    if (k && !k.deleted && k.size === f.size && k.mtimeMs === f.mtimeMs && k.ino === f.ino) continue;
    changed.push(f);
  }
  const gone = x.inputs.files.filter((k) => !k.deleted && seen[index.get(k.path)!] !== 1);
  return { changed, gone };
}

/** The moved files brought up to date in the index (another cctop may already have), and parsed. */
async function readMoved(
  x: PatchInput,
  moved: { changed: SourceFile[]; gone: KeptFile[] },
): Promise<{ kind: 'read'; parsed: ParsedFile[]; tasks: ReturnType<typeof taskFor>[] } | Declined> {
  const rows: Map<string, StoredFile> = x.store.loadPaths([
    ...moved.changed.map((f) => f.path),
    ...moved.gone.map((k) => k.path),
  ]);
  const parsed: ParsedFile[] = [];
  const tasks = [];
  for (const f of moved.changed) {
    const row = rows.get(f.path);
    const current =
      row !== undefined &&
      !row.deleted &&
      row.provider === f.provider &&
      row.parser === parserVersion(f.provider);
    if (current && row.result.ino === f.ino && row.result.size === f.size && row.result.mtimeMs === f.mtimeMs)
      parsed.push({ file: f, result: row.result });
    else tasks.push(taskFor(f, current ? row : undefined, x.appendOnly(f.provider), x.store));
  }
  // A read that fails declines the patch; the full build then reads and reports it once.
  const scratch = new ProblemLog();
  const fresh: Fresh[] = await parseTasks(tasks, x.threads, scratch);
  if (scratch.list.length + scratch.dropped > 0) return declined('a changed file could not be read');
  for (const r of fresh) parsed.push({ file: r.file, result: r.result });
  for (const k of moved.gone) {
    const row = rows.get(k.path);
    if (!row) return declined(`${k.path} is gone and the index does not hold it`);
    parsed.push(asParsed(row, true));
  }
  try {
    x.store.save(
      fresh,
      moved.gone.map((k) => k.path),
    );
  } catch {
    return declined('the index could not be written (busy, or the disk is full)');
  }
  return { kind: 'read', parsed, tasks };
}

/**
 * Why Claude summaries may have moved, or null. A summary names a session by a leaf message
 * anywhere: a new one (or one of a deleted file back on disk: the kept summaries are those of
 * files on disk) could retitle any session, and a file that gave summaries and gives other ones now
 * (or is gone, or older than it was, so that another file's summary of the same leaf comes last)
 * could have withdrawn the ones it gave. Whether the file was read from where it
 * stopped or from the start does not matter: the index may already hold it as it is now (another
 * run or scope read it), and a read from where it stopped can push an old summary out of a full list.
 */
function summariesMoved(
  inputs: KeptInputs,
  index: Map<string, number>,
  parsed: readonly ParsedFile[],
): string | null {
  const summaries = new Map(inputs.summaries);
  for (const p of parsed)
    for (const [leaf, text] of p.result.facts.titles.summaries)
      if (summaries.get(leaf) !== text) return 'a new Claude summary could retitle any session';
  for (const p of parsed) {
    const i = index.get(p.file.path);
    const k = i === undefined ? undefined : inputs.files[i]!;
    if (k === undefined || k.titles === null) continue;
    if (k.titles === TITLES_UNKNOWN) return 'the kept build does not say which summaries a file gave';
    if (p.deleted === true) return 'a file that gave summaries is gone';
    if (titlesOf(p.result.facts.titles.summaries) !== k.titles)
      return 'a file that gave summaries gives other ones now';
    if (p.file.mtimeMs < k.mtimeMs) return 'a file that gave summaries is dated earlier than it was';
  }
  return null;
}

/**
 * The summaries of deleted transcripts, for the sessions the patch builds whose every file is now
 * deleted (they may be titled by them, `Summaries` in sessions.ts): read from the index's rows of
 * the deleted files that gave some. None when no session built is deleted. A file gone in this patch
 * gave none (`summariesMoved` declined otherwise), and one back on disk is not deleted any more.
 */
function goneSummaries(
  x: PatchInput,
  groups: readonly Group[],
  touched: ReadonlySet<string>,
): { kind: 'read'; summaries: ReadonlyMap<number, string> } | Declined {
  if (!groups.some((g) => g.files.every((p) => p.deleted === true)))
    return { kind: 'read', summaries: NO_SUMMARIES };
  const paths = x.inputs.files
    .filter((k) => k.deleted && k.titles !== null && !touched.has(k.path))
    .map((k) => k.path);
  const rows = x.store.loadPaths(paths);
  const files: ParsedFile[] = [];
  for (const path of paths) {
    const row = rows.get(path);
    if (!row) return declined(`${path} gave summaries and the index does not hold it`);
    files.push(asParsed(row, true));
  }
  return { kind: 'read', summaries: deletedSummaries(files) };
}

/** The sessions touched (where each changed file belongs now and belonged before), with all their files. */
async function touchedSessions(
  x: PatchInput,
  index: Map<string, number>,
  parsed: readonly ParsedFile[],
): Promise<
  | {
      kind: 'touched';
      groups: Group[];
      members: { file: ParsedFile; kept: KeptFile }[];
      grouped: Set<ParsedFile>;
      affected: Set<string>;
      /** The changed files' paths. */
      paths: Set<string>;
    }
  | Declined
> {
  const touchedPaths = new Set(parsed.map((p) => p.file.path));
  const affected = new Set<string>();
  for (const p of parsed) {
    affected.add(`${p.file.provider}\u0000${sessionKey(p)}`);
    const i = index.get(p.file.path);
    if (i !== undefined) affected.add(x.inputs.files[i]!.session);
  }
  const others = x.inputs.files.filter((k) => affected.has(k.session) && !touchedPaths.has(k.path));
  const rows =
    others.length === 0 ? new Map<string, StoredFile>() : x.store.loadPaths(others.map((k) => k.path));
  // Only the few files of the touched sessions, not a map of all 3,800.
  const byPath = new Map<string, SourceFile>();
  if (others.length > 0) {
    const wanted = new Set(others.map((k) => k.path));
    for (const f of x.discovery.files) if (wanted.has(f.path)) byPath.set(f.path, f);
  }
  const members: { file: ParsedFile; kept: KeptFile }[] = [];
  for (const k of others) {
    const row = rows.get(k.path);
    const file = byPath.get(k.path);
    if (!row) return declined(`${k.path} belongs to a changed session and the index does not hold it`);
    members.push({ file: k.deleted || !file ? asParsed(row, true) : { file, result: row.result }, kept: k });
  }
  const groups = group([...parsed, ...members.map((m) => m.file)]);
  const grouped = new Set(groups.flatMap((g) => g.files));
  for (const m of members)
    if (grouped.has(m.file) !== m.kept.grouped) return declined('a copy of a main transcript changed places');
  return { kind: 'touched', groups, members, grouped, affected, paths: touchedPaths };
}

/**
 * Masks: the changed files deduplicated among themselves (in `byDedupeOrder`, as a full build
 * orders them); every other file keeps the mask it had.
 */
function patchMasks(
  inputs: KeptInputs,
  index: Map<string, number>,
  parsed: readonly ParsedFile[],
  members: readonly { file: ParsedFile; kept: KeptFile }[],
  grouped: Set<ParsedFile>,
): { byFile: Map<ParsedFile, Uint8Array> } {
  const offsets = new Int32Array(inputs.files.length + 1);
  for (let i = 0; i < inputs.files.length; i++) offsets[i + 1] = offsets[i]! + inputs.files[i]!.records;
  const byFile = new Map<ParsedFile, Uint8Array>();
  for (const provider of new Set(parsed.map((p) => p.file.provider))) {
    const ordered = parsed.filter((p) => p.file.provider === provider && grouped.has(p)).sort(byDedupeOrder);
    dedupeOrdered(ordered, byFile);
  }
  for (const m of members) {
    const i = index.get(m.kept.path)!;
    byFile.set(m.file, inputs.masks.subarray(offsets[i]!, offsets[i + 1]!));
  }
  return { byFile };
}

/**
 * The patched build's problems into `o`: the kept ones less those of the changed files and the
 * unpriced totals (found again), in path order as a full build lists them.
 */
function patchProblems(
  x: PatchInput,
  parsed: readonly ParsedFile[],
  changed: readonly SessionRecord[],
  removed: readonly string[],
  o: BuildOptions,
): void {
  const touchedPaths = new Set(parsed.map((p) => p.file.path));
  const found: KeptProblem[] = [];
  for (const p of parsed) problemsOfFile(p, { nowMs: o.nowMs, problems: new ProblemLog(), found });
  const kept = x.kept.problems.filter(
    (k) =>
      k.problem.kind !== 'unpriced-model' &&
      !(FILE_PROBLEMS.has(k.problem.kind) && touchedPaths.has(k.problem.path)),
  );
  const ordered = [...kept, ...found].sort((a, b) =>
    a.problem.path < b.problem.path ? -1 : a.problem.path > b.problem.path ? 1 : 0,
  );
  for (const k of ordered) addProblem(k.problem, k.after, o.nowMs, o.problems, o.record?.problems);
  const rebuilt = new Set([...removed, ...changed.map((r) => r.key)]);
  unpricedProblems([...x.heads.filter((h) => !rebuilt.has(h.key)), ...changed], sinkOf(o));
}
