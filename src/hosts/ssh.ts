/**
 * One command on another machine through the system `ssh`, so the user's own config, agent, keys and
 * jump hosts work as they do in their terminal. cctop adds only what a program needs that a person
 * does not: never ask for anything (`BatchMode`), give up on a dead network (`ConnectTimeout`,
 * keep-alives), and log in once per host (a ControlMaster socket in the runtime directory, kept a
 * while after its last use).
 *
 * Everything the far side sends is bounded: stdout to `MAX_REMOTE_DOCUMENT_BYTES`, stderr to
 * `MAX_SSH_STDERR_BYTES`, and the whole run to a wait after which ssh's process group (and any
 * `ProxyCommand` it started) is killed. A master that has already gone to the background is left to
 * its ControlPersist: it is the point of having one.
 *
 * Not here: what ssh's errors mean (`failure.ts`) or what the output says (`remote-doc.ts`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Env } from '../providers/types.js';
import { runtimeDir } from '../runtime/dir.js';
import {
  CONNECT_AFTER_WAIT_S,
  CONNECT_TIMEOUT_S,
  CONTROL_PERSIST_S,
  HOST_WAIT_MS,
  MAX_CONTROL_PATH_BYTES,
  MAX_HOST_WAIT_MS,
  MAX_REMOTE_DOCUMENT_BYTES,
  MAX_SSH_STDERR_BYTES,
  SERVER_ALIVE_COUNT_MAX,
  SERVER_ALIVE_INTERVAL_S,
} from './bounds.js';
import type { HostSpec } from './target.js';

export type SshRun =
  /** ssh ended by itself: `code` 255 is ssh's own failure, anything else the remote command's exit. */
  | { kind: 'exited'; code: number | null; stdout: Buffer; stderr: string; ms: number }
  /** Stopped at the wait; `stderr` holds what ssh had said so far. */
  | { kind: 'timeout'; stderr: string; ms: number }
  /** Stopped when stdout passed `MAX_REMOTE_DOCUMENT_BYTES`. */
  | { kind: 'too-large'; ms: number }
  /** The ssh program could not be started. */
  | { kind: 'no-ssh'; program: string; why: string };

export interface SshOptions {
  env: Env;
  /** How long to wait for the whole answer; `hostWaitMs(env)` by default. */
  waitMs?: number;
  /** Ends the run early (the view closed). */
  signal?: AbortSignal;
}

/** The ssh program: `CCTOP_SSH` when set (a wrapper, a different build), else `ssh` on the PATH. */
export const sshProgram = (env: Env): string => env.CCTOP_SSH || 'ssh';

/** The one-shot wait on each host: `CCTOP_HOST_TIMEOUT` seconds when it is a sane number, else `HOST_WAIT_MS`. */
export function hostWaitMs(env: Env): number {
  const s = Number(env.CCTOP_HOST_TIMEOUT);
  if (!env.CCTOP_HOST_TIMEOUT || !Number.isFinite(s) || s <= 0) return HOST_WAIT_MS;
  return Math.min(MAX_HOST_WAIT_MS, Math.round(s * 1000));
}

/** A word the remote shell reads as itself: bare when plainly safe, else in single quotes. */
export function shellWord(s: string): string {
  if (/^[A-Za-z0-9_\-.,/:=@+%]+$/.test(s)) return s;
  return `'${s.replaceAll("'", "'\\''")}'`;
}

/** The cctop to run there, quoted; a leading `~/` stays bare so the remote shell expands it. */
function cctopWord(path: string | null): string {
  if (path === null) return 'cctop';
  if (path.startsWith('~/')) return `~/${shellWord(path.slice(2))}`;
  return shellWord(path);
}

/**
 * The command line the remote shell runs. `CCTOP_HOSTS` is emptied there (through `env`, which every
 * login shell runs the same way) so a remote cctop with hosts in its own config does not go on to
 * read them: the table is one hop deep.
 */
export function remoteCommand(host: HostSpec, args: readonly string[]): string {
  return ['env', 'CCTOP_HOSTS=', cctopWord(host.cctop), ...args.map(shellWord)].join(' ');
}

/**
 * The master socket for `host`, or null when there is no usable runtime directory or its path is
 * too long for a socket. One per host name (a short hash, so the path length does not grow with it).
 */
export function controlPath(host: HostSpec, env: Env): string | null {
  const dir = runtimeDir(env);
  if (dir.kind !== 'ok') return null;
  const hash = createHash('sha256').update(host.name).digest('hex').slice(0, 16);
  const path = join(dir.path, `m-${hash}`);
  if (Buffer.byteLength(path) > MAX_CONTROL_PATH_BYTES) return null;
  // ssh expands %-tokens in ControlPath; a literal % in the directory is written %%.
  return path.replaceAll('%', '%%');
}

/** ssh's arguments for running `command` on `host`. */
export function sshArgs(host: HostSpec, command: string, env: Env, waitMs: number): string[] {
  const waitS = Math.max(1, Math.ceil(waitMs / 1000));
  const connect =
    waitS > CONNECT_TIMEOUT_S + CONNECT_AFTER_WAIT_S ? CONNECT_TIMEOUT_S : waitS + CONNECT_AFTER_WAIT_S;
  const args = [
    '-T',
    '-o',
    'BatchMode=yes',
    '-o',
    `ConnectTimeout=${connect}`,
    '-o',
    `ServerAliveInterval=${SERVER_ALIVE_INTERVAL_S}`,
    '-o',
    `ServerAliveCountMax=${SERVER_ALIVE_COUNT_MAX}`,
  ];
  const control = controlPath(host, env);
  if (control !== null)
    args.push(
      '-o',
      'ControlMaster=auto',
      '-o',
      `ControlPath=${control}`,
      '-o',
      `ControlPersist=${CONTROL_PERSIST_S}`,
    );
  args.push('--', host.name, command);
  return args;
}

/** Kill ssh and whatever it started in its group (a ProxyCommand); a gone group is fine. */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** Run `args` (cctop's own, e.g. `--json`) with the remote cctop on `host`. */
export function runRemote(host: HostSpec, args: readonly string[], o: SshOptions): Promise<SshRun> {
  const waitMs = o.waitMs ?? hostWaitMs(o.env);
  const program = sshProgram(o.env);
  const started = Date.now();
  return new Promise<SshRun>((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(program, sshArgs(host, remoteCommand(host, args), o.env, waitMs), {
        env: { ...o.env },
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own group, so a timeout reaches a ProxyCommand too; a Ctrl-C in the terminal still
        // reaches cctop, which then exits and the pipes close.
        detached: true,
      });
    } catch (err) {
      resolve({ kind: 'no-ssh', program, why: (err as Error).message });
      return;
    }
    const out: Buffer[] = [];
    let outBytes = 0;
    const err: Buffer[] = [];
    let errBytes = 0;
    let settled: SshRun | null = null;
    const stop = (r: SshRun) => {
      if (settled !== null) return;
      settled = r;
      killGroup(child);
    };
    const timer = setTimeout(
      () => stop({ kind: 'timeout', stderr: stderrText(), ms: Date.now() - started }),
      waitMs,
    );
    const onAbort = () => stop({ kind: 'timeout', stderr: stderrText(), ms: Date.now() - started });
    o.signal?.addEventListener('abort', onAbort, { once: true });
    function stderrText(): string {
      return Buffer.concat(err).toString('utf8');
    }
    child.stdout?.on('data', (b: Buffer) => {
      outBytes += b.length;
      if (outBytes > MAX_REMOTE_DOCUMENT_BYTES) stop({ kind: 'too-large', ms: Date.now() - started });
      else out.push(b);
    });
    child.stderr?.on('data', (b: Buffer) => {
      if (errBytes >= MAX_SSH_STDERR_BYTES) return;
      const kept = b.subarray(0, MAX_SSH_STDERR_BYTES - errBytes);
      err.push(kept);
      errBytes += kept.length;
    });
    child.on('error', (e) => {
      if (settled === null) settled = { kind: 'no-ssh', program, why: e.message };
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      resolve(
        settled ?? {
          kind: 'exited',
          code,
          stdout: Buffer.concat(out),
          stderr: stderrText(),
          ms: Date.now() - started,
        },
      );
    });
  });
}
