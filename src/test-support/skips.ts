/**
 * Why a suite skips, in one place: each part the tests need that a machine may lack, with the reason
 * and the command that removes it, written into the suite's name as `(skipped: <reason>; <command>)`
 * so that `test/skipped-reporter.ts` can list it (and fail the run for a skip that gives none).
 *
 * Not here: finding out whether a part is present (each part's own module does: `terminal.ts`,
 * `sshd.ts`, `postgres.ts`, `test/serve/chromium.ts`, `lab/agents.ts`).
 */
import { existsSync } from 'node:fs';
import { CLI } from './cli-run.js';

/** The reasons, each ending in the command that gives the machine what is missing. */
export const WHY = {
  tmux: 'tmux is not installed; apt-get install tmux',
  chromium: 'Chromium is not at /usr/bin/chromium; apt-get install chromium',
  sshd: 'no OpenSSH server at /usr/sbin/sshd; apt-get install openssh-server openssh-client',
  postgres: 'no PostgreSQL server binaries under /usr/lib/postgresql; apt-get install postgresql',
  built: 'the CLI is not built in dist/; npm run build',
  /** A pinned agent CLI from `lab/agents.json` that is not installed. */
  agent: (pkg: string): string => `${pkg} is not installed; npm run agents`,
  /** Several of them. */
  agents: (pkgs: readonly string[]): string => `${pkgs.join(', ')} not installed; npm run agents`,
  /** The peer tools `bench/install-peers.mjs` installs into `.peers`. */
  peers: 'the peer tools are not installed in .peers; npm run peers',
} as const;

/** Whether `dist/cli.js` exists (suites that run the built CLI need it). */
export const BUILT = existsSync(CLI);

/** `''` when `present`, else ` (skipped: why)`, to end a suite's or test's name with. */
export const unless = (present: boolean, why: string): string => (present ? '' : ` (skipped: ${why})`);

/** The first reason among `[present, why]` pairs whose part is missing, as `unless` words it, or `''`. */
export function unlessAll(...parts: ReadonlyArray<readonly [boolean, string]>): string {
  const missing = parts.filter(([present]) => !present).map(([, why]) => why);
  return missing.length === 0 ? '' : ` (skipped: ${missing.join('; and ')})`;
}
