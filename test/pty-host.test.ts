/**
 * The built pty host (`dist/runtime/pty-host-bin.js`, what `cctop run` starts) against an agent
 * whose output is hostile: a flood far past what its screen keeps, a line of megabytes, malformed
 * sequences. The host stays up and bounded, and a terminal that attaches afterwards gets the
 * agent's last screen; a terminal that attaches while an agent writes gets its screen, then the rest,
 * with no line lost or repeated. Spoken to over its real socket, with the frames `cctop attach` sends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import xtermHeadless from '@xterm/headless';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrameReader, frame } from '../src/runtime/pty-wire.js';
import { REPO } from '../src/test-support/corpus.js';

const HOST_BIN = join(REPO, 'dist', 'runtime', 'pty-host-bin.js');

/** The optional pty package, without which there is no host to test. */
const HAVE_PTY = (() => {
  try {
    createRequire(import.meta.url).resolve('@lydell/node-pty');
    return true;
  } catch {
    // Not installed (it is optional): the suite says so in its name.
    return false;
  }
})();
const SKIP = HAVE_PTY ? null : '@lydell/node-pty is not installed; npm install @lydell/node-pty@1.1.0';

/** How long a step may take on a busy two-core machine: the flood is 64 MB through an emulator. */
const PATIENCE_MS = 120_000;

/**
 * The host's peak memory at most, in MiB: node itself is about 60, the held screen a few, the output
 * waiting to be read at most `MAX_UNPARSED_BYTES`, and what the collector has not freed yet (105 in
 * all, measured through this flood). A host that kept the flood would pass it.
 */
const MAX_HOST_MIB = 160;

/**
 * An agent that floods 64 MB of coloured lines as fast as it can, then a line of 8 MB, then
 * malformed sequences and bytes that are not UTF-8, then its last screen, and waits.
 */
const HOSTILE = `
const out = (s) => new Promise((r) => (process.stdout.write(s) ? r() : process.stdout.once('drain', r)));
(async () => {
  const block = ('\\x1b[38;2;200;10;10mflood ' + 'z'.repeat(70) + '\\x1b[0m\\r\\n').repeat(4096);
  for (let sent = 0; sent < 64e6; sent += block.length) await out(block);
  await out('y'.repeat(8e6));
  await out(Buffer.from([0x1b, 0x5b, 0x39, 0x39, 0x39, 0x39, 0x39, 0x39, 0x39, 0x3b, 0x3f, 0xff, 0xfe, 0xc3]));
  await out('\\x1b]0;never ended\\x1bP$$$\\x1b[?99999999h\\x1b[38;2;999;999;999m\\x1b\\\\');
  await out('\\x1b[2J\\x1b[Hthe last screen\\r\\nstill here');
  setInterval(() => {}, 1e6);
})();
`;

/**
 * An agent that counts, one number a line, in blocks of a hundred, until a key is pressed; then it
 * writes `counted` and waits. The terminal is raw, so the key is not echoed among the numbers.
 */
const COUNTER = `
let stop = false;
process.stdin.setRawMode(true);
process.stdin.on('data', () => { stop = true; });
const out = (s) => new Promise((r) => (process.stdout.write(s) ? r() : process.stdout.once('drain', r)));
(async () => {
  let n = 0;
  while (!stop) {
    let block = '';
    for (let k = 0; k < 100; k++) block += ++n + '\\r\\n';
    await out(block);
    await new Promise((r) => setImmediate(r));
  }
  await out('counted');
  setInterval(() => {}, 1e6);
})();
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One connection to the host: the frames it sent so far, and a way to send. */
function dial(path: string): Promise<{ sock: Socket; got: { type: string; body: Buffer }[] }> {
  return new Promise((resolve, reject) => {
    const sock = connect(path);
    const got: { type: string; body: Buffer }[] = [];
    const reader = new FrameReader();
    sock.on('data', (c) => got.push(...(reader.push(c) ?? [])));
    sock.once('connect', () => resolve({ sock, got }));
    sock.once('error', reject);
  });
}

const peakMiB = (pid: number): number =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

describe.skipIf(SKIP !== null)(
  `the pty host holds an agent whose output is hostile${SKIP ? ` (skipped: ${SKIP})` : ''}`,
  () => {
    let root: string;
    let host: ChildProcess;
    let socket: string;
    const agentPids: number[] = [];

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), 'cctop-pty-host-'));
      const env = { PATH: process.env.PATH ?? '', CCTOP_RUNTIME_DIR: join(root, 'run') };
      socket = join(root, 'run', 'pty.sock');
      host = spawn(process.execPath, [HOST_BIN], { env, stdio: 'ignore' });
      for (let i = 0; i < 200 && !existsSync(socket); i++) await sleep(50);
    });

    afterAll(() => {
      for (const pid of agentPids) process.kill(pid, 'SIGKILL');
      if (host.exitCode === null) host.kill('SIGKILL');
      rmSync(root, { recursive: true, force: true });
    });

    it(
      'stays up within its memory bound through a flood, a huge line and malformed bytes, and an attach draws the last screen',
      async () => {
        // Started, then detached at once: nobody reads the flood but the host.
        const starter = await dial(socket);
        starter.sock.write(
          frame('S', {
            agent: process.execPath,
            args: ['-e', HOSTILE],
            cwd: root,
            env: { PATH: process.env.PATH ?? '' },
            cols: 100,
            rows: 10,
          }),
        );
        while (!starter.got.some((f) => f.type === 'i')) await sleep(20);
        const id = JSON.parse(starter.got.find((f) => f.type === 'i')!.body.toString('utf8')) as {
          id: string;
          pid: number;
        };
        agentPids.push(id.pid);
        starter.sock.write(frame('x', {}));

        /** What an attach draws: the frames after its 'i', once a quiet moment follows them. */
        const attach = async (): Promise<string> => {
          const t = await dial(socket);
          t.sock.write(frame('A', { id: id.id, cols: 100, rows: 10 }));
          for (let i = 0; i < 400 && !t.got.some((f) => f.type === 'd'); i++) await sleep(25);
          await sleep(200);
          t.sock.write(frame('x', {}));
          t.sock.destroy();
          return Buffer.concat(t.got.filter((f) => f.type === 'd').map((f) => f.body)).toString('utf8');
        };
        const deadline = Date.now() + PATIENCE_MS;
        while (!(await attach()).includes('the last screen\r\nstill here')) {
          expect(host.exitCode).toBe(null);
          expect(Date.now()).toBeLessThan(deadline);
          await sleep(500);
        }
        // The agent is quiet now: what an attach gets is the screen alone.
        const screen = await attach();
        expect(screen).toContain('the last screen\r\nstill here');
        expect(peakMiB(host.pid!)).toBeLessThan(MAX_HOST_MIB);
        // The screen drawn is text and the sequences that draw it: none of the flood's bytes that are
        // not UTF-8, and no title or device control the agent sent.
        expect(screen).not.toContain('\ufffd');
        expect(screen).not.toContain('\x1b]');
        expect(screen).not.toContain('\x1bP');
      },
      PATIENCE_MS * 2,
    );

    it(
      'an attach while the agent writes draws its screen, then everything after it, no line lost or repeated',
      async () => {
        const starter = await dial(socket);
        starter.sock.write(
          frame('S', {
            agent: process.execPath,
            args: ['-e', COUNTER],
            cwd: root,
            env: { PATH: process.env.PATH ?? '' },
            cols: 20,
            rows: 10,
          }),
        );
        const framed = async (t: { got: { type: string }[] }, type: string, count = 1) => {
          const deadline = Date.now() + PATIENCE_MS;
          while (t.got.filter((f) => f.type === type).length < count) {
            expect(Date.now()).toBeLessThan(deadline);
            await sleep(20);
          }
        };
        await framed(starter, 'i');
        const { id, pid } = JSON.parse(starter.got.find((f) => f.type === 'i')!.body.toString('utf8')) as {
          id: string;
          pid: number;
        };
        agentPids.push(pid);
        // The agent counts from its start; the attach comes once the first terminal has seen numbers.
        await framed(starter, 'd');

        const taker = await dial(socket);
        taker.sock.write(frame('A', { id, cols: 20, rows: 10 }));
        // The first output frame is the screen drawn (a few KiB here, one frame); a second is the
        // agent's output after it. The count goes on until the key.
        await framed(taker, 'd', 2);
        taker.sock.write(frame('d', Buffer.from('q')));
        const record = () =>
          Buffer.concat(taker.got.filter((f) => f.type === 'd').map((f) => f.body)).toString('utf8');
        const deadline = Date.now() + PATIENCE_MS;
        while (!record().endsWith('counted')) {
          expect(Date.now()).toBeLessThan(deadline);
          await sleep(50);
        }
        // The first terminal was let go when the second took the run.
        expect(starter.got.some((f) => f.type === 'x')).toBe(true);
        taker.sock.destroy();

        // The attaching terminal, as a terminal shows it: one number a line, each once, in order,
        // from the oldest the host kept to the last, then `counted`.
        const seen = new xtermHeadless.Terminal({
          cols: 20,
          rows: 10,
          scrollback: 1_000_000,
          allowProposedApi: true,
        });
        await new Promise<void>((r) => seen.write(record(), r));
        const lines: string[] = [];
        for (let i = 0; i < seen.buffer.active.length; i++) {
          const line = seen.buffer.active.getLine(i)?.translateToString(true) ?? '';
          if (line !== '') lines.push(line);
        }
        seen.dispose();
        expect(lines.at(-1)).toBe('counted');
        const numbers = lines.slice(0, -1);
        const first = Number(numbers[0]);
        expect(numbers.length).toBeGreaterThan(100);
        expect(numbers).toEqual(numbers.map((_, i) => String(first + i)));
      },
      PATIENCE_MS * 2,
    );
  },
);
