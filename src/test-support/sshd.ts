/**
 * A real OpenSSH server on 127.0.0.1 for the `--host` tests, made afresh for each run in a temp
 * directory: its own host key, a client key authorized for the current user, an sshd_config (a free
 * port, `ListenAddress 127.0.0.1`, no PAM, `StrictModes no` since the temp directory is not the
 * user's home), and a client config whose Host aliases point at it. The machine's own sshd, host
 * keys and the user's keys are never touched: the client is run with `-F` (through a wrapper named
 * by `CCTOP_SSH`), so not even `~/.ssh/config` is read.
 *
 * The one thing outside the temp directory: sshd run as root insists on its privilege-separation
 * directory (`/run/sshd`, which the Debian service makes at boot); it is made, empty, when missing.
 *
 * Tests skip without `/usr/sbin/sshd` (Debian `openssh-server`, which `.ci/run` installs).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { REPO, tempDir } from './corpus.js';
import { freePort, untilReady } from './spawn-ready.js';

export const SSHD = '/usr/sbin/sshd';
export const HAVE_SSHD =
  existsSync(SSHD) &&
  spawnSync('ssh', ['-V']).status === 0 &&
  spawnSync('ssh-keygen', ['-?']).error === undefined;
export const NO_SSHD_REASON = `no OpenSSH server at ${SSHD}; the --host tests are skipped (apt-get install openssh-server openssh-client)`;

/** How long sshd may take to listen: it reads a config and a key, so a second is already slow. */
const LISTEN_WAIT_MS = 10_000;

function keygen(path: string): void {
  const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'cctop-test', '-f', path]);
  if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
}

/** A Host alias in the client config. */
export interface Alias {
  name: string;
  /** The key to log in with (default: the authorized client key). */
  identity?: string;
  /** false: a known_hosts file without the server's key. */
  knownHost?: boolean;
  proxyCommand?: string;
}

export class TestSshd {
  readonly dir: string;
  readonly cleanupDir: () => void;
  /** The directory cctop keeps its ControlMaster sockets in (`CCTOP_RUNTIME_DIR`). */
  readonly runtimeDir: string;
  readonly clientKey: string;
  /** A key the server does not accept. */
  readonly strangerKey: string;
  /** The ssh wrapper to give cctop as `CCTOP_SSH`. */
  readonly ssh: string;
  port = 0;
  log = '';
  private child: ChildProcess | null = null;
  private readonly aliases: Alias[] = [];

  constructor() {
    const t = tempDir('cctop-sshd-');
    this.dir = t.dir;
    this.cleanupDir = t.cleanup;
    this.runtimeDir = join(this.dir, 'run');
    mkdirSync(this.runtimeDir, { mode: 0o700 });
    keygen(join(this.dir, 'host_key'));
    this.clientKey = join(this.dir, 'client_key');
    keygen(this.clientKey);
    this.strangerKey = join(this.dir, 'stranger_key');
    keygen(this.strangerKey);
    writeFileSync(join(this.dir, 'authorized_keys'), readFileSync(`${this.clientKey}.pub`));
    writeFileSync(join(this.dir, 'empty_known_hosts'), '');
    this.ssh = join(this.dir, 'ssh');
    writeFileSync(this.ssh, `#!/bin/sh\nexec ssh -F '${join(this.dir, 'ssh_config')}' "$@"\n`);
    chmodSync(this.ssh, 0o755);
  }

  /** Start sshd on a free port and wait until it listens. */
  async start(): Promise<void> {
    if (this.port === 0) this.port = await freePort();
    if (process.getuid?.() === 0 && !existsSync('/run/sshd')) mkdirSync('/run/sshd', { mode: 0o755 });
    const config = join(this.dir, 'sshd_config');
    writeFileSync(
      config,
      [
        `Port ${this.port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${join(this.dir, 'host_key')}`,
        `AuthorizedKeysFile ${join(this.dir, 'authorized_keys')}`,
        'StrictModes no',
        `PidFile ${join(this.dir, 'sshd.pid')}`,
        'UsePAM no',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PermitRootLogin prohibit-password',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(this.dir, 'known_hosts'),
      `[127.0.0.1]:${this.port} ${readFileSync(join(this.dir, 'host_key.pub'), 'utf8')}`,
    );
    this.writeClientConfig();
    const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    await untilReady(child, {
      name: 'sshd',
      line: 'Server listening',
      late: 'did not listen',
      waitMs: LISTEN_WAIT_MS,
      onText: (text) => {
        this.log += text;
      },
    });
  }

  /** Stop sshd, and every master connection cctop left, so nothing answers on the port any more. */
  async stop(): Promise<void> {
    this.closeMasters();
    const child = this.child;
    this.child = null;
    if (child === null || child.exitCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await gone;
  }

  /** Ask every ControlMaster in the runtime directory to exit (their sshd sessions end with them). */
  closeMasters(): void {
    if (!existsSync(this.runtimeDir)) return;
    for (const name of readdirSync(this.runtimeDir).filter((n) => n.startsWith('m-')))
      spawnSync('ssh', ['-o', `ControlPath=${join(this.runtimeDir, name)}`, '-O', 'exit', 'master'], {
        stdio: 'ignore',
        timeout: 5_000,
      });
  }

  async cleanup(): Promise<void> {
    await this.stop();
    this.cleanupDir();
  }

  /** Add a Host alias for this server to the client config. */
  alias(a: Alias): string {
    this.aliases.push(a);
    this.writeClientConfig();
    return a.name;
  }

  private writeClientConfig(): void {
    const user = userInfo().username;
    const blocks = this.aliases.map((a) =>
      [
        `Host ${a.name}`,
        '  HostName 127.0.0.1',
        `  Port ${this.port}`,
        `  User ${user}`,
        `  IdentityFile ${a.identity ?? this.clientKey}`,
        '  IdentitiesOnly yes',
        '  IdentityAgent none',
        `  UserKnownHostsFile ${join(this.dir, a.knownHost === false ? 'empty_known_hosts' : 'known_hosts')}`,
        '  GlobalKnownHostsFile /dev/null',
        '  StrictHostKeyChecking yes',
        ...(a.proxyCommand ? [`  ProxyCommand ${a.proxyCommand}`] : []),
      ].join('\n'),
    );
    writeFileSync(join(this.dir, 'ssh_config'), `${blocks.join('\n\n')}\n`);
  }

  /**
   * A cctop for the far side: a script that runs this repository's `dist/cli.js` with `home` as its
   * `$HOME` (what `--host alias:<script>` names), on the node running the tests, in the time zone `tz`.
   */
  remoteCctop(home: string, name = 'remote-cctop', tz = 'UTC'): string {
    const path = join(this.dir, name);
    writeFileSync(
      path,
      [
        '#!/bin/sh',
        `HOME='${home}' CCTOP_CACHE_DIR='${join(home, '.cache', 'cctop')}' CCTOP_RUNTIME_DIR='${join(home, 'run')}' TZ=${tz}`,
        'export HOME CCTOP_CACHE_DIR CCTOP_RUNTIME_DIR TZ',
        `exec '${process.execPath}' '${join(REPO, 'dist', 'cli.js')}' "$@"`,
        '',
      ].join('\n'),
    );
    chmodSync(path, 0o755);
    return path;
  }
}
