import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  openSync,
  readFileSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, REPO } from '../test-support/corpus.js';
import { DIGEST_VERSION } from './digest.js';
import { writeDigest } from './refresh.js';

// `cctop statusline` as Claude Code runs it: the built command, in a process of its own, so that what
// it reads on descriptor 0 and the code cache it keeps are the real ones.
const CLI = join(REPO, 'dist', 'cli.js');
/** The package's `cctop` (package.json's `bin`), which runs the line without loading an ES module. */
const PROGRAM = join(REPO, 'dist', 'cctop.cjs');
const BUILT = existsSync(join(REPO, 'dist', 'statusline-line.cjs'));
const NOT_BUILT = ' (skipped: the CLI is not built in dist/; npm run build)';
const HAS_FIFO = process.platform === 'linux' && spawnSync('mkfifo', ['--version']).status === 0;

let home: FakeHome;
const cacheDirOf = () => home.env.CCTOP_CACHE_DIR!;
beforeEach(() => {
  home = new FakeHome();
  // A digest as a refresh a moment ago would have left it, so that no refresh starts.
  const now = Date.now();
  writeDigest(cacheDirOf(), {
    version: DIGEST_VERSION,
    builtAtMs: now,
    today: { startMs: now - 1000, endMs: now + 3_600_000, usd: 45.1 },
    sessions: {},
    block: null,
    budget: null,
  });
});
afterEach(() => home.cleanup());

const INPUT = JSON.stringify({ model: { id: 'claude-opus-4-6' }, cost: { total_cost_usd: 3.2 } });
const LINE = 'opus-4.6 · $3.20 · today $45.10\n';

const codeCache = () => join(cacheDirOf(), 'statusline-code.bin');

/**
 * The line's process (the package's `cctop`, or `program`), its stdin given as `stdin`; resolves with
 * what it printed once it exits.
 */
function line(
  stdin: 'pipe' | number,
  feed?: (c: ChildProcess) => void,
  program = PROGRAM,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [program, 'statusline'], {
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...home.env },
      stdio: [stdin, 'pipe', 'inherit'],
    });
    let out = '';
    c.stdout!.on('data', (d) => {
      out += d;
    });
    c.on('close', (code) => resolve({ code, out }));
    feed?.(c);
  });
}

/** A line fed `INPUT` through a socket that is then closed, as node's `spawn` gives a child. */
const fedLine = () => line('pipe', (c) => c.stdin!.end(INPUT));

describe.skipIf(!BUILT)(`the status line's code cache${BUILT ? '' : NOT_BUILT}`, () => {
  it('is written by the first line and run by the next, which prints the same', async () => {
    expect(await fedLine()).toEqual({ code: 0, out: LINE });
    const kept = readFileSync(codeCache());
    expect(kept.subarray(0, 30).toString()).toBe('cctop statusline code cache 2\n');
    expect(await fedLine()).toEqual({ code: 0, out: LINE });
    // Taken as it was: not compiled again, so not written again.
    expect(readFileSync(codeCache()).equals(kept)).toBe(true);
  });

  it('is shared by `cli.js statusline`, which prints the same line', async () => {
    expect(await fedLine()).toEqual({ code: 0, out: LINE });
    const kept = readFileSync(codeCache());
    expect(await line('pipe', (c) => c.stdin!.end(INPUT), CLI)).toEqual({ code: 0, out: LINE });
    expect(readFileSync(codeCache()).equals(kept)).toBe(true);
  });

  it('is not run when damaged, cut short or made by another build, and is written again', async () => {
    await fedLine();
    const good = readFileSync(codeCache());
    const flipped = Buffer.from(good);
    // Inside V8's data: run as it is, this byte once made every line a crash.
    flipped[200] = flipped[200]! ^ 0x5a;
    // The same data under the name of another build (the first digit of its digest changed).
    const otherBuild = Buffer.from(good);
    const at = good.indexOf('statusline-line ') + 'statusline-line '.length;
    otherBuild[at] = good[at] === 0x30 ? 0x31 : 0x30;
    for (const bad of [
      flipped,
      good.subarray(0, good.length - 1000),
      otherBuild,
      Buffer.from('not a cache'),
    ]) {
      writeFileSync(codeCache(), bad);
      expect(await fedLine()).toEqual({ code: 0, out: LINE });
      const rewritten = readFileSync(codeCache());
      expect(rewritten.equals(bad)).toBe(false);
      // What was written in its place is taken by the next line as it is.
      expect(await fedLine()).toEqual({ code: 0, out: LINE });
      expect(readFileSync(codeCache()).equals(rewritten)).toBe(true);
    }
  });
});

const NO_FIFO =
  ' (skipped: named pipes are read through /proc, which only Linux has, with mkfifo; run on Linux)';

describe.skipIf(!BUILT || process.platform === 'win32')(
  `a code cache others could write${BUILT ? '' : NOT_BUILT}${process.platform === 'win32' ? ' (skipped: Windows has no mode bits; run on Linux or macOS)' : ''}`,
  () => {
    it('is not run, and is written again for this user alone', async () => {
      await fedLine();
      chmodSync(codeCache(), 0o666);
      const before = statSync(codeCache());
      expect(await fedLine()).toEqual({ code: 0, out: LINE });
      const after = statSync(codeCache());
      expect(after.ino).not.toBe(before.ino);
      expect(after.mode & 0o777).toBe(0o600);
    });
  },
);

describe.skipIf(!BUILT)(`the status line's stdin${BUILT ? '' : NOT_BUILT}`, () => {
  it('is read from a socket and from a file alike', async () => {
    expect(await fedLine()).toEqual({ code: 0, out: LINE });
    const file = join(home.dir, 'input.json');
    writeFileSync(file, INPUT);
    const fd = openSync(file, 'r');
    try {
      expect(await line(fd)).toEqual({ code: 0, out: LINE });
    } finally {
      closeSync(fd);
    }
  });

  it.skipIf(!HAS_FIFO)(`is read from a pipe as from a socket${HAS_FIFO ? '' : NO_FIFO}`, async () => {
    const pipe = fifo();
    writeSync(pipe.writer, INPUT);
    const run = line(pipe.reader);
    closeSync(pipe.reader);
    closeSync(pipe.writer);
    expect(await run).toEqual({ code: 0, out: LINE });
  });

  it('held open by a writer that never closes its socket, costs the deadline, not the line', async () => {
    // The child is waited on while the writer still holds its end.
    expect(await line('pipe', (c) => c.stdin!.write(INPUT))).toEqual({ code: 0, out: LINE });
  });

  it.skipIf(!HAS_FIFO)(
    `held open by a writer that never closes its pipe, costs the deadline, not the line${HAS_FIFO ? '' : NO_FIFO}`,
    async () => {
      const pipe = fifo();
      writeSync(pipe.writer, INPUT);
      try {
        const run = line(pipe.reader);
        closeSync(pipe.reader);
        expect(await run).toEqual({ code: 0, out: LINE });
      } finally {
        closeSync(pipe.writer);
      }
    },
  );
});

/** A named pipe with both ends open: the reader for the child, the writer for the test. */
function fifo(): { reader: number; writer: number } {
  const path = join(home.dir, 'stdin.fifo');
  const r = spawnSync('mkfifo', ['-m', '600', path]);
  if (r.status !== 0) throw new Error(`mkfifo ${path}: ${r.stderr}`);
  // Opened for reading without waiting for a writer, then for writing (a reader is there).
  const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  return { reader, writer: openSync(path, constants.O_WRONLY) };
}
