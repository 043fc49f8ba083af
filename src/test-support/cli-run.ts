/**
 * The built `cctop` (`dist/cli.js`) run as a user runs it, in a child process, for the tests that
 * drive the command end to end: start it with exactly the environment given, and collect its exit
 * code, both outputs and how long it ran. `npm test` builds first.
 *
 * Not here: what goes in the environment (each suite's homes, `hosts-env.ts` for the `--host` ones),
 * or anything that writes to the child's stdin.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from './corpus.js';

export const CLI = join(REPO, 'dist', 'cli.js');

/** A finished cctop: its exit code (null when a signal ended it), what it printed, and how long it ran. */
export interface Ran {
  code: number | null;
  out: string;
  err: string;
  ms: number;
}

/** A started child's exit code and output, once its pipes close (`ms` counts from this call). */
export function ended(child: ChildProcess): Promise<Ran> {
  const started = Date.now();
  return new Promise((resolve) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (d) => {
      out += d;
    });
    child.stderr?.on('data', (d) => {
      err += d;
    });
    child.on('close', (code) => resolve({ code, out, err, ms: Date.now() - started }));
  });
}

/** Run the built cctop with `args` and exactly `env` (nothing of this process's own) to its end. */
export function runCli(args: string[], env: Record<string, string>): Promise<Ran> {
  return ended(spawn(process.execPath, [CLI, ...args], { env }));
}
