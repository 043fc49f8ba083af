/**
 * Why a host could not be read, told as the fix. ssh says what went wrong in its own words on stderr
 * ("Host key verification failed.", "Permission denied (publickey)."), the remote shell in its own
 * ("cctop: command not found"); this turns each into one kind of failure and each kind into a
 * sentence saying what to run. ssh's exact text is kept beside it for `cctop doctor`.
 *
 * The matching is on stable phrases OpenSSH has printed for many years (checked against
 * OpenSSH 9.2); a phrase it does not know falls through to `ssh-failed` with ssh's own first line,
 * never to a guess.
 *
 * Not here: running ssh (`ssh.ts`) or reading the document (`remote-doc.ts`).
 */
import { MAX_REMOTE_DOCUMENT_BYTES } from './bounds.js';
import type { SshRun } from './ssh.js';

/**
 * How cctop gets onto a machine's PATH. It is not on the npm registry (`npm install -g cctop` finds
 * nothing), so it is installed from a clone of its repository: `npm ci` builds it there and
 * `npm install -g .` links that build onto PATH (`npm link` does the same; `npm pack` makes a tarball
 * that `npm install -g ./cctop-<version>.tgz` installs on a machine without a clone).
 */
export const INSTALL_FROM_CLONE = 'npm ci && npm install -g .';

/** The command that installs cctop on `host` from a clone there, as one line to paste. */
export function installOn(host: string): string {
  return `ssh ${host} 'cd path/to/cctop-clone && ${INSTALL_FROM_CLONE}'`;
}

/** How to update the cctop running here: in the clone it was installed from. */
export const UPDATE_HERE = `in this cctop's clone, \`git pull && ${INSTALL_FROM_CLONE}\``;

export type HostFailure =
  | { kind: 'no-ssh'; program: string; why: string }
  | { kind: 'timeout'; ms: number }
  | { kind: 'host-key-unknown' }
  | { kind: 'host-key-changed' }
  | { kind: 'denied' }
  | { kind: 'no-such-host' }
  | { kind: 'refused' }
  | { kind: 'unreachable' }
  | { kind: 'no-cctop' }
  | { kind: 'no-node' }
  | { kind: 'too-large' }
  | { kind: 'remote-failed'; code: number | null }
  | { kind: 'ssh-failed' }
  | { kind: 'not-a-document'; why: string }
  | { kind: 'version'; remote: number; ours: number };

/** A failure with ssh's own words (its stderr, first lines), for doctor. */
export interface Failed {
  failure: HostFailure;
  /** What ssh or the remote shell said, trimmed; empty when nothing. */
  said: string;
}

/** The first few non-empty lines of `stderr`: what ssh said, without a banner's tail. */
export function firstLines(stderr: string, lines = 3): string {
  return stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .slice(0, lines)
    .join(' / ');
}

/** What ssh's stderr means when it failed itself (exit 255). */
function sshFailure(stderr: string): HostFailure {
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i.test(stderr))
    return { kind: 'host-key-changed' };
  if (/Host key verification failed|No .* host key is known/i.test(stderr))
    return { kind: 'host-key-unknown' };
  if (/Permission denied/i.test(stderr)) return { kind: 'denied' };
  if (/Could not resolve hostname|Name or service not known|nodename nor servname/i.test(stderr))
    return { kind: 'no-such-host' };
  if (/Connection refused/i.test(stderr)) return { kind: 'refused' };
  if (/No route to host|Network is unreachable|timed out|Connection closed by|Connection reset/i.test(stderr))
    return { kind: 'unreachable' };
  return { kind: 'ssh-failed' };
}

/** `env` (GNU: `'node'`, BSD: `node:`) or a shell saying the node in cctop's `#!` line is missing. */
const NODE_MISSING = /'node'|\bnode: /;

/**
 * What a run that did not give a document means; null when it exited 0 (the document is then read).
 * Exit 127 is the shell's "command not found" (and `env`'s): the cctop, or the node it runs on.
 */
export function runFailure(run: SshRun): Failed | null {
  switch (run.kind) {
    case 'no-ssh':
      return { failure: { kind: 'no-ssh', program: run.program, why: run.why }, said: run.why };
    case 'timeout':
      return { failure: { kind: 'timeout', ms: run.ms }, said: firstLines(run.stderr) };
    case 'too-large':
      return { failure: { kind: 'too-large' }, said: '' };
    case 'exited': {
      const said = firstLines(run.stderr);
      if (run.code === 0) return null;
      if (run.code === 255) return { failure: sshFailure(run.stderr), said };
      if (run.code === 127)
        return { failure: { kind: NODE_MISSING.test(run.stderr) ? 'no-node' : 'no-cctop' }, said };
      return { failure: { kind: 'remote-failed', code: run.code }, said };
    }
  }
}

/** `devbox` for a host read with its default cctop; how to run a command there. */
const sshTo = (host: string) => `ssh ${host}`;

/** The failure as one sentence: what is wrong and what to run. */
export function explain(host: string, f: HostFailure): string {
  switch (f.kind) {
    case 'no-ssh':
      return `cannot run ${f.program} (${f.why}): install OpenSSH's client, or set CCTOP_SSH to your ssh`;
    case 'timeout':
      return `no answer within ${Math.round(f.ms / 1000)} s: check that \`${sshTo(host)} true\` returns quickly (a slow ProxyCommand or jump host?), or raise CCTOP_HOST_TIMEOUT (seconds)`;
    case 'host-key-unknown':
      return `ssh does not know ${host}'s host key and cctop never answers ssh's questions (BatchMode): run \`${sshTo(host)}\` once in a terminal and accept the key`;
    case 'host-key-changed':
      return `${host}'s host key has changed since ssh last saw it: if you expected that (a reinstalled machine), remove the old key with \`ssh-keygen -R <host>\` and connect once with \`${sshTo(host)}\`; if not, find out why first`;
    case 'denied':
      return `ssh could not log in to ${host} with a key, and cctop never types a password (BatchMode): load your key with \`ssh-add\`, or install it there with \`ssh-copy-id ${host}\``;
    case 'no-such-host':
      return `no machine is called ${host}: check the spelling, or add a Host entry for it in ~/.ssh/config`;
    case 'refused':
      return `${host} refused the connection: sshd is not running there, or listens on another port (set Port for it in ~/.ssh/config)`;
    case 'unreachable':
      return `${host} cannot be reached: check the network or VPN, and that \`${sshTo(host)} true\` works`;
    case 'no-cctop':
      return `cctop is not installed on ${host}, or not on the PATH of a non-interactive ssh session: install it from a clone of cctop there (it is not on the npm registry), \`${installOn(host)}\`, or name it: --host ${host}:/path/to/cctop`;
    case 'no-node':
      return `cctop is on ${host} but node is not on the PATH of a non-interactive ssh session: give the path of a cctop that finds node, --host ${host}:/path/to/cctop, or add node's directory to the PATH in ~/.ssh/environment or the shell's non-interactive startup file`;
    case 'too-large':
      return `${host} sent more than ${MAX_REMOTE_DOCUMENT_BYTES / 1024 / 1024} MiB; its sessions are not shown (narrow it with --since or --provider)`;
    case 'remote-failed':
      return `the cctop on ${host} failed (exit ${f.code ?? 'by a signal'}): run \`${sshTo(host)} cctop doctor\` to see why`;
    case 'ssh-failed':
      return `ssh to ${host} failed: run \`${sshTo(host)} true\` to see why`;
    case 'not-a-document':
      return `the cctop on ${host} did not answer with a session document (${f.why}): install this cctop there from a clone, \`${installOn(host)}\`, or name it: --host ${host}:/path/to/cctop`;
    case 'version':
      return f.remote > f.ours
        ? `the cctop on ${host} is newer (session document version ${f.remote}, this one reads ${f.ours}): update this cctop: ${UPDATE_HERE}`
        : `the cctop on ${host} is too old (session document version ${f.remote}, this one reads ${f.ours}): update it from its clone there, \`${installOn(host)}\` after a \`git pull\``;
  }
}
