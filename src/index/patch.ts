/**
 * Bringing the kept sessions up to date when a few transcripts changed, without loading the rest of
 * the history: read the new bytes, prove that the changed files share no message with any other
 * file (so no other file's deduplication can move), rebuild only the sessions they belong to, and
 * splice those into the kept documents.
 *
 * Whenever that proof or any other shortcut does not hold (a message seen in another file, a new
 * Claude summary, a read that failed, too many changes, `--since`), it answers null and the caller
 * builds in full: this module may decline, never differ. The tests compare it with a full build.
 */
import { dedupe } from '../model/dedupe.js';
import type { ProviderId } from '../model/facts.js';
import { F, FLAG, RECORD_FIELDS } from '../model/ledger.js';
import { type ProblemKind, ProblemLog } from '../model/problems.js';
import type { SourceFile } from '../providers/types.js';
import {
  intact,
  joinSessions,
  type KeptFile,
  type KeptHead,
  type KeptInputs,
  type KeptProblem,
  type KeptRest,
  type KeptSessions,
  keptFileOf,
  keptParts,
  wellFormed,
  writeKeys,
} from './built.js';
import { asParsed, type Fresh, parseTasks, taskFor } from './refresh.js';
import type { Discovery } from './scan.js';
import {
  addProblem,
  type BuildOptions,
  type BuildRecord,
  buildGroups,
  group,
  groupKey,
  type ParsedFile,
  problemsOfFile,
  sessionKey,
  unpricedProblems,
} from './sessions.js';
import type { IndexStore } from './store.js';
import { parserVersion } from './version.js';

/** Beyond this many changed transcripts a full build is the simpler answer, and hardly slower. */
export const PATCH_MAX_FILES = 64;

/**
 * A patch is written back to the index (about 13 MB for 4,000 sessions) only when this many files
 * changed since the kept build, or when that build is older than `KEEP_PATCH_AFTER_MS`. In between,
 * each run patches the same kept build again, which costs little once the index holds the new bytes:
 * a status line running `cctop --json` every few seconds beside a working agent would otherwise
 * rewrite the index every time.
 */
export const KEEP_PATCH_FILES = 16;
export const KEEP_PATCH_AFTER_MS = 5 * 60_000;

/** Problems that belong to one file (dropped and found again when the file changes). */
const FILE_PROBLEMS: ReadonlySet<ProblemKind> = new Set([
  'bad-lines',
  'oversized-lines',
  'inconsistent-usage',
  'partial-line',
  // A main file's window lookup that failed (see `fileProblems` in sessions.ts).
  'unreadable',
  'vanished',
]);

export interface PatchInput {
  store: IndexStore;
  discovery: Discovery;
  problems: KeptProblem[];
  sessions: KeptSessions;
  inputs: KeptInputs;
  /** The build's options; its `problems` log receives every problem now due, in document order. */
  build: BuildOptions;
  threads: number;
  appendOnly: (provider: ProviderId) => boolean;
}

export interface Patched {
  /** Each session's text (ASCII JSON) and head, in one order. */
  texts: Buffer[];
  heads: KeptHead[];
  /** The same with their rests, joined as the index stores them (only to write them back). */
  joined(): KeptSessions;
  /** The cross-file state after the patch (only to write it back). */
  inputs(): KeptInputs;
  problems: KeptProblem[];
  stats: { tailed: number; read: number; bytesRead: number; gone: number };
  /** Files that differ from the kept build (read now, or already up to date in the index). */
  changed: number;
}

export async function patchKept(x: PatchInput): Promise<Patched | null> {
  const { store, discovery, inputs, build } = x;
  if (build.sinceMs !== null) return null;
  const index = new Map(inputs.files.map((f, i) => [f.path, i]));

  // What moved since the kept build: files grown, touched, replaced or new, and files gone.
  const seen = new Set<string>();
  const changed: SourceFile[] = [];
  for (const f of discovery.files) {
    seen.add(f.path);
    const i = index.get(f.path);
    const k = i === undefined ? undefined : inputs.files[i]!;
    if (k && !k.deleted && k.size === f.size && k.mtimeMs === f.mtimeMs && k.ino === f.ino) continue;
    changed.push(f);
  }
  const gone = inputs.files.filter((k) => !k.deleted && !seen.has(k.path));
  if (changed.length + gone.length === 0 || changed.length + gone.length > PATCH_MAX_FILES) return null;

  // Bring the changed files up to date in the index (another cctop may already have).
  const rows = store.loadPaths([...changed.map((f) => f.path), ...gone.map((k) => k.path)]);
  const parsed: ParsedFile[] = [];
  const tasks = [];
  for (const f of changed) {
    const row = rows.get(f.path);
    const current =
      row !== undefined &&
      !row.deleted &&
      row.provider === f.provider &&
      row.parser === parserVersion(f.provider);
    if (current && row.result.ino === f.ino && row.result.size === f.size && row.result.mtimeMs === f.mtimeMs)
      parsed.push({ file: f, result: row.result });
    else tasks.push(taskFor(f, current ? row : undefined, x.appendOnly(f.provider), store));
  }
  // A read that fails declines the patch; the full build then reads and reports it once.
  const scratch = new ProblemLog();
  const fresh: Fresh[] = await parseTasks(tasks, x.threads, scratch);
  if (scratch.list.length + scratch.dropped > 0) return null;
  const log = build.problems;
  for (const r of fresh) parsed.push({ file: r.file, result: r.result });
  for (const k of gone) {
    const row = rows.get(k.path);
    if (!row) return null;
    parsed.push(asParsed(row, true));
  }
  try {
    store.save(
      fresh,
      gone.map((k) => k.path),
    );
  } catch {
    // Another cctop held the index too long, or the disk is full: the full build says so.
    return null;
  }

  // A summary names a session by a leaf message anywhere: a new one could retitle any session, and
  // a file read again from the start (or gone) could have withdrawn the ones it gave.
  const summaries = new Map(inputs.summaries);
  for (const p of parsed)
    for (const [leaf, text] of p.result.facts.titles.summaries) if (summaries.get(leaf) !== text) return null;
  const tailed = new Set(tasks.filter((t) => t.previous !== null).map((t) => t.file.path));
  for (const p of parsed) {
    const i = index.get(p.file.path);
    if (i !== undefined && inputs.files[i]!.titled && !tailed.has(p.file.path)) return null;
  }

  // The sessions touched: where each changed file belongs now and where it belonged before.
  const touchedPaths = new Set(parsed.map((p) => p.file.path));
  const affected = new Set<string>();
  for (const p of parsed) {
    affected.add(`${p.file.provider}\u0000${sessionKey(p)}`);
    const i = index.get(p.file.path);
    if (i !== undefined) affected.add(inputs.files[i]!.session);
  }
  const others = inputs.files.filter((k) => affected.has(k.session) && !touchedPaths.has(k.path));
  const otherRows = store.loadPaths(others.map((k) => k.path));
  const byPath = new Map(discovery.files.map((f) => [f.path, f]));
  const members: ParsedFile[] = [];
  for (const k of others) {
    const row = otherRows.get(k.path);
    const file = byPath.get(k.path);
    if (!row) return null;
    members.push(k.deleted || !file ? asParsed(row, true) : { file, result: row.result });
  }
  const groups = group([...parsed, ...members]);
  const grouped = new Set(groups.flatMap((g) => g.files));
  for (const [i, p] of members.entries()) if (grouped.has(p) !== others[i]!.grouped) return null;

  // The proof: no message of a changed file appears in any other file.
  // Their messages now and the ones they had before: a file rewritten without a message it held
  // first gives that message back to whichever other file repeats it.
  const mine = new KeySet();
  for (const p of parsed) if (grouped.has(p)) mine.addLedger(p.result.ledger.data);
  const touchedIndex = new Uint8Array(inputs.files.length);
  for (const p of parsed) {
    const i = index.get(p.file.path);
    if (i !== undefined) touchedIndex[i] = 1;
  }
  const keys = inputs.keys;
  for (let t = 0; t < keys.length; t += 3)
    if (touchedIndex[keys[t]!] === 1) mine.add(keys[t + 1]!, keys[t + 2]!);
  if (anyShared(keys, touchedIndex, mine)) return null;

  // Masks: the changed files deduplicated among themselves (oldest first, as a full build orders
  // them); every other file keeps the mask it had.
  const offsets = new Int32Array(inputs.files.length + 1);
  for (let i = 0; i < inputs.files.length; i++) offsets[i + 1] = offsets[i]! + inputs.files[i]!.records;
  const masks = new Map<ParsedFile, Uint8Array>();
  for (const provider of new Set(parsed.map((p) => p.file.provider))) {
    const ordered = parsed
      .filter((p) => p.file.provider === provider && grouped.has(p))
      .sort((a, b) => a.file.mtimeMs - b.file.mtimeMs || (a.file.path < b.file.path ? -1 : 1));
    const m = dedupe(ordered.map((p) => p.result.ledger));
    for (const [i, p] of ordered.entries()) masks.set(p, m[i]!);
  }
  for (const [j, p] of members.entries()) {
    const i = index.get(others[j]!.path)!;
    masks.set(p, inputs.masks.subarray(offsets[i]!, offsets[i + 1]!));
  }

  // Rebuild the touched sessions and splice them in.
  const record: BuildRecord = { problems: [], groups: [], masks: new Map(), summaries };
  const o: BuildOptions = { ...build, record };
  const built = buildGroups(groups, masks, summaries, o);
  for (const key of affected) if (!built.has(key)) built.set(key, null);

  if (!intact(x.sessions)) return null;
  const oldHeads = JSON.parse(x.sessions.heads) as unknown;
  if (!wellFormed(oldHeads) || x.sessions.spans.length !== oldHeads.length + 1) return null;
  const texts: Buffer[] = [];
  const heads: KeptHead[] = [];
  // Where each session's rest comes from: the kept rest at that index, or the one built now. The
  // kept rests (their signatures) are parsed only if the patch is written back.
  const rests: (number | KeptRest)[] = [];
  const spans = x.sessions.spans;
  for (const [i, h] of oldHeads.entries()) {
    if (built.has(groupKey({ provider: h[1], id: h[2] }))) continue;
    heads.push(h);
    rests.push(i);
    texts.push(x.sessions.docs.subarray(spans[i]!, spans[i + 1]! - 1));
  }
  for (const [key, e] of built) {
    if (e === null) continue;
    const parts = keptParts(key, e);
    heads.push(parts.head);
    rests.push(parts.rest);
    texts.push(Buffer.from(parts.text, 'latin1'));
  }

  // Problems: the kept ones less those of the changed files and the unpriced totals, which are found again.
  // In path order, as a full build lists them.
  const found: BuildRecord = { problems: [], groups: [], masks: new Map(), summaries };
  for (const p of parsed) problemsOfFile(p, { ...build, problems: new ProblemLog(), record: found });
  const files = x.problems.filter(
    (k) =>
      k.problem.kind !== 'unpriced-model' &&
      !(FILE_PROBLEMS.has(k.problem.kind) && touchedPaths.has(k.problem.path)),
  );
  const ordered = [...files, ...found.problems].sort((a, b) =>
    a.problem.path < b.problem.path ? -1 : a.problem.path > b.problem.path ? 1 : 0,
  );
  for (const k of ordered) addProblem(k.problem, k.after, build.nowMs, log, record.problems);
  unpricedProblems(
    heads.map((h) => ({ unpriced: h[10] })),
    o,
  );

  return {
    texts,
    heads,
    joined: () => {
      const kept = JSON.parse(x.sessions.rest) as KeptRest[];
      if (kept.length !== oldHeads.length) throw new Error('the kept sessions do not match their heads');
      const rest = rests.map((r) => (typeof r === 'number' ? kept[r]! : r));
      return joinSessions(texts, heads, rest);
    },
    inputs: () => patchInputs(inputs, index, offsets, parsed, masks, grouped),
    problems: record.problems,
    changed: parsed.length,
    stats: {
      tailed: tasks.filter((t) => t.previous).length,
      read: tasks.filter((t) => !t.previous).length,
      bytesRead: tasks.reduce((n, t) => n + t.file.size - (t.previous?.offset ?? 0), 0),
      gone: gone.length,
    },
  };
}

/** Whether a file not touched holds one of the touched files' messages (`keys`: file, high, low). */
function anyShared(keys: Uint32Array, touched: Uint8Array, mine: KeySet): boolean {
  for (let t = 0; t < keys.length; t += 3) {
    if (touched[keys[t]!] === 1) continue;
    if (mine.has(keys[t + 1]!, keys[t + 2]!)) return true;
  }
  return false;
}

/** The kept inputs with the changed files' stats, records, masks and keys replaced. */
function patchInputs(
  inputs: KeptInputs,
  index: Map<string, number>,
  offsets: Int32Array,
  parsed: ParsedFile[],
  masks: Map<ParsedFile, Uint8Array>,
  grouped: Set<ParsedFile>,
): KeptInputs {
  const files: KeptFile[] = [...inputs.files];
  const changedAt = new Map<number, ParsedFile>();
  for (const p of parsed) {
    const f = keptFileOf(p, grouped.has(p));
    const i = index.get(p.file.path) ?? files.length;
    files[i] = f;
    changedAt.set(i, p);
  }
  const total = files.reduce((n, f) => n + f.records, 0);
  const allMasks = new Uint8Array(total);
  // The unchanged files' keys as they were, then the changed files' new ones.
  const old = inputs.keys;
  let room = old.length;
  for (const [i, p] of changedAt)
    if (files[i]!.grouped) room += (p.result.ledger.data.length / RECORD_FIELDS) * 3;
  const keys = new Uint32Array(room);
  let k = keepKeys(old, changedAt, keys);
  let at = 0;
  for (const [i, f] of files.entries()) {
    const p = changedAt.get(i);
    if (p === undefined) {
      allMasks.set(inputs.masks.subarray(offsets[i]!, offsets[i + 1]!), at);
    } else {
      const m = masks.get(p);
      if (m) allMasks.set(m, at);
      else allMasks.fill(1, at, at + f.records);
      if (f.grouped) k = writeKeys(p.result.ledger.data, i, keys, k);
    }
    at += f.records;
  }
  return { files, keys: keys.subarray(0, k), masks: allMasks, summaries: inputs.summaries };
}

/** Copy into `into` the key triples of the files not in `changed`; returns how many numbers. */
function keepKeys(old: Uint32Array, changed: Map<number, ParsedFile>, into: Uint32Array): number {
  let k = 0;
  for (let t = 0; t < old.length; t += 3) {
    if (changed.has(old[t]!)) continue;
    into[k++] = old[t]!;
    into[k++] = old[t + 1]!;
    into[k++] = old[t + 2]!;
  }
  return k;
}

/** A set of 64-bit message keys (two 32-bit halves), open addressing over typed arrays. */
class KeySet {
  private hi = new Uint32Array(64);
  private lo = new Uint32Array(64);
  private used = new Uint8Array(64);
  private size = 0;

  addLedger(d: Uint32Array): void {
    for (let o = 0; o < d.length; o += RECORD_FIELDS)
      if (!(d[o + F.FLAGS]! & FLAG.NO_KEY)) this.add(d[o + F.KEY_HI]!, d[o + F.KEY_LO]!);
  }

  add(h: number, l: number): void {
    if ((this.size + 1) * 2 > this.used.length) this.grow();
    const mask = this.used.length - 1;
    let s = (l ^ Math.imul(h, 0x9e3779b1)) & mask;
    while (this.used[s] === 1) {
      if (this.hi[s] === h && this.lo[s] === l) return;
      s = (s + 1) & mask;
    }
    this.used[s] = 1;
    this.hi[s] = h;
    this.lo[s] = l;
    this.size++;
  }

  has(h: number, l: number): boolean {
    if (this.size === 0) return false;
    const mask = this.used.length - 1;
    let s = (l ^ Math.imul(h, 0x9e3779b1)) & mask;
    while (this.used[s] === 1) {
      if (this.hi[s] === h && this.lo[s] === l) return true;
      s = (s + 1) & mask;
    }
    return false;
  }

  private grow(): void {
    const { hi, lo, used } = this;
    this.hi = new Uint32Array(used.length * 2);
    this.lo = new Uint32Array(used.length * 2);
    this.used = new Uint8Array(used.length * 2);
    this.size = 0;
    for (let s = 0; s < used.length; s++) if (used[s] === 1) this.add(hi[s]!, lo[s]!);
  }
}
