/**
 * Named sessions: a caller's name for a conversation, mapped to the agent's session id, per project.
 *
 * A CI bot or an editor wants to say "continue `review`" rather than keep agent-specific ids. The
 * store keeps one small JSON file per name under `<dir>/<project>/<name>.json`, written atomically
 * (temp file, fsync, rename, directory fsync) with owner-only permissions, because a session id
 * resumes a conversation that may hold anything the agent read. A `.lock` file held for the whole
 * run stops two runs binding the same name at once; a lock left by a dead process is taken over.
 *
 * It does not store transcripts or anything else of the agent's: only which id a name means.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { homedir, hostname } from 'node:os';
import { basename, join } from 'node:path';
import { obj, str } from '../model/json.js';
import { pidRuns } from '../pid.js';
import { MAX_IDENTIFIER_BYTES, usableId } from './bounds.js';
import type { Env } from './env.js';
import { DriveError } from './errors.js';
import { type AgentId, isAgentId } from './events.js';

/**
 * The longest session name, in bytes. A name becomes a file name percent-encoded, which can triple
 * it, and file names stop at 255 bytes: 80 × 3 plus `.json.lock` fits. Longer names are refused,
 * never shortened: two long names sharing a prefix would otherwise share a session.
 */
export const MAX_SESSION_NAME_BYTES = 80;

/** The largest record file read back: a record is a few hundred bytes; anything larger is not one. */
const MAX_RECORD_BYTES = 4 * MAX_IDENTIFIER_BYTES;

export interface SessionRecord {
  version: 1;
  name: string;
  /** The project directory the name belongs to. */
  project: string;
  agent: AgentId;
  /** The agent's session id. */
  session: string;
  /** ISO times. */
  created: string;
  updated: string;
}

/** A held lock on one name; `release` is idempotent. */
export interface Lease {
  release(): void;
}

/** `$XDG_STATE_HOME/cctop/sessions`, else `~/.local/state/cctop/sessions`. */
export function defaultSessionDir(env: Env = process.env): string {
  const state = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(state, 'cctop', 'sessions');
}

function checkName(name: string): void {
  if (name === '' || Buffer.byteLength(name) > MAX_SESSION_NAME_BYTES) {
    throw new DriveError({
      kind: 'invalid_request',
      what: `a session name must be 1 to ${MAX_SESSION_NAME_BYTES} bytes (got ${Buffer.byteLength(name)})`,
    });
  }
}

/** A file name for `name`: percent-encoded, including the characters Windows forbids. */
const fileName = (name: string): string =>
  encodeURIComponent(name).replace(/[!'()*.]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** A readable, collision-free directory name for a project path. */
function projectDir(project: string): string {
  const tail =
    basename(project)
      .replace(/[^A-Za-z0-9_-]/g, '-')
      .slice(0, 40) || 'root';
  return `${tail}-${createHash('sha256').update(project).digest('hex').slice(0, 12)}`;
}

export class SessionStore {
  constructor(readonly dir: string = defaultSessionDir()) {}

  private paths(project: string, name: string): { dir: string; file: string; lock: string } {
    checkName(name);
    const dir = join(this.dir, projectDir(project));
    const file = join(dir, `${fileName(name)}.json`);
    return { dir, file, lock: `${file}.lock` };
  }

  private fail(path: string, e: unknown): DriveError {
    if (e instanceof DriveError) return e;
    const err = e as NodeJS.ErrnoException;
    return new DriveError({ kind: 'store', path, cause: err.code ?? err.message ?? String(e) });
  }

  private ensureDir(dir: string): void {
    for (const d of [this.dir, dir]) {
      mkdirSync(d, { recursive: true, mode: 0o700 });
      chmodSync(d, 0o700);
    }
  }

  private read(file: string): SessionRecord | null {
    let text: string;
    try {
      const buf = readFileSync(file);
      if (buf.length > MAX_RECORD_BYTES) throw new Error('larger than any session record');
      text = buf.toString('utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw this.fail(file, e);
    }
    let o: Record<string, unknown> | null = null;
    try {
      o = obj(JSON.parse(text));
    } catch {
      o = null;
    }
    const agent = str(o?.agent);
    const session = str(o?.session);
    const name = str(o?.name);
    const project = str(o?.project);
    if (o === null || agent === null || !isAgentId(agent) || session === null || !usableId(session)) {
      throw new DriveError({
        kind: 'store',
        path: file,
        cause: 'not a session record; remove it to reuse the name',
      });
    }
    return {
      version: 1,
      name: name ?? '',
      project: project ?? '',
      agent,
      session,
      created: str(o.created) ?? '',
      updated: str(o.updated) ?? '',
    };
  }

  /** The record for a name, or null when the name is not bound. */
  get(project: string, name: string): SessionRecord | null {
    return this.read(this.paths(project, name).file);
  }

  /** Every name bound in a project. Unreadable records are skipped, not fatal. */
  list(project: string): SessionRecord[] {
    const dir = join(this.dir, projectDir(project));
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return [];
    }
    const out: SessionRecord[] = [];
    for (const f of names.filter((n) => n.endsWith('.json')).sort()) {
      try {
        const r = this.read(join(dir, f));
        if (r !== null) out.push(r);
      } catch {
        // A damaged record is the caller's to forget; it does not hide the others.
      }
    }
    return out;
  }

  /** Bind a name to an agent session, replacing what it meant before. */
  bind(project: string, name: string, agent: AgentId, session: string): SessionRecord {
    if (!usableId(session)) {
      throw new DriveError({ kind: 'invalid_request', what: 'a session id over its bound cannot be bound' });
    }
    const p = this.paths(project, name);
    try {
      this.ensureDir(p.dir);
      const now = new Date().toISOString();
      let created = now;
      try {
        created = this.read(p.file)?.created || now;
      } catch {
        // A damaged record is replaced.
      }
      const record: SessionRecord = { version: 1, name, project, agent, session, created, updated: now };
      const tmp = join(p.dir, `.${fileName(name)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
      const fd = openSync(tmp, 'wx', 0o600);
      try {
        writeSync(fd, `${JSON.stringify(record, null, 2)}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, p.file);
      try {
        // The rename is durable only once the directory is; Windows cannot open a directory, and
        // there the rename alone is the best available.
        const dfd = openSync(p.dir, 'r');
        fsyncSync(dfd);
        closeSync(dfd);
      } catch {}
      return record;
    } catch (e) {
      throw this.fail(p.file, e);
    }
  }

  /** Forget a name. True when it was bound. */
  forget(project: string, name: string): boolean {
    const p = this.paths(project, name);
    try {
      unlinkSync(p.file);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw this.fail(p.file, e);
    }
  }

  /**
   * Hold a name for the length of a run. Throws `session_busy` while another live process holds it.
   *
   * A lock whose process is gone (on this host) is taken over. Two processes taking over the same
   * stale lock at the same instant could both succeed: a deliberate limit, accepted because the
   * alternative (an OS file lock) is not available to Node without a native module.
   */
  acquire(project: string, name: string): Lease {
    const p = this.paths(project, name);
    const mine = JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() });
    try {
      this.ensureDir(p.dir);
    } catch (e) {
      throw this.fail(p.dir, e);
    }
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(p.lock, 'wx', 0o600);
        try {
          writeSync(fd, mine);
        } finally {
          closeSync(fd);
        }
        let held = true;
        return {
          release: () => {
            if (!held) return;
            held = false;
            try {
              if (readFileSync(p.lock, 'utf8') === mine) unlinkSync(p.lock);
            } catch {}
          },
        };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw this.fail(p.lock, e);
      }
      let holder: Record<string, unknown> | null = null;
      try {
        holder = obj(JSON.parse(readFileSync(p.lock, 'utf8')));
      } catch {
        holder = null;
      }
      const pid = typeof holder?.pid === 'number' ? holder.pid : null;
      const sameHost = holder?.host === hostname();
      if (pid !== null && sameHost && !pidRuns(pid)) {
        rmSync(p.lock, { force: true });
        continue;
      }
      throw new DriveError({
        kind: 'session_busy',
        name,
        project,
        holder:
          pid !== null ? `pid ${pid}${sameHost ? '' : ` on ${String(holder?.host)}`}` : 'unknown holder',
      });
    }
    throw new DriveError({ kind: 'session_busy', name, project, holder: 'a process that keeps retaking it' });
  }
}
