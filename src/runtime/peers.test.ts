import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookEvent } from '../hooks/types.js';
import { broadcast, LineReader, MAX_PEER_CONNECTIONS, MAX_PEERS, PeerServer, peerSockets } from './peers.js';
import { encodeMessage, type HookMessage, MAX_MESSAGE_BYTES } from './protocol.js';

let dir: string;
let env: { CCTOP_RUNTIME_DIR: string };
const closing: (() => Promise<void> | void)[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cctop-peers-'));
  env = { CCTOP_RUNTIME_DIR: dir };
});
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
  rmSync(dir, { recursive: true, force: true });
});

const event = (session: string): HookEvent => ({
  v: 1,
  at: 1_796_185_300_000,
  agent: 'claude',
  event: 'Notification',
  session,
  cwd: '/work',
  notification: 'permission_prompt',
  tool: null,
  permissionMode: null,
  transcript: null,
  input: null,
  ppid: 100,
});
const hook = (session: string): HookMessage => ({ v: 1, kind: 'hook', event: event(session) });

/** A peer server whose messages land in a list, closed after the test. */
async function peer(
  pid?: number,
): Promise<{ server: PeerServer; got: HookMessage[]; next: () => Promise<HookMessage> }> {
  const got: HookMessage[] = [];
  const waiting: ((m: HookMessage) => void)[] = [];
  const r = await PeerServer.listen(
    env,
    (m) => {
      if (m.kind !== 'hook') return;
      got.push(m);
      waiting.shift()?.(m);
    },
    pid,
  );
  if (r.kind !== 'listening') throw new Error(r.why);
  closing.push(() => r.server.close());
  let seen = 0;
  const next = () =>
    new Promise<HookMessage>((resolve) => {
      if (got.length > seen) resolve(got[seen++]!);
      else
        waiting.push((m) => {
          seen++;
          resolve(m);
        });
    });
  return { server: r.server, got, next };
}

/** A client connection, open until the test ends. */
async function client(path: string): Promise<Socket> {
  const s = connect(path);
  closing.push(() => {
    s.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    s.once('connect', resolve);
    s.once('error', reject);
  });
  return s;
}

describe('a running cctop', () => {
  it('receives what a hook broadcasts', async () => {
    const p = await peer();
    expect(p.server.path).toBe(join(dir, `${process.pid}.sock`));
    const d = await broadcast(env, hook('s1'), 5_000);
    expect(d).toEqual({ peers: 1, delivered: 1, failed: 0, late: 0 });
    expect(await p.next()).toEqual(hook('s1'));
  });

  it('reads the lines of a client that keeps its connection open, skipping and counting bad ones', async () => {
    const p = await peer();
    const s = await client(p.server.path);
    s.write(encodeMessage(hook('a')));
    s.write('not json\n{"v":1,"kind":"hook","event":{"v":1}}\n');
    s.write(`${JSON.stringify({ v: 2, kind: 'hook' })}\n${JSON.stringify({ v: 1, kind: 'run-event' })}\n`);
    s.write(encodeMessage(hook('b')).slice(0, 20));
    s.write(encodeMessage(hook('b')).slice(20));
    expect((await p.next()).event.session).toBe('a');
    expect((await p.next()).event.session).toBe('b');
    expect(p.server.stats).toEqual({ messages: 2, ignored: 1, bad: 3, oversized: 0, failed: 0 });
  });

  it('drops a line longer than its bound and reads the next one', async () => {
    const p = await peer();
    const s = await client(p.server.path);
    s.write('x'.repeat(MAX_MESSAGE_BYTES + 10));
    s.write('y'.repeat(1000));
    s.write(`\n${encodeMessage(hook('after'))}`);
    expect((await p.next()).event.session).toBe('after');
    expect(p.server.stats.oversized).toBe(1);
    expect(p.server.stats.bad).toBe(0);
  });

  it('a handler that throws is counted, and the next message still arrives', async () => {
    let calls = 0;
    const got: string[] = [];
    const r = await PeerServer.listen(env, (m) => {
      calls++;
      if (calls === 1) throw new Error('boom');
      if (m.kind === 'hook') got.push(m.event.session ?? '');
    });
    if (r.kind !== 'listening') throw new Error(r.why);
    closing.push(() => r.server.close());
    await broadcast(env, hook('first'), 5_000);
    await broadcast(env, hook('second'), 5_000);
    await expect.poll(() => got).toEqual(['second']);
    expect(r.server.stats.failed).toBe(1);
  });

  it(`keeps at most ${MAX_PEER_CONNECTIONS} connections open, and still serves them`, async () => {
    const p = await peer();
    const open: Socket[] = [];
    for (let i = 0; i < MAX_PEER_CONNECTIONS; i++) open.push(await client(p.server.path));
    const extra = connect(p.server.path);
    closing.push(() => {
      extra.destroy();
    });
    await new Promise<void>((resolve) => extra.once('close', () => resolve()));
    open[0]!.write(encodeMessage(hook('still')));
    expect((await p.next()).event.session).toBe('still');
  });

  it('a second server in the same process is refused rather than taking the first one’s socket', async () => {
    const p = await peer();
    const again = await PeerServer.listen(env, () => {});
    expect(again).toMatchObject({ kind: 'refused', why: 'this process already listens there' });
    await broadcast(env, hook('first-still'), 5_000);
    expect((await p.next()).event.session).toBe('first-still');
  });

  it('removes its socket when it closes', async () => {
    const p = await peer();
    expect(existsSync(p.server.path)).toBe(true);
    await p.server.close();
    expect(existsSync(p.server.path)).toBe(false);
  });
});

/**
 * A socket left behind by a process that was killed: the file is there, nobody listens. Named for
 * the killed process, or for `name` (a pid some other process has now).
 */
async function leftBehind(name?: number): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `require('node:net').createServer().listen(require('node:path').join(process.argv[1], (process.argv[2] || process.pid) + '.sock'), () => console.log('up'));`,
      dir,
      name === undefined ? '' : String(name),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  const path = join(dir, `${name ?? child.pid}.sock`);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  return path;
}

describe('starting a cctop', () => {
  it('removes the sockets of cctops that are gone, and keeps those of live ones', async () => {
    const dead = await leftBehind();
    // A socket named for a process that exists (this one's parent) but that nobody listens on.
    const reused = await leftBehind(process.ppid);
    expect(existsSync(dead) && existsSync(reused)).toBe(true);
    const live = await peer(1_000_001);

    await peer();
    const left = readdirSync(dir).sort();
    expect(left).toContain(`${process.pid}.sock`);
    expect(left).toContain('1000001.sock');
    expect(left).not.toContain(`${process.ppid}.sock`);
    expect(left.some((n) => dead.endsWith(n))).toBe(false);
    expect(live.server.path).toBe(join(dir, '1000001.sock'));
  });

  it('a refused runtime directory is a reason, not an error', async () => {
    writeFileSync(join(dir, 'plain'), '');
    const refused = await PeerServer.listen({ CCTOP_RUNTIME_DIR: join(dir, 'plain') }, () => {});
    expect(refused).toMatchObject({ kind: 'refused', why: 'it is not a directory' });
  });
});

describe('broadcasting', () => {
  it('reaches a peer beside one that accepts and never reads', async () => {
    const p = await peer(2_000_001);
    const held: Socket[] = [];
    const deaf = createServer({ pauseOnConnect: true }, (c) => held.push(c));
    await new Promise<void>((resolve) => deaf.listen(join(dir, '2000002.sock'), resolve));
    closing.push(() => {
      for (const c of held) c.destroy();
      return new Promise<void>((resolve) => deaf.close(() => resolve()));
    });
    const d = await broadcast(env, hook('x'), 1_000);
    expect(d.peers).toBe(2);
    expect((await p.next()).event.session).toBe('x');
  });

  it('with nobody listening, or no runtime directory of ours, sends nothing and does not throw', async () => {
    expect(await broadcast(env, hook('x'), 100)).toEqual({ peers: 0, delivered: 0, failed: 0, late: 0 });
    writeFileSync(join(dir, 'plain'), '');
    expect((await broadcast({ CCTOP_RUNTIME_DIR: join(dir, 'plain') }, hook('x'), 100)).peers).toBe(0);
  });

  it('a socket nobody listens on counts as failed', async () => {
    const dead = await leftBehind();
    expect(existsSync(dead)).toBe(true);
    expect(await broadcast(env, hook('x'), 5_000)).toEqual({ peers: 1, delivered: 0, failed: 1, late: 0 });
  });

  it(`sends to the newest ${MAX_PEERS} peers at most`, async () => {
    const servers: Server[] = [];
    for (let i = 0; i < MAX_PEERS + 2; i++) {
      const s = createServer((c) => c.resume());
      await new Promise<void>((resolve) => s.listen(join(dir, `${3_000_000 + i}.sock`), resolve));
      servers.push(s);
    }
    closing.push(() =>
      Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => {}),
    );
    expect(peerSockets(dir)).toHaveLength(MAX_PEERS);
    expect((await broadcast(env, hook('x'), 5_000)).peers).toBe(MAX_PEERS);
  });
});

describe('reading lines', () => {
  it('frames lines across chunks and drops only the one that is too long', () => {
    let oversized = 0;
    const r = new LineReader(8, () => oversized++);
    expect(r.push(Buffer.from('ab'))).toEqual([]);
    expect(r.push(Buffer.from('c\nde'))).toEqual(['abc']);
    expect(r.push(Buffer.from('fghijkl'))).toEqual([]);
    expect(r.push(Buffer.from('mn\nok\n'))).toEqual(['ok']);
    expect(oversized).toBe(1);
    expect(r.push(Buffer.from('123456789\n12345678\n'))).toEqual(['12345678']);
    expect(oversized).toBe(2);
  });
});
