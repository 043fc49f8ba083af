/**
 * Developers' machines for the team-store tests: throw-away homes with transcripts the repository owns
 * (the lab's recordings of the real CLIs and the demo history, `owned.ts`; each home its own mix of
 * Claude Code and Codex sessions, in two projects), and the
 * built `cctop` run in them as a given database role, its password in a `PGPASSFILE` (as `~/.pgpass`
 * would hold it) or in `PGPASSWORD`, never on the command line.
 *
 * Not here: the PostgreSQL server (`postgres.ts`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, ended, type Ran } from './cli-run.js';
import { FakeHome } from './corpus.js';
import { addClaude, addCodex, OWNED_CLAUDE, OWNED_CODEX, sessionIdOf } from './owned.js';
import { passwordOf, type TestPostgres } from './postgres.js';

export { CLI, ended, type Ran } from './cli-run.js';

/** The transcripts homes are made of: the lab's and the demo's, in a fixed order. */
const CLAUDE = OWNED_CLAUDE;
const CODEX = OWNED_CODEX;

/** A developer's machine: a home, and cctop run in it as `role` against `pg`'s database `db`. */
export class StoreHome {
  readonly home = new FakeHome();
  private readonly passfile: string;

  /** Home number `n` (its sessions differ from its neighbours'); `viaEnv` gives the password as PGPASSWORD. */
  constructor(
    readonly pg: TestPostgres,
    readonly role: string,
    readonly db: string,
    n: number,
    private readonly viaEnv = false,
  ) {
    for (let k = 0; k < 4; k++) {
      const file = CLAUDE[(n * 3 + k) % CLAUDE.length]!;
      // Each home's copy is a session of its own (a new id), as two developers' sessions would be.
      addClaude(this.home.dir, file, k % 2 === 0 ? '-work-shop' : '-work-api', `${n}-${sessionIdOf(file)}`);
    }
    addCodex(this.home.dir, CODEX[n % CODEX.length]!);
    this.passfile = join(this.home.dir, 'pgpass');
    writeFileSync(this.passfile, `127.0.0.1:${pg.port}:*:${role}:${passwordOf(role)}\n`, { mode: 0o600 });
  }

  /** The store URL, without a password. */
  get url(): string {
    return this.pg.url(this.role, this.db);
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      PATH: process.env.PATH ?? '',
      ...this.home.env,
      CCTOP_RUNTIME_DIR: join(this.home.dir, 'run'),
      CCTOP_CONFIG: join(this.home.dir, 'no-config.toml'),
      USER: `os-${this.role}`,
      ...(this.viaEnv ? { PGPASSWORD: passwordOf(this.role) } : { PGPASSFILE: this.passfile }),
      ...extra,
    };
  }

  /** Start the built cctop here. */
  spawn(args: string[], extra: Record<string, string> = {}): ChildProcess {
    return spawn(process.execPath, [CLI, ...args], {
      env: this.env(extra),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  /** Run the built cctop here to its end. */
  run(args: string[], extra: Record<string, string> = {}): Promise<Ran> {
    return ended(this.spawn(args, extra));
  }

  cleanup(): void {
    this.home.cleanup();
  }
}
