import { describe, expect, it } from 'vitest';
import { explain, type HostFailure, runFailure } from './failure.js';
import type { SshRun } from './ssh.js';

const exited = (code: number, stderr: string): SshRun => ({
  kind: 'exited',
  code,
  stdout: Buffer.alloc(0),
  stderr,
  ms: 5,
});
const kind = (run: SshRun): HostFailure['kind'] | undefined => runFailure(run)?.failure.kind;

/** What OpenSSH 9.2p1 (Debian 12) printed, run against a test sshd, unless said otherwise. */
const SAID = {
  unknownKey:
    'No ED25519 host key is known for [127.0.0.1]:36253 and you have requested strict checking.\r\nHost key verification failed.\r\n',
  changedKey: [
    '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
    '@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @',
    '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
    'IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!',
    'Host key for [127.0.0.1]:38222 has changed and you have requested strict checking.',
    'Host key verification failed.',
    '',
  ].join('\r\n'),
  denied: 'root@127.0.0.1: Permission denied (publickey).\r\n',
  noName: 'ssh: Could not resolve hostname nosuch.invalid: Name or service not known\r\n',
  refused: 'ssh: connect to host 127.0.0.1 port 1: Connection refused\r\n',
  banner: 'Connection timed out during banner exchange\r\nConnection to UNKNOWN port 65535 timed out\r\n',
  /** From OpenSSH's own wording (no routeless network to try it on here). */
  noRoute: 'ssh: connect to host 10.255.255.1 port 22: No route to host\r\n',
  /** GNU coreutils `env` on the far side (cctop runs the remote cctop through it). */
  noCctop: "env: 'cctop': No such file or directory\n",
  noPath: "env: '/opt/cctop': No such file or directory\n",
  noNode: "/usr/bin/env: 'node': No such file or directory\n",
  /** macOS's `env`. */
  noNodeBsd: 'env: node: No such file or directory\n',
};

describe('what a failed run over ssh means', () => {
  it('tells ssh’s own failures apart by what it said', () => {
    expect(kind(exited(255, SAID.unknownKey))).toBe('host-key-unknown');
    expect(kind(exited(255, SAID.changedKey))).toBe('host-key-changed');
    expect(kind(exited(255, SAID.denied))).toBe('denied');
    expect(kind(exited(255, SAID.noName))).toBe('no-such-host');
    expect(kind(exited(255, SAID.refused))).toBe('refused');
    expect(kind(exited(255, SAID.banner))).toBe('unreachable');
    expect(kind(exited(255, SAID.noRoute))).toBe('unreachable');
    expect(kind(exited(255, 'kex_exchange_identification: read: Connection reset by peer\r\n'))).toBe(
      'unreachable',
    );
    expect(kind(exited(255, 'something new\r\n'))).toBe('ssh-failed');
  });

  it('a command the remote shell could not find is cctop missing, or the node it runs on', () => {
    expect(kind(exited(127, SAID.noCctop))).toBe('no-cctop');
    expect(kind(exited(127, SAID.noPath))).toBe('no-cctop');
    expect(kind(exited(127, "env: '/opt/node/bin/cctop': No such file or directory\n"))).toBe('no-cctop');
    expect(kind(exited(127, SAID.noNode))).toBe('no-node');
    expect(kind(exited(127, SAID.noNodeBsd))).toBe('no-node');
  });

  it('a run that exited 0 is not a failure; any other exit is the remote cctop’s', () => {
    expect(runFailure(exited(0, 'banner\n'))).toBeNull();
    expect(runFailure(exited(2, 'cctop: unknown option --json\n'))).toEqual({
      failure: { kind: 'remote-failed', code: 2 },
      said: 'cctop: unknown option --json',
    });
  });

  it('keeps the first lines ssh said, for doctor', () => {
    expect(runFailure(exited(255, SAID.unknownKey))?.said).toBe(
      'No ED25519 host key is known for [127.0.0.1]:36253 and you have requested strict checking. / Host key verification failed.',
    );
  });
});

describe('the fix', () => {
  it('says what to run for each failure', () => {
    expect(explain('devbox', { kind: 'host-key-unknown' })).toContain('run `ssh devbox` once');
    expect(explain('devbox', { kind: 'denied' })).toContain('ssh-copy-id devbox');
    expect(explain('devbox', { kind: 'no-cctop' })).toContain(
      "ssh devbox 'cd path/to/cctop-clone && npm ci && npm install -g .'",
    );
    expect(explain('devbox', { kind: 'refused' })).toContain('sshd is not running');
    expect(explain('devbox', { kind: 'timeout', ms: 20_000 })).toContain('no answer within 20 s');
    expect(explain('devbox', { kind: 'version', remote: 0, ours: 1 })).toContain('too old');
    expect(explain('devbox', { kind: 'version', remote: 2, ours: 1 })).toContain('newer');
  });
});
