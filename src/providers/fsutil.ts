/**
 * Directory listing and stat that report failures as problems instead of throwing, so one
 * unreadable directory costs its own sessions and nothing else.
 *
 * Which symbolic links discovery follows (docs/limits.md says the same):
 * - a link to a directory, anywhere: the root itself (`~/.claude` kept on another disk, or in a
 *   dotfiles repository) and any directory inside the tree. Both are common and harmless: what is
 *   read there is still only what the harness's own names select (`*.jsonl` under `projects/`).
 * - a link to a file, only when the file it resolves to lies under the root it was found under (the
 *   root's own links resolved first). A transcript that leads out of the tree (to `/etc/shadow`, to
 *   a key) is not read; a problem names the link and where it leads, never what is there.
 */

import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join, sep } from 'node:path';
import { dirTime } from '../dir-time.js';
import type { ProviderId } from '../model/facts.js';
import { describeFsError, type ProblemLog } from '../model/problems.js';
import { openRegular } from '../regular-file.js';
import type { Env, SourceFile } from './types.js';

export { dirTime };

export function home(env: Env): string {
  return env.HOME && env.HOME.length > 0 ? env.HOME : homedir();
}

/** Split a comma-separated list of directories (as `CLAUDE_CONFIG_DIR` and `CODEX_HOME` allow). */
export function dirList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Where `list` notes the directories it read, while a caller records them (see `recordListings`). */
let listed: Set<string> | null = null;

/** Run `discover` noting every directory it lists into `into` (to watch them afterwards). */
export function recordListings<T>(into: Set<string>, discover: () => T): T {
  const outer = listed;
  listed = into;
  try {
    return discover();
  } finally {
    listed = outer;
  }
}

/** Where `list` notes each directory it was asked for and its time before listing (see `recordLooks`). */
let looked: Map<string, number> | null = null;

/**
 * Run `discover` noting every directory it asks to list, listed or not, with its modification time
 * taken before the listing (-1 when it is not there). A later run that finds the same times knows
 * these listings did not change: an entry added, removed or renamed moves its directory's time, and
 * taking the time first means an entry added during the listing is seen as a change, never missed.
 */
export function recordLooks<T>(into: Map<string, number>, discover: () => T): T {
  const outer = looked;
  looked = into;
  try {
    return discover();
  } finally {
    looked = outer;
  }
}

/**
 * An entry of a directory listing, as discovery asks of one: a `Dirent` from a listing made now, or
 * one the look memory kept (`Looks`).
 */
export interface DirEntry {
  readonly name: string;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** What a directory is checked by before its remembered listing is used: its times and its inode. */
export interface DirStamp {
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/** What discovery reads of a transcript's `lstat` (`SourceFile`'s size, time and inode). */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

/**
 * A memory of an earlier look (`../index/look-memory.ts`): a directory's listing when its stamp is as
 * it was then, a file's stamp when it may be taken without a look; and told of every look made now.
 * It decides what may be trusted; this module only asks it, and tells it only what a full look sees
 * with no problem (a failed listing or stat, or a link, is never told, so never remembered).
 */
export interface Looks {
  /** What `dir` held when it was listed with this stamp, or null: list it now. */
  listing(dir: string, stamp: DirStamp): DirEntry[] | null;
  /** `dir` was listed now, its stamp taken just before. */
  listed(dir: string, stamp: DirStamp, entries: readonly DirEntry[]): void;
  /** The file's stamp without a look, or null: stat it now. */
  stamp(path: string): FileStamp | null;
  /** The file (not a link) was stat'ed now. */
  stated(path: string, stamp: FileStamp): void;
}

/** The look memory `list` and `sourceFile` ask, while a caller looks with one (see `lookingWith`). */
let looks: Looks | null = null;

/** Run `discover` with `memory` asked before each listing and stat, and told of each one made. */
export function lookingWith<T>(memory: Looks, discover: () => T): T {
  const outer = looks;
  looks = memory;
  try {
    return discover();
  } finally {
    looks = outer;
  }
}

/** A directory's stamp, or null when it cannot be had (as `dirTime`'s -1: missing, not a directory, unreadable). */
function dirStamp(dir: string): DirStamp | null {
  try {
    const st = statSync(dir, { throwIfNoEntry: false });
    return st?.isDirectory() ? { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino } : null;
  } catch {
    // Unreadable: listed now, so the listing says why (as a full look does).
    return null;
  }
}

/** Entries of `dir`, or null (with a problem logged unless it simply does not exist). */
export function list(dir: string, problems: ProblemLog): DirEntry[] | null {
  const memory = looks;
  let stamp: DirStamp | null = null;
  if (memory !== null) {
    // One stat for both: the time the warm answers check, and what the memory checks.
    stamp = dirStamp(dir);
    if (looked !== null && !looked.has(dir)) looked.set(dir, stamp?.mtimeMs ?? -1);
    const kept = stamp === null ? null : memory.listing(dir, stamp);
    if (kept !== null) {
      listed?.add(dir);
      return kept;
    }
  } else if (looked !== null && !looked.has(dir)) looked.set(dir, dirTime(dir));
  try {
    const entries = readdirSync(dir, { withFileTypes: true });
    listed?.add(dir);
    if (memory !== null && stamp !== null) memory.listed(dir, stamp, entries);
    return entries;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      problems.add({ kind: 'unreadable', path: dir, count: null, detail: describeFsError(err) });
    }
    return null;
  }
}

/** `stat` following links (or `how`), or null (with a problem logged when it is more than "gone"). */
export function statOf(
  path: string,
  problems: ProblemLog,
  how: (path: string) => Stats = statSync,
): Stats | null {
  try {
    return how(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    problems.add({
      kind: code === 'ENOENT' ? 'vanished' : 'unreadable',
      path,
      count: null,
      detail: describeFsError(err),
    });
    return null;
  }
}

/**
 * Where the link at `path` leads when that is outside `root` (both resolved), else null: the link
 * stays inside the tree. A link that cannot be resolved throws (a loop, a dangling target).
 */
export function linkOutside(path: string, root: string): string | null {
  const target = realpathSync(path);
  const home = realpathSync(root);
  return target === home || target.startsWith(home.endsWith(sep) ? home : `${home}${sep}`) ? null : target;
}

/**
 * A transcript as discovery hands it on, stat'ed now; null (the problem logged) when it is gone, or
 * is a link to a file outside its root.
 */
export function sourceFile(
  file: Omit<SourceFile, 'size' | 'mtimeMs' | 'ino'>,
  problems: ProblemLog,
): SourceFile | null {
  const memory = looks;
  const kept = memory?.stamp(file.path) ?? null;
  if (kept !== null) return sourceOf(file, kept);
  // `lstat` first: for a plain file it is the same answer as `stat`, for a link it says so.
  let st = statOf(file.path, problems, lstatSync);
  if (st !== null && !st.isSymbolicLink()) {
    const found = sourceOf(file, st);
    // The source is the stamp: its size, time and inode are the `lstat`'s.
    memory?.stated(file.path, found);
    return found;
  }
  if (st?.isSymbolicLink()) {
    let outside: string | null;
    try {
      outside = linkOutside(file.path, file.root);
    } catch (err) {
      problems.add({ kind: 'unreadable', path: file.path, count: null, detail: describeFsError(err) });
      return null;
    }
    if (outside !== null) {
      problems.add({
        kind: 'unreadable',
        path: file.path,
        count: null,
        detail: `a symbolic link to ${outside}, outside ${file.root}: not followed (cctop reads a linked file only inside the harness's own directory)`,
      });
      return null;
    }
    st = statOf(file.path, problems);
  }
  return st === null ? null : sourceOf(file, st);
}

function sourceOf(file: Omit<SourceFile, 'size' | 'mtimeMs' | 'ino'>, st: FileStamp): SourceFile {
  // Spelled out rather than spread: discovery makes one of these per transcript, thousands a run.
  return {
    provider: file.provider,
    path: file.path,
    root: file.root,
    sessionHint: file.sessionHint,
    role: file.role,
    size: st.size,
    mtimeMs: st.mtimeMs,
    ino: st.ino,
  };
}

/**
 * The sessions of a harness that keeps one folder per session, grouped by project, with one file in
 * each that is the session (`<sessions>/<group>/<session>/<file>`: Kimi CLI's `wire.jsonl`, Grok
 * Build's `updates.jsonl`): a source each, named by its session folder.
 */
export function groupedSessionFiles(
  provider: ProviderId,
  sessions: string,
  file: string,
  root: string,
  problems: ProblemLog,
): SourceFile[] {
  const out: SourceFile[] = [];
  for (const group of list(sessions, problems) ?? []) {
    if (!isDir(sessions, group)) continue;
    const groupDir = join(sessions, group.name);
    for (const session of list(groupDir, problems) ?? []) {
      if (!isDir(groupDir, session)) continue;
      const dir = join(groupDir, session.name);
      if (!(list(dir, problems) ?? []).some((e) => e.name === file && isFile(dir, e))) continue;
      const f = sourceFile(
        { provider, path: join(dir, file), root, sessionHint: session.name, role: 'main' },
        problems,
      );
      if (f) out.push(f);
    }
  }
  return out;
}

/**
 * `dir` and an entry name listed in it: a name never holds a separator, so this is `join` without
 * the normalising (discovery builds thousands of these).
 */
export const child = (dir: string, name: string): string => `${dir}${sep}${name}`;

/** Whether a directory entry is a directory, following a symbolic link once. */
export function isDir(parent: string, e: DirEntry): boolean {
  if (e.isDirectory()) return true;
  if (!e.isSymbolicLink()) return false;
  try {
    return statSync(join(parent, e.name)).isDirectory();
  } catch {
    return false;
  }
}

export function isFile(parent: string, e: DirEntry): boolean {
  if (e.isFile()) return true;
  if (!e.isSymbolicLink()) return false;
  try {
    return statSync(join(parent, e.name)).isFile();
  } catch {
    return false;
  }
}

/**
 * The first bytes of a small file a harness keeps beside its sessions (a workspace name, a project
 * root, a header), as text, and whether the file held more than `maxBytes`; null when it cannot be
 * opened. Only the start is read: such a file is never worth reading whole.
 */
export function readHead(path: string, maxBytes: number): { text: string; whole: boolean } | null {
  // Without waiting, and only a regular file: a named pipe there would hold the whole scan.
  const opened = openRegular(path);
  if (opened.kind !== 'file') return null;
  const fd = opened.fd;
  try {
    const buf = Buffer.alloc(maxBytes);
    const n = readSync(fd, buf, 0, maxBytes, 0);
    return { text: buf.toString('utf8', 0, n), whole: n < maxBytes };
  } finally {
    closeSync(fd);
  }
}

/**
 * A small file an agent keeps (its config, its cache), read whole without ever waiting on it: the
 * open is non-blocking, so a FIFO planted at the path does not hang the open; `fstat` on the open
 * descriptor then refuses anything that is not a regular file, and a file larger than `maxBytes` is
 * not read at all (the caller's bound says why that number). Read only: nothing is ever written.
 */
export type WholeFile =
  | { kind: 'read'; text: string; mtimeMs: number }
  | { kind: 'absent' }
  | { kind: 'refused'; why: 'not-a-file' | 'too-large' | 'unreadable' };

export type WholeBytes =
  | { kind: 'read'; bytes: Buffer; mtimeMs: number }
  | Exclude<WholeFile, { kind: 'read' }>;

export function readWholeFile(path: string, maxBytes: number): WholeFile {
  const r = readWholeBytes(path, maxBytes);
  return r.kind === 'read' ? { kind: 'read', text: r.bytes.toString('utf8'), mtimeMs: r.mtimeMs } : r;
}

/** The same, as bytes: for a caller that finds what it needs in them before decoding any. */
export function readWholeBytes(path: string, maxBytes: number): WholeBytes {
  let fd: number;
  try {
    // Windows has no O_NONBLOCK (and no FIFOs in the file system to fear).
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR'
      ? { kind: 'absent' }
      : { kind: 'refused', why: 'unreadable' };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { kind: 'refused', why: 'not-a-file' };
    if (st.size > maxBytes) return { kind: 'refused', why: 'too-large' };
    // Not zeroed first: only the bytes read are ever looked at (the `subarray` below).
    const buf = Buffer.allocUnsafe(st.size);
    let n = 0;
    // A file that grows while it is read is read up to the size it had: the rest is the next read's.
    while (n < st.size) {
      const got = readSync(fd, buf, n, st.size - n, n);
      if (got === 0) break;
      n += got;
    }
    return { kind: 'read', bytes: buf.subarray(0, n), mtimeMs: st.mtimeMs };
  } catch {
    // EIO, EISDIR on an odd file system: it cannot be read now; the caller says it is unknown.
    return { kind: 'refused', why: 'unreadable' };
  } finally {
    closeSync(fd);
  }
}
