/**
 * Held requests on disk, in `<runtime dir>/approvals/` (0700, inside the runtime directory that is
 * already checked to be this user's alone; every file 0600). One request is up to three files:
 *
 * - `<id>.request`: what the holding hook registered;
 * - `<id>.answer`: the first answer, from whichever way of answering got there first;
 * - `<id>.settled`: how it ended, written by the holding hook alone (the answer delivered to the
 *   agent, or the hold released and why).
 *
 * "Taken once" is the file system's: an answer or a settlement is written to a temporary name and
 * hard-linked to its final one, which fails when the name exists. So exactly one answer wins however
 * many arrive at once, and a reader never sees half a file. The hook settles: an answer that came
 * after the agent's own dialog was answered is not delivered, and its giver learns why.
 *
 * The journal of answers (`approvals.jsonl` beside the hook journal) says who answered, from where,
 * when, and what became of every request; `cctop explain` shows a session's lines.
 *
 * Not here: waiting (`hold.ts`), answering and its refusals (`answer.ts`), any agent's wire format.
 */
import {
  appendFileSync,
  chmodSync,
  closeSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { obj, parseJson } from '../model/json.js';
import { pidRuns } from '../pid.js';
import {
  type Answer,
  type ApprovalRequest,
  readAnswer,
  readRequest,
  readSettlement,
  type Settlement,
} from './types.js';

/** The folder's name in the runtime directory, and its mode (like the directory's own). */
export const APPROVALS_DIR = 'approvals';
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** The journal of answers, beside the hook journal. */
export const APPROVALS_JOURNAL = 'approvals.jsonl';

/**
 * How long a settled request's files are kept: long enough for a late answer (a notification read an
 * hour later) to be told what became of it rather than "no such request", short enough that the
 * folder holds a day's requests at most. Older files go when the next request is registered.
 */
export const KEEP_SETTLED_MS = 24 * 60 * 60 * 1000;

/**
 * The size past which the journal of answers is cut to its newest half. A line is about 600 bytes:
 * 512 KiB holds the last several hundred answers, more than `cctop explain` shows of one session.
 */
export const MAX_APPROVALS_JOURNAL_BYTES = 512 * 1024;

/** The largest request or answer file read; what the hook writes is a few KiB at most. */
const MAX_FILE_BYTES = 64 * 1024;

/** A request's id: 32 lowercase hex digits (128 random bits). Anything else names no file. */
const ID = /^[0-9a-f]{32}$/;
export const isRequestId = (s: string): boolean => ID.test(s);

/** The approvals folder inside `runtime` (a checked runtime directory), made when missing; null when refused. */
export function approvalsDir(runtime: string): string | null {
  const path = join(runtime, APPROVALS_DIR);
  try {
    mkdirSync(path, { mode: DIR_MODE });
  } catch (err) {
    // Already there (the usual case): checked below.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return null;
  }
  try {
    const st = lstatSync(path);
    const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
    if (!st.isDirectory() || st.uid !== uid) return null;
    if ((st.mode & 0o777) !== DIR_MODE) chmodSync(path, DIR_MODE);
    return path;
  } catch {
    // Gone between the two calls, or unreadable: no approvals here.
    return null;
  }
}

const fileOf = (dir: string, id: string, part: 'request' | 'answer' | 'settled'): string =>
  join(dir, `${id}.${part}`);

/** Write `value` as `path`'s content unless `path` exists: true when this call wrote it. */
function writeOnce(path: string, value: unknown): boolean {
  const tmp = `${path}.${process.pid}.${Math.random().toString(16).slice(2)}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(value)}\n`, { mode: FILE_MODE, flag: 'wx' });
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkSync(tmp);
  }
}

function readSmall(path: string): unknown {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    // Not there (the usual meaning of "not answered yet").
    return null;
  }
  try {
    const buf = Buffer.alloc(MAX_FILE_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return parseJson(buf.subarray(0, n).toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

/** Register a request (its hook is about to hold it); older settled files are pruned first. */
export function registerRequest(dir: string, request: ApprovalRequest, now: number): void {
  prune(dir, now);
  const path = fileOf(dir, request.id, 'request');
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(request)}\n`, { mode: FILE_MODE });
  renameSync(tmp, path);
}

export function readRequestFile(dir: string, id: string): ApprovalRequest | null {
  if (!isRequestId(id)) return null;
  return readRequest(readSmall(fileOf(dir, id, 'request')));
}

export function answerOf(dir: string, id: string): Answer | null {
  return readAnswer(readSmall(fileOf(dir, id, 'answer')));
}

export function settlementOf(dir: string, id: string): Settlement | null {
  return readSettlement(readSmall(fileOf(dir, id, 'settled')));
}

/** Put the first answer beside its request: false when one is there already. */
export function putAnswer(dir: string, id: string, answer: Answer): boolean {
  return writeOnce(fileOf(dir, id, 'answer'), answer);
}

/** Settle a request (the holding hook alone does): false when it was settled already. */
export function putSettlement(dir: string, id: string, s: Settlement): boolean {
  return writeOnce(fileOf(dir, id, 'settled'), s);
}

/** Why a request is not open, or null when it is. */
export function closedWhy(dir: string, r: ApprovalRequest, now: number): string | null {
  const s = settlementOf(dir, r.id);
  if (s !== null) return 'settled';
  if (now >= r.expiresAt) return 'expired';
  if (!pidRuns(r.pid)) return 'hook-gone';
  return null;
}

/** Every registered request, newest last. */
export function allRequests(dir: string): ApprovalRequest[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    // No folder: nothing was ever held here.
    return [];
  }
  return names
    .filter((n) => n.endsWith('.request'))
    .flatMap((n) => readRequestFile(dir, n.slice(0, -'.request'.length)) ?? [])
    .sort((a, b) => a.at - b.at);
}

/** The requests still open (not settled, not past their hold, their hook alive), oldest first. */
export function openRequests(dir: string, now: number): ApprovalRequest[] {
  return allRequests(dir).filter((r) => closedWhy(dir, r, now) === null);
}

/** Take away files of requests settled (or abandoned) longer ago than `KEEP_SETTLED_MS`. */
function prune(dir: string, now: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    // No folder to prune.
    return;
  }
  for (const n of names) {
    const path = join(dir, n);
    try {
      if (now - statSync(path).mtimeMs > KEEP_SETTLED_MS) unlinkSync(path);
    } catch {
      // Taken by another hook's prune at the same moment: the same end.
    }
  }
}

/** One line of the journal of answers. */
export type JournalLine =
  /** How a request ended (the holding hook writes it). */
  | { kind: 'settled'; request: ApprovalRequest; settlement: Settlement }
  /** An answer that was refused, and why (whoever was refused writes it). */
  | { kind: 'refused'; request: ApprovalRequest; answer: Answer; why: string }
  /**
   * An answer given by pressing the agent's own key in its terminal, for an agent whose hook cannot
   * be held (Codex): `where` it was pressed, which `key`, and whether the prompt was seen to close.
   */
  | { kind: 'typed'; request: ApprovalRequest; answer: Answer; where: string; key: string; closed: boolean };

/** Append a line; a journal past its bound is first cut to its newest half. Never throws. */
export function appendApprovalJournal(runtime: string, line: JournalLine): void {
  const path = join(runtime, APPROVALS_JOURNAL);
  try {
    try {
      if (statSync(path).size > MAX_APPROVALS_JOURNAL_BYTES) {
        const keep = readFileSync(path).subarray(-MAX_APPROVALS_JOURNAL_BYTES / 2);
        const from = keep.indexOf(0x0a) + 1;
        const tmp = `${path}.${process.pid}.tmp`;
        writeFileSync(tmp, keep.subarray(from), { mode: FILE_MODE });
        renameSync(tmp, path);
      }
    } catch {
      // No journal yet: the append below starts it.
    }
    appendFileSync(path, `${JSON.stringify(line)}\n`, { mode: FILE_MODE });
  } catch {
    // A journal line lost never fails an answer or an agent; `cctop explain` shows less.
  }
}

/** The journal's lines that read, oldest first. */
export function readApprovalJournal(runtime: string): JournalLine[] {
  let text: string;
  try {
    text = readFileSync(join(runtime, APPROVALS_JOURNAL))
      .subarray(-2 * MAX_APPROVALS_JOURNAL_BYTES)
      .toString('utf8');
  } catch {
    // No journal: nothing was answered here.
    return [];
  }
  const out: JournalLine[] = [];
  for (const raw of text.split('\n')) {
    const o = raw.trim() === '' ? null : obj(parseJson(raw));
    if (o === null) continue;
    const request = readRequest(o.request);
    if (request === null) continue;
    if (o.kind === 'settled') {
      const settlement = readSettlement(o.settlement);
      if (settlement !== null) out.push({ kind: 'settled', request, settlement });
    } else if (o.kind === 'refused') {
      const answer = readAnswer(o.answer);
      if (answer !== null && typeof o.why === 'string')
        out.push({ kind: 'refused', request, answer, why: o.why });
    } else if (o.kind === 'typed') {
      const answer = readAnswer(o.answer);
      const { where, key, closed } = o;
      if (
        answer !== null &&
        typeof where === 'string' &&
        typeof key === 'string' &&
        typeof closed === 'boolean'
      )
        out.push({ kind: 'typed', request, answer, where, key, closed });
    }
  }
  return out;
}
