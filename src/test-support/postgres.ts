/**
 * A real PostgreSQL server for the team-store tests, made afresh for each run: `initdb` into a temp
 * directory, `postgres` on a free port of 127.0.0.1 (and a unix socket inside the directory), with
 * password (SCRAM) authentication over TCP so that `PGPASSWORD` and `~/.pgpass` are exercised the
 * way a user's would be. The machine's own clusters are never touched.
 *
 * PostgreSQL refuses to run as root. When the tests run as root (CI does), the cluster is owned by
 * and run as the `postgres` user that Debian's package creates, through `setpriv`.
 *
 * Tests skip without the server binaries (Debian `postgresql`, which `.ci/run` installs).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { migrate } from '../store/migrate.js';
import { tempDir } from './corpus.js';
import { freePort, untilReady } from './spawn-ready.js';

/** The newest installed server's bin directory (`/usr/lib/postgresql/<major>/bin`), or null. */
function serverBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const majors = readdirSync(root)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return majors.length === 0 ? null : join(root, majors[0]!, 'bin');
}

const BIN = serverBin();
const AS_ROOT = process.getuid?.() === 0;
/** The account a root run hands the cluster to. */
const SERVICE_USER = 'postgres';

export const HAVE_POSTGRES = BIN !== null && (!AS_ROOT || spawnSync('id', ['-u', SERVICE_USER]).status === 0);
export const NO_POSTGRES_REASON =
  'no PostgreSQL server (/usr/lib/postgresql/*/bin/postgres); the team store tests are skipped (apt-get install postgresql)';

/** The superuser the tests administer the cluster as (the store's owner, who runs migrations). */
export const ADMIN_ROLE = 'cctop_admin';
/** Every role the tests make has this password, with its name after it (`pw-alice`). */
export const passwordOf = (role: string): string => `pw-${role}`;

/** How long the server may take to accept connections: initdb is done, so seconds are already slow. */
const READY_WAIT_MS = 30_000;

/**
 * `argv` run as the cluster's owner: as is, or through `setpriv` when the tests run as root. setpriv
 * execs the program itself (runuser would stay as its parent), so a signal reaches the server.
 */
function asOwner(argv: string[]): [string, string[]] {
  return AS_ROOT
    ? ['setpriv', [`--reuid=${SERVICE_USER}`, `--regid=${SERVICE_USER}`, '--init-groups', '--', ...argv]]
    : [argv[0]!, argv.slice(1)];
}

export class TestPostgres {
  readonly dir: string;
  private readonly cleanupDir: () => void;
  readonly data: string;
  port = 0;
  log = '';
  private child: ChildProcess | null = null;

  constructor() {
    const t = tempDir('cctop-pg-');
    this.dir = t.dir;
    this.cleanupDir = t.cleanup;
    this.data = join(this.dir, 'data');
  }

  /** initdb (once), start the server on a free port, wait until it accepts connections. */
  async start(): Promise<void> {
    if (BIN === null) throw new Error(NO_POSTGRES_REASON);
    if (AS_ROOT) {
      const id = (flag: string) => Number(spawnSync('id', [flag, SERVICE_USER]).stdout.toString().trim());
      chownSync(this.dir, id('-u'), id('-g'));
      chmodSync(this.dir, 0o700);
    }
    if (!existsSync(this.data)) this.initdb();
    if (this.port === 0) this.port = await freePort();
    const [cmd, args] = asOwner([
      join(BIN, 'postgres'),
      '-D',
      this.data,
      '-p',
      String(this.port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${this.dir}`,
      // A test cluster that dies with its run: durability is not what these tests are about.
      '-c',
      'fsync=off',
      '-c',
      'max_connections=200',
    ]);
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    await untilReady(child, {
      name: 'postgres',
      line: 'ready to accept connections',
      late: 'did not start',
      waitMs: READY_WAIT_MS,
      onText: (text) => {
        this.log += text;
      },
    });
  }

  private initdb(): void {
    const pwfile = join(this.dir, 'admin-password');
    writeFileSync(pwfile, `${passwordOf(ADMIN_ROLE)}\n`, { mode: 0o600 });
    if (AS_ROOT) {
      const id = (flag: string) => Number(spawnSync('id', [flag, SERVICE_USER]).stdout.toString().trim());
      chownSync(pwfile, id('-u'), id('-g'));
    }
    const [cmd, args] = asOwner([
      join(BIN!, 'initdb'),
      '-D',
      this.data,
      '-U',
      ADMIN_ROLE,
      `--pwfile=${pwfile}`,
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '--encoding=UTF8',
      '--locale=C',
    ]);
    const r = spawnSync(cmd, args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`initdb failed: ${r.stderr}`);
  }

  /** The URL a role connects with over TCP, without its password (that comes from PGPASSWORD or ~/.pgpass). */
  url(role: string = ADMIN_ROLE, database = 'postgres'): string {
    return `postgres://${encodeURIComponent(role)}@127.0.0.1:${this.port}/${database}`;
  }

  /** A client for `role`, its password given directly (for the tests' own set-up and checks). */
  async client(role: string = ADMIN_ROLE, database = 'postgres'): Promise<pg.Client> {
    const c = new pg.Client({
      host: '127.0.0.1',
      port: this.port,
      user: role,
      database,
      password: passwordOf(role),
    });
    await c.connect();
    return c;
  }

  /** Run statements as the superuser. */
  async sql(text: string, params: unknown[] = [], database = 'postgres'): Promise<pg.QueryResult> {
    const c = await this.client(ADMIN_ROLE, database);
    try {
      return await c.query(text, params);
    } finally {
      await c.end();
    }
  }

  /** A login role with the tests' password, in the groups named (`cctop_pusher`, `cctop_reader`). */
  async role(name: string, groups: readonly string[] = []): Promise<string> {
    const ident = (s: string) => `"${s.replaceAll('"', '""')}"`;
    await this.sql(`CREATE ROLE ${ident(name)} LOGIN PASSWORD '${passwordOf(name).replaceAll("'", "''")}'`);
    for (const g of groups) await this.sql(`GRANT ${ident(g)} TO ${ident(name)}`);
    return name;
  }

  /** A fresh database owned by the superuser. */
  async database(name: string): Promise<string> {
    await this.sql(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
    return name;
  }

  /** A fresh database with cctop's schema migrated in: a team store as its admin sets it up. */
  async migratedDatabase(name: string): Promise<string> {
    await this.database(name);
    const c = await this.client(ADMIN_ROLE, name);
    try {
      await migrate(c);
    } finally {
      await c.end();
    }
    return name;
  }

  /** Stop the server (fast shutdown: open sessions are ended, as a restart would end them). */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child === null || child.exitCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await gone;
  }

  async cleanup(): Promise<void> {
    await this.stop();
    this.cleanupDir();
  }
}
