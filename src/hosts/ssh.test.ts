import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/corpus.js';
import { standInSsh } from '../test-support/stand-in-ssh.js';
import { MAX_CONTROL_PATH_BYTES, MAX_REMOTE_DOCUMENT_BYTES } from './bounds.js';
import { controlPath, hostWaitMs, remoteCommand, runRemote, shellWord, sshArgs } from './ssh.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('cctop-ssh-'));
});
afterEach(() => cleanup());

const host = { name: 'devbox', cctop: null };

describe('the command the remote shell runs', () => {
  it('quotes what the shell would otherwise read, and leaves plain words bare', () => {
    expect(shellWord('--json')).toBe('--json');
    expect(shellWord('2026-01-02')).toBe('2026-01-02');
    expect(shellWord("it's $(rm -rf /)")).toBe(`'it'\\''s $(rm -rf /)'`);
    // What the shell makes of it: the word as given.
    expect(spawnSync('sh', ['-c', `printf %s ${shellWord("it's $(echo no) `x`")}`]).stdout.toString()).toBe(
      "it's $(echo no) `x`",
    );
  });

  it('runs cctop from the PATH, or the path given with its ~ left for the remote shell', () => {
    expect(remoteCommand(host, ['--json'])).toBe('env CCTOP_HOSTS= cctop --json');
    expect(remoteCommand({ name: 'd', cctop: '~/my tools/cctop' }, ['--json'])).toBe(
      "env CCTOP_HOSTS= ~/'my tools/cctop' --json",
    );
  });
});

describe('ssh’s arguments', () => {
  it('never ask, time out, and end options before the host', () => {
    const args = sshArgs(host, 'cmd', { CCTOP_RUNTIME_DIR: dir }, 20_000);
    expect(args).toContain('BatchMode=yes');
    expect(args).toContain('ConnectTimeout=10');
    expect(args.slice(-3)).toEqual(['--', 'devbox', 'cmd']);
  });

  it('share one master connection per host in the runtime directory', () => {
    const args = sshArgs(host, 'cmd', { CCTOP_RUNTIME_DIR: dir }, 20_000);
    expect(args).toContain('ControlMaster=auto');
    const path = args.find((a) => a.startsWith('ControlPath='))!.slice('ControlPath='.length);
    expect(path.startsWith(`${dir}/m-`)).toBe(true);
    expect(controlPath({ name: 'other', cctop: null }, { CCTOP_RUNTIME_DIR: dir })).not.toBe(path);
  });

  it('connect without a master when the runtime directory is too deep for a socket path', () => {
    const deep = join(dir, 'd'.repeat(MAX_CONTROL_PATH_BYTES));
    expect(controlPath(host, { CCTOP_RUNTIME_DIR: deep })).toBeNull();
    expect(sshArgs(host, 'cmd', { CCTOP_RUNTIME_DIR: deep }, 20_000)).not.toContain('ControlMaster=auto');
  });

  it('write a % in the runtime directory as ssh reads it', () => {
    const odd = join(dir, '50%');
    mkdirSync(odd, { mode: 0o700 });
    expect(controlPath(host, { CCTOP_RUNTIME_DIR: odd })).toMatch(/\/50%%\/m-[0-9a-f]+$/);
  });

  it('take their wait from CCTOP_HOST_TIMEOUT when it is a number of seconds', () => {
    expect(hostWaitMs({ CCTOP_HOST_TIMEOUT: '2.5' })).toBe(2500);
    expect(hostWaitMs({ CCTOP_HOST_TIMEOUT: 'soon' })).toBe(hostWaitMs({}));
    // ssh's own connect timeout outlasts a short wait, so the failure is always named by the wait.
    expect(sshArgs(host, 'cmd', { CCTOP_RUNTIME_DIR: dir }, 3_000)).toContain('ConnectTimeout=6');
    expect(sshArgs(host, 'cmd', { CCTOP_RUNTIME_DIR: dir }, 10_000)).toContain('ConnectTimeout=13');
  });
});

/** A stand-in ssh: a script run with ssh's arguments. */
function fakeSsh(body: string): string {
  return standInSsh(dir, [body]).CCTOP_SSH;
}

describe('a run over ssh', () => {
  it('gives the remote command’s output and exit', async () => {
    const ssh = fakeSsh('echo "$@"; echo oops >&2; exit 3');
    const r = await runRemote(host, ['--json'], { env: { CCTOP_SSH: ssh, CCTOP_RUNTIME_DIR: dir } });
    expect(r).toMatchObject({ kind: 'exited', code: 3, stderr: 'oops\n' });
    if (r.kind === 'exited') expect(r.stdout.toString()).toContain('-- devbox env CCTOP_HOSTS= cctop --json');
  });

  it('is stopped at its wait, with whatever it started (a ProxyCommand) killed with it', async () => {
    const marker = join(dir, 'still-running');
    const ssh = fakeSsh(`(sleep 2; touch '${marker}') & echo connecting >&2; sleep 30`);
    const started = Date.now();
    const r = await runRemote(host, [], { env: { CCTOP_SSH: ssh, CCTOP_RUNTIME_DIR: dir }, waitMs: 300 });
    expect(r).toMatchObject({ kind: 'timeout', stderr: 'connecting\n' });
    expect(Date.now() - started).toBeLessThan(5_000);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(existsSync(marker)).toBe(false);
  });

  it(`is stopped once it sends more than ${MAX_REMOTE_DOCUMENT_BYTES / 1024 / 1024} MiB`, async () => {
    const ssh = fakeSsh(`head -c ${MAX_REMOTE_DOCUMENT_BYTES + 1024} /dev/zero`);
    const r = await runRemote(host, [], { env: { CCTOP_SSH: ssh, CCTOP_RUNTIME_DIR: dir } });
    expect(r.kind).toBe('too-large');
  });

  it('says so when there is no ssh to run', async () => {
    const r = await runRemote(host, [], {
      env: { CCTOP_SSH: join(dir, 'no-such-ssh'), CCTOP_RUNTIME_DIR: dir },
    });
    expect(r).toMatchObject({ kind: 'no-ssh', why: expect.stringContaining('ENOENT') });
  });
});
