/**
 * What a build leaves in the index besides its sessions, so the next run can answer without
 * rebuilding: the scope it was built in (every input of a document besides the transcripts), a
 * digest of what discovery saw, the problems it found, and the cross-file state a patch needs
 * (`KeptInputs`).
 *
 * Not here: the sessions themselves (`record.ts`), deciding how to answer (`strategies.ts`).
 */
import { Digest } from '../model/digest.js';
import type { ProviderId } from '../model/facts.js';
import { F, FLAG, RECORD_FIELDS } from '../model/ledger.js';
import { crcPair } from './crc-pair.js';
import type { Discovery } from './scan.js';
import { type BuildRecord, type KeptProblem, type ParsedFile, sessionKey } from './sessions.js';

/** Scopes kept at once (the live table, a `--provider` filter, a `--since` report…); least used go first. */
export const MAX_KEPT_SCOPES = 4;

/**
 * What discovery saw, as one digest: any file added, removed, grown, touched or replaced changes it.
 * Every file's names in one text and its numbers in one block, each checked whole (`crcPair`): a
 * few native calls, where a CRC and a mix per field cost a run 7 ms for 3,800 files.
 */
export function discoveryDigest(d: Discovery): string {
  const n = d.files.length;
  const names: string[] = new Array(n);
  const numbers = new Float64Array(n * 3);
  for (let i = 0; i < n; i++) {
    const f = d.files[i]!;
    // NUL ends each field: no path, provider, role or session hint holds one.
    names[i] = `${f.provider}\0${f.path}\0${f.role}\0${f.sessionHint ?? ''}\0`;
    numbers[i * 3] = f.size;
    numbers[i * 3 + 1] = f.mtimeMs;
    numbers[i * 3 + 2] = f.ino;
  }
  const text = Buffer.from(names.join(''));
  const h = new Digest().number(n).number(text.length);
  for (const c of [...crcPair(text), ...crcPair(new Uint8Array(numbers.buffer))]) h.int(c);
  return h.hex();
}

/**
 * What a kept build is proved by: the discovery digest and how many files it read, on disk or
 * deleted. A full build reads every file the index holds in its scope (`IndexStore.countFiles`),
 * and the index may hold one more than the kept build: a transcript another run stored (a patch not
 * written back, another scope's build) and that was deleted since, so discovery sees the same files.
 * A build holds it as a deleted session with its spend; a kept answer must not leave it out.
 */
export function keptDigest(discovery: string, files: number): string {
  return `${discovery}/${files}`;
}

/** The discovery digest a `keptDigest` was made of. */
export function keptDiscovery(kept: string): string {
  return kept.slice(0, Math.max(0, kept.lastIndexOf('/')));
}

/** What the last build in a scope saw and found. */
export interface KeptScope {
  /** `keptDigest` of what it saw and read. */
  digest: string;
  problems: KeptProblem[];
  keptAt: number;
  usedAt: number;
}

/**
 * How stale a scope's last-used time may get before a run that uses it writes it again: writing on
 * every run would cost each warm run a write transaction, and eviction order needs no precision.
 */
export const TOUCH_AFTER_MS = 10 * 60_000;

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
  /**
   * The Claude summaries it gave, as a digest (`titlesOf`), or null when it gave none: a file that
   * gives the same ones again, however it was read, withdrew none from other sessions. A kept build
   * written before the digest says `TITLES_UNKNOWN`, which no digest equals.
   */
  titles: string | null;
}

/** What a kept file written before the summaries' digest says of them: it gave some, which is unknown. */
export const TITLES_UNKNOWN = 'unknown';

/**
 * The digest of a file's Claude summaries as a set (by leaf: a summary given again moves to the
 * end of the list, and the order within one file decides nothing), or null when it gives none.
 */
export function titlesOf(summaries: readonly (readonly [number, string])[]): string | null {
  if (summaries.length === 0) return null;
  const h = new Digest();
  for (const [leaf, text] of [...summaries].sort((x, y) => x[0] - y[0])) h.number(leaf).text(text);
  return h.int(summaries.length).hex();
}

/**
 * The cross-file state of a build: which records counted after deduplication (`masks`, every file's
 * records in `files` order), the message keys of every counted-or-not record of the grouped files
 * (`keys`: file index, key high, key low, in file order, so a file's are found by a binary search:
 * `keyRange`), and the titles Claude summaries gave. With these, a run
 * where a few files changed checks that their messages appear in no other file and rebuilds only
 * their sessions.
 */
export interface KeptInputs {
  files: KeptFile[];
  keys: Uint32Array;
  masks: Uint8Array;
  /** The summaries files on disk gave (`Summaries.onDisk` in sessions.ts); a deleted file's are in its row. */
  summaries: [number, string][];
  /**
   * The kept pack's keys sorted, when the inputs were read from the index: the patch's proof looks
   * its keys up there rather than reading every triple (`shared-keys.ts`). A build's own have none.
   */
  index?: KeyIndex;
}

/** The keys of the pack the inputs were read from, and which files' keys differ from it since. */
export interface KeyIndex {
  /** The pack's key triples, in file order. */
  base: Uint32Array;
  /**
   * The keys of `base`, sorted (`kept-rows.ts` `sortedKeys`), or null when they can no longer be read
   * as that pack's (another cctop kept since): read only when asked, since a large append looks at
   * every triple instead and never needs them (`shared-keys.ts`).
   */
  sorted: () => Uint32Array | null;
  /** The files patched since the pack: their keys in `KeptInputs.keys` are not `base`'s. */
  patched: ReadonlySet<number>;
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
    titles: titlesOf(p.result.facts.titles.summaries),
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

/**
 * One file's part of the inputs as a patch left it: its stats, its slice of `masks` and its key
 * triples (all of them with `index`). What a patch writes back of the inputs, beside the build's own
 * (`kept-store.ts`): the few files it read, not the whole history's keys and masks again.
 */
export interface KeptFileChange {
  /** Its place in `KeptInputs.files`: a file the build did not have comes after the last one. */
  index: number;
  file: KeptFile;
  mask: Uint8Array;
  keys: Uint32Array;
}

/** The changed files' parts of the inputs, in `files` order; a new file is placed after the last. */
export function patchedFiles(
  inputs: KeptInputs,
  index: Map<string, number>,
  parsed: readonly ParsedFile[],
  masks: Map<ParsedFile, Uint8Array>,
  grouped: Set<ParsedFile>,
): KeptFileChange[] {
  const out: KeptFileChange[] = [];
  let next = inputs.files.length;
  for (const p of parsed) {
    const file = keptFileOf(p, grouped.has(p));
    const at = index.get(p.file.path) ?? next++;
    const data = p.result.ledger.data;
    let keys = new Uint32Array(0);
    if (file.grouped) {
      const room = new Uint32Array((data.length / RECORD_FIELDS) * 3);
      keys = room.subarray(0, writeKeys(data, at, room, 0));
    }
    const mask = masks.get(p) ?? new Uint8Array(file.records).fill(1);
    out.push({ index: at, file, mask, keys });
  }
  return out.sort((a, b) => a.index - b.index);
}

/**
 * The inputs with these files' parts replaced (`changes` in `files` order, each at most once, new
 * ones right after the last file), or null when they do not fit (a gap, a mask of another length).
 * The key triples stay in file order (`KeptInputs.keys`): the runs between two changed files are
 * copied whole, as are the masks, rather than a triple at a time (160,000 of them on the bench
 * history, 5 ms in a one-shot, whose loops are not yet compiled).
 */
export function withChanges(inputs: KeptInputs, given: readonly KeptFileChange[]): KeptInputs | null {
  if (given.length === 0) return inputs;
  const changes = [...given].sort((a, b) => a.index - b.index);
  const files: KeptFile[] = [...inputs.files];
  let last = -1;
  for (const c of changes) {
    if (c.index > files.length || c.index === last || c.mask.length !== c.file.records) return null;
    files[c.index] = c.file;
    last = c.index;
  }
  let total = 0;
  for (const f of files) total += f.records;
  const old = inputs.keys;
  let room = old.length;
  for (const c of changes) {
    const [from, to] = keyRange(old, c.index);
    room += c.keys.length - (to - from);
  }
  const masks = new Uint8Array(total);
  const keys = new Uint32Array(room);
  // Between two changed files, their keys and masks copied as one run each (4,000 files, a few changed).
  let k = 0;
  let keyFrom = 0;
  let from = 0;
  let at = 0;
  let next = 0;
  for (const c of changes) {
    const [start, end] = keyRange(old, c.index);
    keys.set(old.subarray(keyFrom, start), k);
    k += start - keyFrom;
    keys.set(c.keys, k);
    k += c.keys.length;
    keyFrom = end;
    let run = 0;
    for (let i = next; i < c.index; i++) run += inputs.files[i]!.records;
    masks.set(inputs.masks.subarray(from, from + run), at);
    at += run;
    from += run + (c.index < inputs.files.length ? inputs.files[c.index]!.records : 0);
    masks.set(c.mask, at);
    at += c.mask.length;
    next = c.index + 1;
  }
  keys.set(old.subarray(keyFrom), k);
  masks.set(inputs.masks.subarray(from), at);
  const out: KeptInputs = { files, keys, masks, summaries: inputs.summaries };
  const index = inputs.index;
  if (index !== undefined)
    out.index = { ...index, patched: new Set([...index.patched, ...changes.map((c) => c.index)]) };
  return out;
}

/**
 * Where file `file`'s key triples are in `keys` (in file order): from and to, as indexes of numbers;
 * an empty range where they would be when it has none.
 */
export function keyRange(keys: Uint32Array, file: number): [number, number] {
  return [firstTriple(keys, file), firstTriple(keys, file + 1)];
}

/** The index (of numbers) of the first triple whose file is `file` or later: a binary search. */
function firstTriple(keys: Uint32Array, file: number): number {
  let lo = 0;
  let hi = keys.length / 3;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid * 3]! < file) lo = mid + 1;
    else hi = mid;
  }
  return lo * 3;
}
