/**
 * The hook journal: `<runtime dir>/hooks.jsonl`, the newest hook events, one `HookEvent` a line.
 * Every `cctop hook` appends its event here before it hands it to the running cctops, so a cctop
 * that starts later, or a one-shot `cctop --json`, still knows which sessions were waiting.
 *
 * An append is one `write` to a file opened with O_APPEND, so lines from hooks running at once never
 * interleave. The file is bounded (`MAX_JOURNAL_BYTES`): the append that finds it over the bound
 * tries to take a lock file (O_EXCL); the one that wins rewrites the file with its newest half
 * (temp file + rename) and the others go on. known limit: a line appended by another hook between the
 * winner's last look and its rename is lost from the journal (not from the running cctops, which get
 * it through their sockets); the winner copies what was appended while it wrote, so the window is the
 * few microseconds of a rename.
 *
 * Reading is bounded too and keeps only lines that read as current-version events; a torn or foreign
 * line is skipped. Nothing here throws: a hook must never fail its agent over a journal.
 *
 * Not here: where the directory is and whether it is ours (`runtime/dir.ts`), what an event means
 * (the agent's `providers/<name>/hooks.ts`).
 */
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '../model/json.js';
import type { Env } from '../providers/types.js';
import { JOURNAL_FILE, runtimeDir, runtimeDirPath } from '../runtime/dir.js';
import { readHookEvent } from './reduce.js';
import type { HookAgent, HookEvent } from './types.js';

export { JOURNAL_FILE };

const LOCK_FILE = 'hooks.jsonl.lock';
/** One fixed name: only the holder of the lock writes it, and a leftover is overwritten, never piled up. */
const TEMP_FILE = 'hooks.jsonl.tmp';

/**
 * The journal's size past which an append compacts it to its newest half. An event is about 300
 * bytes, so the file holds between about 400 and 800 of the newest events: hours of a busy day's
 * hooks, far more than it takes to know each live session's last state. Bounds the disk it uses and
 * what every reader reads.
 */
export const MAX_JOURNAL_BYTES = 256 * 1024;

/**
 * The most of the journal a reader reads, from its end. Twice the bound: the file can pass the bound
 * between an append and its compaction, or stay past it while a stale lock waits to expire.
 */
const JOURNAL_READ_BYTES = 2 * MAX_JOURNAL_BYTES;

/**
 * How old a lock file must be to be taken for one whose holder died (a hook killed by its deadline
 * mid-compaction). A compaction takes a millisecond or two; ten seconds is far past any live one.
 */
const STALE_LOCK_MS = 10_000;

/** Only the user may read the journal: it names the projects they work on. */
const FILE_MODE = 0o600;

/**
 * How the journal is opened: never through a symbolic link, and never waiting (a FIFO put in its
 * place would otherwise block the open until someone reads it).
 */
const OPEN_APPEND =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const OPEN_READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const OPEN_TEMP = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;

/** Append one event to the journal in `dir` (a runtime directory already checked), compacting it when over its bound. */
export function appendJournal(dir: string, event: HookEvent): void {
  const path = join(dir, JOURNAL_FILE);
  let fd: number;
  try {
    fd = openSync(path, OPEN_APPEND, FILE_MODE);
  } catch {
    return;
  }
  let size = 0;
  try {
    writeSync(fd, `${JSON.stringify(event)}\n`);
    size = fstatSync(fd).size;
  } catch {
    // Disk full, or the journal is not a file: the running cctops still get the event.
  } finally {
    closeSync(fd);
  }
  if (size > MAX_JOURNAL_BYTES) compact(dir);
}

/** Rewrite the journal with its newest half, when this process wins the lock. */
function compact(dir: string): void {
  const lock = join(dir, LOCK_FILE);
  if (!takeLock(lock)) return;
  const path = join(dir, JOURNAL_FILE);
  const temp = join(dir, TEMP_FILE);
  try {
    const keep = MAX_JOURNAL_BYTES / 2;
    const { bytes, end } = readTail(path, keep);
    const out = openSync(temp, OPEN_TEMP, FILE_MODE);
    try {
      writeSync(out, bytes);
      // What other hooks appended while this one read and wrote: read up to the file's end again.
      const later = readRange(path, end);
      if (later.length > 0) writeSync(out, later);
    } finally {
      closeSync(out);
    }
    renameSync(temp, path);
  } catch {
    unlinkQuietly(temp);
  } finally {
    unlinkQuietly(lock);
  }
}

/** Take the compaction lock, clearing one left by a holder that died. */
function takeLock(lock: string): boolean {
  try {
    closeSync(openSync(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, FILE_MODE));
    return true;
  } catch {
    try {
      if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) unlinkSync(lock);
    } catch {
      // Released meanwhile.
    }
    // The next append that finds the journal over its bound tries again.
    return false;
  }
}

/**
 * The last `max` bytes of a file, starting at a line's start (the partial line before it dropped),
 * and the offset the file ended at when read.
 */
function readTail(path: string, max: number): { bytes: Buffer; end: number } {
  const fd = openSync(path, OPEN_READ);
  try {
    const size = fstatSync(fd).size;
    const from = Math.max(0, size - max);
    const buf = Buffer.alloc(size - from);
    const n = readSync(fd, buf, 0, buf.length, from);
    let bytes = buf.subarray(0, n);
    if (from > 0) {
      // Keep whole lines: skip to the first line that starts inside the window.
      const nl = bytes.indexOf(0x0a);
      bytes = nl === -1 ? Buffer.alloc(0) : bytes.subarray(nl + 1);
    }
    return { bytes, end: from + n };
  } finally {
    closeSync(fd);
  }
}

/** The bytes of a file from `from` to its end, at most `MAX_JOURNAL_BYTES`. */
function readRange(path: string, from: number): Buffer {
  const fd = openSync(path, OPEN_READ);
  try {
    const size = Math.min(fstatSync(fd).size, from + MAX_JOURNAL_BYTES);
    if (size <= from) return Buffer.alloc(0);
    const buf = Buffer.alloc(size - from);
    return buf.subarray(0, readSync(fd, buf, 0, buf.length, from));
  } finally {
    closeSync(fd);
  }
}

/**
 * Where a reader of the journal got to: which file (a compaction replaces it) and the offset just
 * past the last whole line read. What a later `loadJournalIn(dir, mark)` starts from.
 */
export interface JournalMark {
  ino: number;
  offset: number;
}

/**
 * The journal as read: its events oldest first and where the reading ended, or why it could not be
 * read (the runtime directory refused, or the journal unreadable). A journal that does not exist yet
 * is read as empty.
 */
export type JournalRead =
  /** `bad`: lines that were not an event of this version (a hand edit, another program, damage). */
  | { kind: 'read'; events: HookEvent[]; mark: JournalMark | null; bad: number }
  | { kind: 'refused'; path: string; why: string };

/** Read the journal of `env`'s runtime directory. A reader makes no directory: none is no events. */
export function loadJournal(env: Env): JournalRead {
  if (!existsSync(runtimeDirPath(env))) return { kind: 'read', events: [], mark: null, bad: 0 };
  const dir = runtimeDir(env);
  if (dir.kind === 'refused') return dir;
  return loadJournalIn(dir.path);
}

/**
 * Read the journal in a runtime directory already checked: its newest part, or with `since`, the
 * lines appended after that mark (all of its newest part again when the file was replaced since: a
 * reader that follows the journal drops the events it already had). A line still being written is
 * left for the next read.
 */
export function loadJournalIn(dir: string, since: JournalMark | null = null): JournalRead {
  const path = join(dir, JOURNAL_FILE);
  let bytes: Buffer;
  let mark: JournalMark;
  try {
    const fd = openSync(path, OPEN_READ);
    try {
      const st = fstatSync(fd);
      const resume = since !== null && since.ino === st.ino && since.offset <= st.size;
      const from = Math.max(resume ? since.offset : 0, st.size - JOURNAL_READ_BYTES);
      const buf = Buffer.alloc(st.size - from);
      bytes = buf.subarray(0, readSync(fd, buf, 0, buf.length, from));
      let start = 0;
      // Started inside a line (the file's head was beyond the read bound): begin at the next one.
      if (from > 0 && !(resume && from === since.offset)) {
        const nl = bytes.indexOf(0x0a);
        start = nl === -1 ? bytes.length : nl + 1;
      }
      const end = bytes.lastIndexOf(0x0a) + 1;
      bytes = end > start ? bytes.subarray(start, end) : Buffer.alloc(0);
      mark = { ino: st.ino, offset: from + Math.max(end, start) };
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') return { kind: 'read', events: [], mark: null, bad: 0 };
    return { kind: 'refused', path, why: e.code === 'ELOOP' ? 'it is a symbolic link' : e.message };
  }
  const events: HookEvent[] = [];
  let bad = 0;
  for (const line of bytes.toString('utf8').split('\n')) {
    if (line.length === 0) continue;
    const e = readHookEvent(parseJson(line));
    if (e !== null) events.push(e);
    else bad++;
  }
  return { kind: 'read', events, mark, bad };
}

/** The journal's events, oldest first; [] when it cannot be read (`journalProblem` says why). */
export function readJournal(env: Env): HookEvent[] {
  const r = loadJournal(env);
  return r.kind === 'read' ? r.events : [];
}

/**
 * Why the journal cannot be read, or what in it could not, in words for `cctop doctor` and
 * `cctop hooks status`; null when all of it reads.
 */
export function journalProblem(env: Env): string | null {
  const r = loadJournal(env);
  if (r.kind === 'refused') return `${r.path}: ${r.why}`;
  return r.bad === 0 ? null : `${r.bad} line${r.bad === 1 ? '' : 's'} of the journal are not events; skipped`;
}

/** The newest event of each agent. */
export function newestByAgent(events: readonly HookEvent[]): Partial<Record<HookAgent, HookEvent>> {
  const out: Partial<Record<HookAgent, HookEvent>> = {};
  for (const e of events) {
    const seen = out[e.agent];
    if (seen === undefined || e.at >= seen.at) out[e.agent] = e;
  }
  return out;
}

/** The newest event of each session, keyed `<agent>:<session>`; events that name no session are left out. */
export function newestBySession(events: readonly HookEvent[]): Map<string, HookEvent> {
  const out = new Map<string, HookEvent>();
  for (const e of events) {
    if (e.session === null) continue;
    const key = `${e.agent}:${e.session}`;
    const seen = out.get(key);
    if (seen === undefined || e.at >= seen.at) out.set(key, e);
  }
  return out;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
