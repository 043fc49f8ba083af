/**
 * Claude Code's own registry of running sessions: `<config dir>/sessions/<pid>.json`, one file per
 * live process, which is what `claude agents --json` lists. cctop reads the files directly (it never
 * spawns `claude` for them) as its second source of live state: below what hooks report, above what
 * it infers from transcripts and processes.
 *
 * What 2.1.328 writes, measured in the lab (`lab/fixtures/hooks/README.md`):
 * - every session writes one, `claude -p` and stream-json included (`entrypoint: "sdk-cli"`), an
 *   interactive terminal (`"cli"`), a `--bg` session (`kind: "bg"`, with a `jobId`);
 * - it appears at start with `status: "idle"`, turns `"busy"` when a prompt is submitted, `"waiting"`
 *   with `waitingFor: "permission prompt"` (or `"input needed"`, `"dialog open"`, …) while an approval
 *   is pending, back to `"busy"`, and `"idle"` when the turn ends; `"shell"` is idle at the prompt
 *   with a background shell still running;
 * - the file is removed when the process exits; one left behind by a crash names a dead pid, so a
 *   record is only believed for a process that exists and, where the record says when its process
 *   started (`procStart`, the start time in `/proc/<pid>/stat`), is still that process.
 * - a background job keeps more in `<config dir>/jobs/<jobId>/state.json` (its `state`, what it
 *   `needs`), read here for the records that name a job.
 *
 * Not here: what the states mean for the live table (the overlay decides what outranks what), the
 * `.key` files beside each record (a messaging token, none of cctop's business), the daemon's own
 * files (`daemon/roster.json`).
 */
import { closeSync, fstatSync, opendirSync, openSync, readFileSync, readlinkSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { num, obj, parseJson, str } from '../../model/json.js';
import { pidRuns } from '../../pid.js';
import type { Env } from '../types.js';
import { claudeRoots } from './place.js';

/**
 * The largest record read. 2.1.328 writes about 700 bytes, and caps its own reads at 256 KiB; a
 * record that grew past 64 KiB (a long list of former names) is not one cctop needs to trust.
 */
export const MAX_REGISTRY_FILE_BYTES = 64 * 1024;

/**
 * The most records read per config dir. Each is a live process: hundreds on one machine is already a
 * flood, and past this a folder filled by something else costs no more than this many small reads.
 */
export const MAX_REGISTRY_FILES = 512;

/**
 * The most names looked at in one `sessions/` folder: each session keeps two (its record and its
 * key), a write in progress a third, so four per record read leaves room and bounds a flooded folder.
 */
export const MAX_REGISTRY_NAMES = 4 * MAX_REGISTRY_FILES;

/** The largest job state read: 2.1.328 writes about 1 KiB (its flags, intent and needs). */
export const MAX_JOB_STATE_BYTES = 64 * 1024;

/** The longest string kept from a record (a name, a cwd, what it waits on). */
export const MAX_REGISTRY_FIELD_CHARS = 4096;

export type RegistryStatus = 'busy' | 'waiting' | 'idle';

/**
 * What started the session: `interactive` in a terminal, `print` for `claude -p` and the SDK
 * (stream-json), `background` for `claude --bg`, `daemon`/`daemon-worker` for the background service.
 */
export type RegistryKind = 'interactive' | 'print' | 'background' | 'daemon' | 'daemon-worker';

/** A background job's own state, from `jobs/<jobId>/state.json`. */
export interface JobState {
  /** `starting`, `running`, `working`, `blocked`, `done`, `stopped`, `failed`, … as written. */
  state: string | null;
  /** What a blocked job needs from its user (`login required — run /login`). */
  needs: string | null;
  detail: string | null;
  updatedAtMs: number | null;
}

export interface RegistryEntry {
  pid: number;
  sessionId: string | null;
  cwd: string | null;
  status: RegistryStatus | null;
  /** What a waiting session waits on (`permission prompt`), or `background shell` for `shell`. */
  detail: string | null;
  /** When the status last changed, else when the record last changed (ms since the epoch). */
  updatedAtMs: number | null;
  startedAtMs: number | null;
  /** The process exists and is the one that wrote the record (its start time matches). */
  alive: boolean;
  /** Written in another pid namespace or on another machine: its pid says nothing here. */
  foreignPid: boolean;
  kind: RegistryKind | null;
  /** `CLAUDE_CODE_ENTRYPOINT` as written (`cli`, `sdk-cli`, …): `kind` is read from it and the file's kind. */
  entrypoint: string | null;
  /** The session's display name (`work-5d`, or the name the user gave it). */
  name: string | null;
  version: string | null;
  jobId: string | null;
  job: JobState | null;
  /** The config dir the record is in. */
  root: string;
}

export interface RegistryRead {
  entries: RegistryEntry[];
  /** Records skipped: unreadable, oversized, not JSON, or not a record of a pid. */
  bad: number;
}

const RECORD_NAME = /^(\d{1,10})\.json$/;
const JOB_ID = /^[A-Za-z0-9_-]{1,64}$/;

const field = (v: unknown): string | null => {
  const s = str(v);
  return s === null || s.length === 0 ? null : s.slice(0, MAX_REGISTRY_FIELD_CHARS);
};

/** A time in ms since the epoch; anything else (a string, a negative, a far future) is no time. */
const epochMs = (v: unknown): number | null => {
  const n = num(v);
  return n !== null && n >= 0 && n <= 8.64e15 ? n : null;
};

/**
 * The file's text when it is a regular file no larger than `max`; `gone` when it no longer exists (a
 * session that ended between the listing and the read); null when it is refused or unreadable.
 */
type Small = { kind: 'text'; text: string } | { kind: 'gone' } | { kind: 'refused' };

function readSmall(path: string, max: number): Small {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    return { kind: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'refused' };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > max) return { kind: 'refused' };
    // One byte more than allowed tells a file that grew since the stat from one that fits.
    const buf = Buffer.alloc(max + 1);
    let n = 0;
    for (let got = 1; got > 0 && n <= max; n += got) got = readSync(fd, buf, n, max + 1 - n, n);
    return n > max ? { kind: 'refused' } : { kind: 'text', text: buf.toString('utf8', 0, n) };
  } catch {
    return { kind: 'refused' };
  } finally {
    closeSync(fd);
  }
}

function statusOf(v: unknown): { status: RegistryStatus | null; shell: boolean } {
  switch (v) {
    case 'busy':
    case 'waiting':
    case 'idle':
      return { status: v, shell: false };
    // At the prompt, with a background shell still running: the user's turn all the same.
    case 'shell':
      return { status: 'idle', shell: true };
    default:
      return { status: null, shell: false };
  }
}

function kindOf(kind: string | null, entrypoint: string | null): RegistryKind | null {
  switch (kind) {
    case 'interactive':
      // 2.1.328 calls a `-p` run interactive too; only its entrypoint (`sdk-cli`, `sdk-ts`, …) tells.
      return entrypoint?.startsWith('sdk') ? 'print' : 'interactive';
    case 'bg':
      return 'background';
    case 'daemon':
    case 'daemon-worker':
      return kind;
    default:
      return null;
  }
}

/** This machine's pid domain as Claude Code spells it (`linux:<machine id>:pid:[<ns inode>]`), if known. */
function ourPidDomain(): string | null {
  if (process.platform !== 'linux') return null;
  try {
    const machine = readFileSync('/etc/machine-id', 'utf8').trim();
    const ns = readlinkSync('/proc/self/ns/pid');
    return machine && ns ? `linux:${machine}:${ns}` : null;
  } catch {
    return null;
  }
}

/** When a process started, in clock ticks since boot (`/proc/<pid>/stat` field 22), where readable. */
function procStart(pid: number): string | null {
  const stat = readSmall(`/proc/${pid}/stat`, 4096);
  if (stat.kind !== 'text') return null;
  // The command name in parentheses may hold spaces and parentheses: count fields after the last one.
  const rest = stat.text.slice(stat.text.lastIndexOf(')') + 2).split(' ');
  return rest[19] ?? null;
}

function readJob(root: string, jobId: string): JobState | null {
  const text = readSmall(join(root, 'jobs', jobId, 'state.json'), MAX_JOB_STATE_BYTES);
  const o = text.kind === 'text' ? obj(parseJson(text.text)) : null;
  if (o === null) return null;
  const at = str(o.updatedAt);
  const ms = at === null ? Number.NaN : Date.parse(at);
  return {
    state: field(o.state),
    needs: field(o.needs),
    detail: field(o.detail),
    updatedAtMs: Number.isFinite(ms) ? ms : null,
  };
}

/** Up to `MAX_REGISTRY_NAMES` names in `dir`, in the order the file system gives them; none when unreadable. */
function listNames(dir: string): string[] {
  const names: string[] = [];
  try {
    const d = opendirSync(dir);
    try {
      for (let e = d.readSync(); e !== null && names.length < MAX_REGISTRY_NAMES; e = d.readSync()) {
        names.push(e.name);
      }
    } finally {
      d.closeSync();
    }
  } catch {
    // No folder, or not one we may read: no records.
  }
  return names;
}

interface Context {
  domain: string | null;
  /** Whether this pid exists and started when the record says; a test stands in for the process table. */
  alive(pid: number, started: string | null): boolean;
}

function entryOf(root: string, pid: number, text: string, ctx: Context): RegistryEntry | null {
  const o = obj(parseJson(text));
  if (o === null) return null;
  // A record names its own pid; one that names another (a copy, a torn write) is not believed.
  if (o.pid !== undefined && o.pid !== pid) return null;
  const { status, shell } = statusOf(o.status);
  const entrypoint = field(o.entrypoint);
  const domain = field(o.pidDomain);
  const foreignPid = domain !== null && ctx.domain !== null && domain !== ctx.domain;
  const jobId = field(o.jobId);
  const validJob = jobId !== null && JOB_ID.test(jobId) ? jobId : null;
  return {
    pid,
    sessionId: field(o.sessionId),
    cwd: field(o.cwd),
    status,
    detail: status === 'waiting' ? field(o.waitingFor) : shell ? 'background shell' : null,
    updatedAtMs: epochMs(o.statusUpdatedAt) ?? epochMs(o.updatedAt),
    startedAtMs: epochMs(o.startedAt),
    alive: !foreignPid && ctx.alive(pid, field(o.procStart)),
    foreignPid,
    kind: kindOf(field(o.kind), entrypoint),
    entrypoint,
    name: field(o.name),
    version: field(o.version),
    jobId: validJob,
    job: validJob === null ? null : readJob(root, validJob),
    root,
  };
}

const liveProcess = (pid: number, started: string | null): boolean => {
  if (!pidRuns(pid)) return false;
  const now = started === null ? null : procStart(pid);
  // A pid reused by another process since the record was written started at another time.
  return started === null || now === null || now === started;
};

/**
 * Every record in every Claude config dir, oldest pid first within a dir. `o.alive` replaces the
 * process check (tests); records of dead processes are returned too, marked, so a caller can tell a
 * crash's leftovers from a live session.
 */
export function readClaudeRegistry(
  env: Env,
  o: { alive?: (pid: number, started: string | null) => boolean } = {},
): RegistryRead {
  const ctx: Context = { domain: ourPidDomain(), alive: o.alive ?? liveProcess };
  const entries: RegistryEntry[] = [];
  let bad = 0;
  for (const { path: root } of claudeRoots(env)) {
    const dir = join(root, 'sessions');
    const names = listNames(dir);
    const pids: number[] = [];
    for (const name of names) {
      const m = RECORD_NAME.exec(name);
      // `<pid>.<hash>.key` and write-in-progress `.tmp` files sit beside the records.
      if (!m) continue;
      const pid = Number(m[1]);
      // `0012.json` is not how Claude Code names a record; it deletes such files itself.
      if (String(pid) !== m[1] || pid <= 0) bad++;
      else pids.push(pid);
    }
    pids.sort((a, b) => a - b);
    if (pids.length > MAX_REGISTRY_FILES) bad += pids.length - MAX_REGISTRY_FILES;
    for (const pid of pids.slice(0, MAX_REGISTRY_FILES)) {
      const read = readSmall(join(dir, `${pid}.json`), MAX_REGISTRY_FILE_BYTES);
      if (read.kind === 'gone') continue;
      const e = read.kind === 'text' ? entryOf(root, pid, read.text, ctx) : null;
      if (e) entries.push(e);
      else bad++;
    }
  }
  return { entries, bad };
}
