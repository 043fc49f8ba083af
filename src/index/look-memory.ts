/**
 * The look memory: what the last looks at the transcripts' directories found, so that a one-shot
 * within a minute of the last full look need not list every directory and stat every transcript
 * again. Discovery (`../providers/fsutil.ts` `list` and `sourceFile`) asks it before each listing
 * and stat; the providers' own parsing of what they find is untouched, and every provider gains.
 *
 * What it trusts, and why that is safe for a minute (docs/limits.md says what it can miss):
 * - a directory's listing, while the directory's modification and change times and inode are as
 *   they were: an entry added, removed or renamed moves the modification time, a change of
 *   permissions the change time, a directory replaced or mounted over the inode;
 * - a transcript's size, time and inode, only when its directory's listing was trusted in this very
 *   run and it was last written over `GROWING_MS` ago. A transcript written more recently may be
 *   growing and is stat'ed every time; an append to an older one is seen at the next full look.
 * A full look (a sweep) is made when the last one is over `SWEEP_EVERY_MS` old, when the memory is
 * absent, damaged or foreign, and when the caller asks for one (`cctop doctor`); each writes the
 * memory anew. A look between sweeps writes it only when it listed a directory again.
 *
 * What it never holds: a listing or stat that failed, and a link (its target is looked at every
 * time), so a problem a full look reports is reported by every look. One file per cache directory,
 * written whole and renamed into place, owner-only, with a CRC-32; one that does not check is ignored.
 *
 * Not here: which runs use it (`session-index.ts`), or how discovery walks (the providers' places).
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { crc32 } from 'node:zlib';
import { cacheDir } from '../paths.js';
import type { DirEntry, DirStamp, FileStamp, Looks } from '../providers/fsutil.js';
import { readWholeBytes } from '../providers/fsutil.js';
import type { IndexOptions } from './options.js';
import { GROWING_MS, SWEEP_EVERY_MS } from './warm-doc-layout.js';

/** Its name in cctop's cache directory: one per cache, whatever the options. */
export const LOOKS_FILE = 'looks.mem';

/** The layout of the file; another number is another layout, and the reader ignores it. */
export const LOOKS_FORMAT = 1;

/**
 * A memory larger than this is not read (the look is a full one, and writes it again smaller or not
 * at all). About 100 bytes a transcript: 32 MiB is some 300,000 transcripts, ten times the largest
 * history we have seen, and a bound on what a planted file can make a run read.
 */
export const MAX_LOOKS_BYTES = 32 * 1024 * 1024;

/**
 * A directory whose modification time is this close to when it was listed (or ahead of it) is not
 * remembered: its time may not move for an entry added in the same tick. Linux keeps directory times
 * to a clock tick (up to 10 ms), ext3 and HFS+ to the second, FAT to two seconds; a listing made two
 * seconds after the last change is one no later change can share a time with.
 */
export const SETTLE_MS = 2_000;

/**
 * The prefix: the CRC-32 of everything after it (u32), the layout (u32), and when the last full look
 * was (f64), so a memory over a minute old is set aside without parsing its body (JSON: the folders).
 */
const FORMAT_AT = 4;
const SWEPT_AT = 8;
const PREFIX_BYTES = 16;

/** The file's bytes: the prefix, then `rows` (this layout's folders, or anything a test plants). */
export function looksBytes(sweptAt: number, rows: unknown, format = LOOKS_FORMAT): Buffer {
  const body = Buffer.from(JSON.stringify(rows));
  const b = Buffer.alloc(PREFIX_BYTES + body.length);
  b.writeUInt32LE(format, FORMAT_AT);
  b.writeDoubleLE(sweptAt, SWEPT_AT);
  body.copy(b, PREFIX_BYTES);
  b.writeUInt32LE(crc32(b.subarray(FORMAT_AT)) >>> 0, 0);
  return b;
}

/** An entry's kind as kept: one character each. */
type Kind = 'f' | 'd' | 'l' | 'o';

function kindOf(e: DirEntry): Kind {
  if (e.isFile()) return 'f';
  if (e.isDirectory()) return 'd';
  return e.isSymbolicLink() ? 'l' : 'o';
}

/** A directory entry from the memory: what a `Dirent` of the same name and kind answers. */
class KeptEntry implements DirEntry {
  constructor(
    readonly name: string,
    private readonly kind: string,
  ) {}
  isFile(): boolean {
    return this.kind === 'f';
  }
  isDirectory(): boolean {
    return this.kind === 'd';
  }
  isSymbolicLink(): boolean {
    return this.kind === 'l';
  }
}

/** A directory as remembered: its stamp, its entries (names and one kind character each), its files' stamps. */
interface DirMemory {
  stamp: DirStamp;
  names: readonly string[];
  kinds: string;
  files: Map<string, FileStamp>;
}

/** The file's body, after the prefix: `[path, mtimeMs, ctimeMs, ino, kinds, names, stamps]` per directory, stamps flat by four (entry, size, mtimeMs, ino). */
type DirRow = [string, number, number, number, string, readonly string[], number[]];

const isNum = (v: unknown): v is number => typeof v === 'number';
const isStr = (v: unknown): v is string => typeof v === 'string';

/**
 * A name a listing can hold: no separator, no NUL, not `.` or `..`. Discovery joins a remembered
 * name to its folder as it would a listed one, so a name that climbs out (planted in the cache) is
 * refused with the whole memory.
 */
const isEntryName = (v: unknown): v is string =>
  isStr(v) &&
  v.length > 0 &&
  v !== '.' &&
  v !== '..' &&
  !v.includes('/') &&
  !v.includes(sep) &&
  !v.includes('\0');

/** A directory row when it is one this layout writes, else null. */
function dirOf(v: unknown): [string, DirMemory] | null {
  if (!Array.isArray(v) || v.length !== 7) return null;
  const row: readonly unknown[] = v;
  const [path, mtimeMs, ctimeMs, ino, kinds, names, stamps] = row;
  if (!isStr(path) || !isNum(mtimeMs) || !isNum(ctimeMs) || !isNum(ino) || !isStr(kinds)) return null;
  if (!Array.isArray(names) || names.length !== kinds.length || !names.every(isEntryName)) return null;
  if (!/^[fdlo]*$/.test(kinds)) return null;
  if (!Array.isArray(stamps) || stamps.length % 4 !== 0) return null;
  // Checked as they are taken, in one pass: a run reads some 3,800 of them.
  const files = new Map<string, FileStamp>();
  for (let i = 0; i < stamps.length; i += 4) {
    const at: unknown = stamps[i];
    const size: unknown = stamps[i + 1];
    const written: unknown = stamps[i + 2];
    const inode: unknown = stamps[i + 3];
    if (!isNum(at) || !isNum(size) || !isNum(written) || !isNum(inode)) return null;
    const name = names[at];
    if (name === undefined) return null;
    files.set(name, { size, mtimeMs: written, ino: inode });
  }
  return [path, { stamp: { mtimeMs, ctimeMs, ino }, names, kinds, files }];
}

/** The folders the file holds, when it is sound, of this layout and its full look recent; else why not. */
function memoryOf(b: Buffer, nowMs: number): Map<string, DirMemory> | 'unsound' | 'old' {
  if (b.length < PREFIX_BYTES || crc32(b.subarray(FORMAT_AT)) >>> 0 !== b.readUInt32LE(0)) return 'unsound';
  if (b.readUInt32LE(FORMAT_AT) !== LOOKS_FORMAT) return 'unsound';
  const sweptAt = b.readDoubleLE(SWEPT_AT);
  if (!(nowMs - sweptAt <= SWEEP_EVERY_MS && nowMs >= sweptAt)) return 'old';
  let v: unknown;
  try {
    v = JSON.parse(b.toString('utf8', PREFIX_BYTES));
  } catch {
    // Passed its CRC yet is not JSON: another program's file; a full look writes ours.
    return 'unsound';
  }
  if (!Array.isArray(v)) return 'unsound';
  const dirs = new Map<string, DirMemory>();
  for (const row of v) {
    const d = dirOf(row);
    if (d === null) return 'unsound';
    dirs.set(d[0], d[1]);
  }
  return dirs;
}

const sameStamp = (a: DirStamp, b: DirStamp): boolean =>
  a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;

const SEP_CODE = sep.charCodeAt(0);

/** Why a look is a full one, or that it may trust the memory. */
export type LookKind =
  | { kind: 'trusting'; sweptAt: number }
  | { kind: 'sweep'; why: 'asked' | 'absent' | 'unsound' | 'old' };

/** A folder as this run saw it: its remembered listing trusted, or listed now (made a memory when written). */
type Seen =
  | { kind: 'kept'; memory: DirMemory }
  | { kind: 'listed'; stamp: DirStamp; entries: readonly DirEntry[] };

export class LookMemory implements Looks {
  /** The folders this run listed, now or from memory, to be written. */
  private readonly seen = new Map<string, Seen>();
  /** The folders whose remembered listing this run used: only their files' stamps may be taken too. */
  private readonly trusted = new Map<string, DirMemory>();
  /**
   * The transcripts stat'ed now (never a link), in two lists rather than one of pairs: discovery
   * stats thousands, and this is all it pays for each; they are put in their folders when written.
   */
  private readonly statedPaths: string[] = [];
  private readonly statedStamps: FileStamp[] = [];
  /** Whether this run listed a directory the memory did not answer for (so the memory is worth writing). */
  private relisted = false;

  private constructor(
    private readonly path: string,
    readonly look: LookKind,
    private readonly before: Map<string, DirMemory> | null,
    private readonly nowMs: number,
  ) {}

  /**
   * The memory in `cache` for a look at `nowMs`: trusted when it is sound and its last full look is
   * at most `SWEEP_EVERY_MS` old (and not ahead of the clock); else a full look. `sweep` asks for a
   * full look whatever the memory holds. Directory times are judged settled (`SETTLE_MS`) against
   * `nowMs` too: taken before the look, it is never later than the listing.
   */
  static open(cache: string, nowMs: number, sweep: boolean): LookMemory {
    const path = join(cache, LOOKS_FILE);
    const full = (why: 'asked' | 'absent' | 'unsound' | 'old') =>
      new LookMemory(path, { kind: 'sweep', why }, null, nowMs);
    if (sweep) return full('asked');
    const read = readWholeBytes(path, MAX_LOOKS_BYTES);
    if (read.kind === 'absent') return full('absent');
    if (read.kind !== 'read') return full('unsound');
    const m = memoryOf(read.bytes, nowMs);
    if (typeof m === 'string') return full(m);
    return new LookMemory(path, { kind: 'trusting', sweptAt: read.bytes.readDoubleLE(SWEPT_AT) }, m, nowMs);
  }

  /** When the last full look behind what this run saw was: now for a full look. */
  get sweptAt(): number {
    return this.look.kind === 'trusting' ? this.look.sweptAt : this.nowMs;
  }

  listing(dir: string, stamp: DirStamp): DirEntry[] | null {
    const kept = this.before?.get(dir);
    if (kept === undefined || !sameStamp(kept.stamp, stamp)) return null;
    this.trusted.set(dir, kept);
    this.folder = null;
    // Seen as it was: its files' stamps go on (a growing one's replaced when it is stat'ed again).
    this.seen.set(dir, { kind: 'kept', memory: kept });
    const out: DirEntry[] = new Array(kept.names.length);
    for (let i = 0; i < out.length; i++) out[i] = new KeptEntry(kept.names[i]!, kept.kinds[i]!);
    return out;
  }

  listed(dir: string, stamp: DirStamp, entries: readonly DirEntry[]): void {
    this.relisted = true;
    this.folder = null;
    // Changed too lately to be sure a later change moves its time: listed again next time.
    if (this.nowMs - Math.max(stamp.mtimeMs, stamp.ctimeMs) < SETTLE_MS) return;
    this.seen.set(dir, { kind: 'listed', stamp, entries });
  }

  stamp(path: string): FileStamp | null {
    // A full look takes no stamp from the memory: nothing to find.
    if (this.before === null) return null;
    const at = this.folderOf(path);
    const f = at?.kept?.files.get(at.name);
    // Written in the last `GROWING_MS` (or ahead of the clock): it may be growing, so it is stat'ed.
    return f === undefined || this.nowMs - f.mtimeMs <= GROWING_MS ? null : f;
  }

  stated(path: string, stamp: FileStamp): void {
    this.statedPaths.push(path);
    this.statedStamps.push(stamp);
  }

  /** The folder of the file last asked about: discovery asks about a folder's files one after another. */
  private folder: { dir: string; kept: DirMemory | undefined } | null = null;

  /** A file's trusted folder's memory (undefined when its folder is not one), and its name there. */
  private folderOf(path: string): { kept: DirMemory | undefined; name: string } | null {
    const f = this.folder;
    // The same folder as the last file's: no slicing, and no lookups.
    if (
      f !== null &&
      path.length > f.dir.length + 1 &&
      path.charCodeAt(f.dir.length) === SEP_CODE &&
      path.startsWith(f.dir) &&
      path.indexOf(sep, f.dir.length + 1) === -1
    )
      return { kept: f.kept, name: path.slice(f.dir.length + 1) };
    const cut = path.lastIndexOf(sep);
    if (cut <= 0) return null;
    const dir = path.slice(0, cut);
    this.folder = { dir, kept: this.trusted.get(dir) };
    return { kept: this.folder.kept, name: path.slice(cut + 1) };
  }

  /** What this run saw, as memories by folder: each listing with the stamps of its files stat'ed or trusted. */
  private memories(): Map<string, DirMemory> {
    const out = new Map<string, DirMemory>();
    for (const [dir, s] of this.seen) {
      if (s.kind === 'kept') out.set(dir, s.memory);
      else {
        const names = s.entries.map((e) => e.name);
        out.set(dir, { stamp: s.stamp, names, kinds: s.entries.map(kindOf).join(''), files: new Map() });
      }
    }
    // Kept only under a folder listed in this run: a file's stamp is used only under one.
    let last: { dir: string; memory: DirMemory | undefined } | null = null;
    for (let i = 0; i < this.statedPaths.length; i++) {
      const path = this.statedPaths[i]!;
      const cut = path.lastIndexOf(sep);
      if (cut <= 0) continue;
      const dir = path.slice(0, cut);
      if (last === null || last.dir !== dir) last = { dir, memory: out.get(dir) };
      last.memory?.files.set(path.slice(cut + 1), this.statedStamps[i]!);
    }
    return out;
  }

  /**
   * Write what this run saw, after a full look, or after a look that listed a directory again (so the
   * next run need not); a look that only stat'ed growing transcripts leaves the file as it is. Never
   * throws: the memory only saves time.
   */
  save(): void {
    if (this.look.kind === 'trusting' && !this.relisted) return;
    const rows: DirRow[] = [];
    for (const [dir, d] of this.memories()) {
      const stamps: number[] = [];
      for (let i = 0; i < d.names.length; i++) {
        const f = d.files.get(d.names[i]!);
        if (f !== undefined) stamps.push(i, f.size, f.mtimeMs, f.ino);
      }
      rows.push([dir, d.stamp.mtimeMs, d.stamp.ctimeMs, d.stamp.ino, d.kinds, d.names, stamps]);
    }
    const bytes = looksBytes(this.sweptAt, rows);
    const tmp = `${this.path}.${process.pid}.tmp`;
    try {
      // Created anew, so owner-only whatever a file left there by a crash was.
      rmSync(tmp, { force: true });
      writeFileSync(tmp, bytes, { mode: 0o600, flag: 'wx' });
      renameSync(tmp, this.path);
    } catch {
      // A full disk or a read-only cache: the next run looks in full, as before this memory.
      removeQuietly(tmp);
    }
  }
}

function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // The write already failed; a leftover scratch file is replaced by the next write from this pid.
  }
}

/**
 * The look memory a one-shot through the index discovers with: it lists only the directories that
 * moved and stats only the transcripts that may be growing, within a minute of the last full look.
 * None without the index (`--no-cache`) or for a long-running view, which look in full each time; a
 * full look for `doctor` and the reports that read every file (`needFiles`).
 */
export function lookMemoryOf(o: IndexOptions, indexed: boolean, nowMs: number): LookMemory | null {
  if (o.oneRefresh !== true || !indexed) return null;
  return LookMemory.open(cacheDir(o.env), nowMs, o.needFiles === true);
}
