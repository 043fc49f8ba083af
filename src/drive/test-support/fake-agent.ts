/**
 * Fake agent executables for drive's tests: small Node scripts named `claude`, `codex` or `copilot`
 * in a temporary directory that goes first on PATH. Each checks the arguments it was given, then
 * plays a script of steps (write captured lines, read and check stdin, hang, crash, flood) and
 * records what it saw (argv, environment, stdin, pids) in a JSON file beside it for the test.
 */
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { tempDir } from '../../test-support/corpus.js';
import type { Event } from '../events.js';
import type { Dialect } from '../parser.js';
import { StreamParser, type Terminal } from '../parser.js';

export type Step =
  /** One stdout line; objects are JSON-encoded. `$ARG(--flag)` becomes the argument after that flag. */
  | { out: string | object }
  /** Raw stdout bytes, no newline added. */
  | { raw: string }
  | { err: string }
  | { sleep: number }
  /** Read one stdin line; as JSON it must contain these fields (deeply), or the fake exits 65. */
  | { expectLine: unknown }
  /** Read stdin to its end, recording it. */
  | { readStdin: true }
  /** Start a long-lived grandchild in the agent's process group and record its pid. */
  | { grandchild: true }
  | { ignoreTerm: true }
  /** Record the contents of the file named by the argument after this flag. */
  | { readArgFile: string }
  /** Write `count` lines (`%i` replaced by the line number), recording progress every 100 lines. */
  | { flood: { count: number; line: string } }
  /** Write `x` forever with no newline. */
  | { endless: true }
  /** Never finish. */
  | { hang: true }
  | { exit: number }
  | { kill: NodeJS.Signals };

export interface Recorded {
  argv: string[];
  env: Record<string, string>;
  pid: number;
  stdin: string[];
  stdinText?: string;
  grandchild?: number;
  written?: number;
  sawEof?: boolean;
  files?: Record<string, string>;
}

export interface FakeOptions {
  /** Arguments that must appear, in this order (not necessarily adjacent); otherwise exit 64. */
  expectArgs?: string[];
}

const RUNNER = String.raw`
'use strict';
const fs = require('fs');
const { spawn } = require('child_process');
const rec = { argv: process.argv.slice(2), env: process.env, pid: process.pid, stdin: [] };
// Written whole and renamed into place: a test polling the record never reads half of one.
const recordPath = RECORD;
const save = () => {
  fs.writeFileSync(recordPath + '.tmp', JSON.stringify(rec));
  fs.renameSync(recordPath + '.tmp', recordPath);
};
save();
let at = 0;
for (const want of EXPECT) {
  const i = rec.argv.indexOf(want, at);
  if (i === -1) {
    process.stderr.write('fake: expected argument ' + JSON.stringify(want) + ' in ' + JSON.stringify(rec.argv) + '\n');
    process.exit(64);
  }
  at = i + 1;
}
let buffered = '';
const lines = [];
let eof = false;
let wake = null;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buffered += d;
  let i;
  while ((i = buffered.indexOf('\n')) >= 0) { lines.push(buffered.slice(0, i)); buffered = buffered.slice(i + 1); }
  if (wake) wake();
});
process.stdin.on('end', () => { eof = true; if (buffered) { lines.push(buffered); buffered = ''; } if (wake) wake(); });
process.stdin.on('error', () => {});
const nextLine = () => new Promise((res) => {
  const take = () => { if (lines.length) { wake = null; res(lines.shift()); } else if (eof) { wake = null; res(null); } else wake = take; };
  take();
});
const contains = (a, e) => {
  if (e === null || typeof e !== 'object') return a === e;
  if (a === null || typeof a !== 'object') return false;
  return Object.keys(e).every((k) => contains(a[k], e[k]));
};
// Pipes are synchronous on Linux: a write to a full pipe blocks this process, as it blocks a real agent.
const write = (s) => new Promise((res) => { if (process.stdout.write(s)) res(); else process.stdout.once('drain', res); });
(async () => {
  for (const step of STEPS) {
    if ('out' in step) {
      const text = typeof step.out === 'string' ? step.out : JSON.stringify(step.out);
      await write(text.replace(/\$ARG\(([^)]+)\)/g, (_, flag) => rec.argv[rec.argv.indexOf(flag) + 1] || '') + '\n');
    }
    else if ('raw' in step) await write(step.raw);
    else if ('err' in step) process.stderr.write(step.err);
    else if ('sleep' in step) await new Promise((r) => setTimeout(r, step.sleep));
    else if ('expectLine' in step) {
      const line = await nextLine();
      rec.stdin.push(line); save();
      let v = line;
      try { v = JSON.parse(line); } catch {}
      if (!contains(v, step.expectLine)) { process.stderr.write('fake: unexpected stdin ' + line + '\n'); process.exit(65); }
    } else if ('readStdin' in step) {
      const all = []; let l;
      while ((l = await nextLine()) !== null) all.push(l);
      rec.stdinText = all.join('\n'); rec.sawEof = true; save();
    } else if ('grandchild' in step) {
      const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
      rec.grandchild = c.pid; save();
    } else if ('ignoreTerm' in step) process.on('SIGTERM', () => {});
    else if ('readArgFile' in step) {
      const path = rec.argv[rec.argv.indexOf(step.readArgFile) + 1];
      rec.files = Object.assign(rec.files || {}, { [step.readArgFile]: fs.readFileSync(path, 'utf8') }); save();
    }
    else if ('flood' in step) {
      for (let i = 0; i < step.flood.count; i++) {
        await write(step.flood.line.replace('%i', String(i)) + '\n');
        if (i % 100 === 0) { rec.written = i; save(); }
      }
      rec.written = step.flood.count; save();
    } else if ('endless' in step) { const x = 'x'.repeat(65536); for (;;) await write(x); }
    else if ('hang' in step) { setInterval(() => {}, 1e9); return; }
    else if ('exit' in step) process.exit(step.exit);
    else if ('kill' in step) process.kill(process.pid, step.kill);
  }
})();
`;

/** A directory of fake agents, to put first on PATH. */
export class FakeBin {
  readonly dir: string;
  readonly cleanup: () => void;

  constructor() {
    const t = tempDir('cctop-fake-agents-');
    this.dir = t.dir;
    // The fakes are CommonJS scripts: a package.json above the temp directory (one saying "module")
    // must not decide how node loads them.
    writeFileSync(join(this.dir, 'package.json'), '{"type":"commonjs"}\n');
    this.cleanup = () => {
      this.stopAll();
      t.cleanup();
    };
  }

  /**
   * End every fake still running, with what it started: a test that fails half-way (before it stops
   * its agent) must not leave one hanging for the rest of the run.
   */
  private stopAll(): void {
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.record.json')) continue;
      try {
        const rec = JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as Recorded;
        // Only a process that is still this fake (a recorded pid may since belong to another), with
        // its process group: the agent leads one, and its grandchild is in it.
        if (!readFileSync(`/proc/${rec.pid}/cmdline`, 'utf8').includes(this.dir)) continue;
        for (const target of [-rec.pid, rec.pid]) {
          try {
            process.kill(target, 'SIGKILL');
          } catch {
            // Not a group leader, or already gone.
          }
        }
      } catch {
        // Gone, a record being written, or no /proc to check by: nothing to stop.
      }
    }
  }

  /** Write (or replace) the fake `name`. Returns its path. */
  add(name: string, steps: Step[], options: FakeOptions = {}): string {
    const path = join(this.dir, name);
    const body = RUNNER.replace('RECORD', () => JSON.stringify(this.recordPath(name)))
      .replace('EXPECT', () => JSON.stringify(options.expectArgs ?? []))
      .replace('STEPS', () => JSON.stringify(steps));
    writeFileSync(path, `#!${process.execPath}\n${body}`);
    chmodSync(path, 0o755);
    return path;
  }

  private recordPath(name: string): string {
    return join(this.dir, `${name}.record.json`);
  }

  /** What the fake `name` saw on its last run. */
  record(name: string): Recorded {
    return JSON.parse(readFileSync(this.recordPath(name), 'utf8')) as Recorded;
  }

  /**
   * A parent environment whose PATH finds these fakes first, with a runtime directory of its own: a
   * run it drives is told to no cctop outside the test, and leaves its run file nowhere another
   * test's `--list` reads.
   */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      PATH: `${this.dir}${delimiter}${process.env.PATH ?? ''}`,
      HOME: this.dir,
      CCTOP_RUNTIME_DIR: join(this.dir, 'run'),
      ...extra,
    };
  }
}

/**
 * Whether a process still runs. A zombie (dead, waiting for its new parent to collect it) counts as
 * gone: here init collects orphans only every second or so, and a zombie runs nothing.
 */
export function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

/** Poll until `check` holds or `ms` pass. */
export async function eventually(check: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

/** Drive a parser over lines, as the seed's tests do: every event, and the terminal facts. */
export function parseLines(
  dialect: Dialect,
  lines: readonly string[],
  format: 'stream' | 'text' = 'stream',
): { events: Event[]; terminal: Terminal; parser: StreamParser } {
  const parser = new StreamParser(dialect, format);
  const events = lines.flatMap((l) => parser.push(l));
  return { events, terminal: parser.terminal(), parser };
}

/** Events of one kind, narrowed. */
export function ofKind<K extends Event['kind']>(events: Event[], kind: K): Extract<Event, { kind: K }>[] {
  return events.filter((e): e is Extract<Event, { kind: K }> => e.kind === kind);
}
