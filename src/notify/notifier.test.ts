import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionDoc } from '../model/document.js';
import { tempDir } from '../test-support/corpus.js';
import type { SenderRole } from './lock.js';
import type { Notice } from './notice.js';
import { MachineNotifier, type NotifierOptions } from './notifier.js';
import { readStatus } from './status.js';
import { documentOf, fakeNotifySend, Receiver, runsIn, session } from './test-support/fixtures.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A machine of our own: a runtime directory, a config file, and a webhook receiver. */
async function machine(config = '') {
  const t = tempDir('cctop-notifier-');
  cleanups.push(t.cleanup);
  const receiver = new Receiver();
  const url = await receiver.start();
  cleanups.push(() => receiver.stop());
  const configPath = join(t.dir, 'config.toml');
  writeFileSync(configPath, `[notify]\nurl = "${url}"\ndesktop = false\n${config}`);
  const env = { HOME: t.dir, CCTOP_RUNTIME_DIR: join(t.dir, 'run'), CCTOP_CONFIG: configPath, PATH: '' };
  return { dir: t.dir, env, receiver, url };
}

/** A started notifier whose clock never ticks by itself: the test calls `tick()`. */
function notifier(env: Record<string, string>, role: SenderRole, over: Partial<NotifierOptions> = {}) {
  const sent: Notice[] = [];
  const problems: string[] = [];
  const n = new MachineNotifier({
    env,
    role,
    tickMs: 3_600_000,
    desktopTool: null,
    webhook: { baseDelayMs: 0, maxDelayMs: 0 },
    onSent: (x) => sent.push(x),
    onProblem: (p) => problems.push(p),
    ...over,
  });
  cleanups.push(() => n.stop());
  return { n, sent, problems };
}

const idle = session('a1b2', { lastActiveAt: '2026-03-02T11:58:00.000Z' });
const waiting = session('a1b2', {
  state: 'waiting',
  pendingTool: 'Bash',
  lastActiveAt: '2026-03-02T11:59:00.000Z',
});
const waitingAgain = { ...waiting, lastActiveAt: '2026-03-02T12:01:00.000Z' };
const error = session('a1b2', {
  state: 'error',
  stateDetail: 'API Error: 529',
  lastActiveAt: '2026-03-02T12:02:00.000Z',
});
const doc = (...s: SessionDoc[]) => documentOf(s);
const kinds = (r: Receiver) => r.received.map((x) => JSON.parse(x.body).kind);

describe('the machine notifier', () => {
  it('a local webhook receives one POST per crossing, never while a state holds', async () => {
    const m = await machine();
    const { n } = notifier(m.env, 'watch');
    expect(n.start()).toBe(true);
    expect(n.holding).toBe(true);
    for (const s of [idle, waiting, waiting, waiting, idle, waitingAgain, waitingAgain, error, error])
      n.update(doc(s));
    await n.idle();
    expect(kinds(m.receiver)).toEqual(['waiting', 'waiting', 'error']);
    expect(JSON.parse(m.receiver.received[0]!.body)).toMatchObject({
      v: 1,
      kind: 'waiting',
      session: { provider: 'claude', id: 'a1b2' },
      asked: 'Bash',
    });
  });

  it('a session already waiting when the notifier starts is not told', async () => {
    const m = await machine();
    const { n } = notifier(m.env, 'watch');
    n.start();
    n.update(doc(waiting));
    n.update(doc(waiting));
    await n.idle();
    expect(m.receiver.received).toEqual([]);
  });

  it('two notifiers on one machine: only the holder sends, each crossing once', async () => {
    const m = await machine();
    const a = notifier(m.env, 'table');
    const b = notifier(m.env, 'dashboard');
    a.n.start();
    b.n.start();
    expect([a.n.holding, b.n.holding]).toEqual([true, false]);
    for (const s of [idle, waiting, idle, waitingAgain]) {
      a.n.update(doc(s));
      b.n.update(doc(s));
      a.n.tick();
      b.n.tick();
    }
    await a.n.idle();
    expect(kinds(m.receiver)).toEqual(['waiting', 'waiting']);
    expect(b.sent).toEqual([]);
  });

  it('what only a follower saw reaches the webhook through the holder, once', async () => {
    const m = await machine();
    const holder = notifier(m.env, 'table');
    const follower = notifier(m.env, 'dashboard');
    holder.n.start();
    follower.n.start();
    follower.n.update(doc(idle));
    follower.n.update(doc(waiting));
    await holder.n.idle();
    expect(m.receiver.received).toEqual([]);
    holder.n.tick();
    holder.n.tick();
    await holder.n.idle();
    expect(kinds(m.receiver)).toEqual(['waiting']);
    expect(follower.sent).toEqual([]);
  });

  it('when the holder stops, the other takes over at its next check and sends the next crossing', async () => {
    const m = await machine();
    const a = notifier(m.env, 'table');
    const b = notifier(m.env, 'table');
    a.n.start();
    b.n.start();
    for (const s of [idle, waiting]) {
      a.n.update(doc(s));
      b.n.update(doc(s));
    }
    await a.n.idle();
    a.n.stop();
    b.n.tick();
    expect(b.n.holding).toBe(true);
    // The wait that held before it took over is not sent again; the next crossing is.
    b.n.update(doc(waiting));
    b.n.update(doc(error));
    await b.n.idle();
    expect(kinds(m.receiver)).toEqual(['waiting', 'error']);
    expect(b.sent.map((x) => x.kind)).toEqual(['error']);
  });

  it('a watcher takes the sending over from a live table', async () => {
    const m = await machine();
    const table = notifier(m.env, 'table');
    const watch = notifier(m.env, 'watch');
    table.n.start();
    watch.n.start();
    table.n.tick();
    expect([table.n.holding, watch.n.holding]).toEqual([false, true]);
  });

  it('a flag given to cctop watch wins over the config file', async () => {
    const m = await machine();
    const other = new Receiver();
    const url = await other.start();
    cleanups.push(() => other.stop());
    const { n } = notifier(m.env, 'watch', { overrides: { url, format: 'slack' } });
    n.start();
    n.update(doc(idle));
    n.update(doc(waiting));
    await n.idle();
    expect(m.receiver.received).toEqual([]);
    expect(Object.keys(JSON.parse(other.received[0]!.body))).toEqual(['text']);
  });

  it('desktop notifications go through notify-send when the config leaves them on', async () => {
    const m = await machine();
    writeFileSync(m.env.CCTOP_CONFIG, '[notify]\ndesktop = true\n');
    const fake = fakeNotifySend(m.dir);
    const { n, sent } = notifier({ ...m.env, PATH: fake.path }, 'watch', { desktopTool: undefined });
    n.start();
    expect(n.desktopTool?.kind).toBe(process.platform === 'darwin' ? 'osascript' : 'notify-send');
    if (process.platform === 'darwin') return;
    n.update(doc(idle));
    n.update(doc(waiting));
    await n.idle();
    expect(runsIn(readFileSync(fake.log, 'utf8')).map((args) => args.slice(0, 3))).toEqual([
      ['--app-name=cctop', '--', 'Waiting: the a1b2 task'],
    ]);
    expect(sent.map((x) => x.kind)).toEqual(['waiting']);
    expect(m.receiver.received).toEqual([]);
  });

  it('the holder writes what happened for cctop doctor', async () => {
    const m = await machine();
    m.receiver.answers = [500, 500];
    const { n } = notifier(m.env, 'watch', { webhook: { baseDelayMs: 0, maxDelayMs: 0, attempts: 2 } });
    n.start();
    n.update(doc(idle));
    n.update(doc(waiting));
    await n.idle();
    n.tick();
    const status = readStatus(m.env.CCTOP_RUNTIME_DIR);
    expect(status).toMatchObject({
      role: 'watch',
      pid: process.pid,
      desktop: null,
      webhook: {
        format: 'json',
        sent: 0,
        failed: 1,
        queued: 0,
        lastFailure: { status: 500, attempts: 2, final: true },
      },
    });
  });

  it('a runtime directory that cannot be used turns sending off, and says why once', async () => {
    const m = await machine();
    mkdirSync(m.env.CCTOP_RUNTIME_DIR, { recursive: true });
    const file = join(m.dir, 'not-a-dir');
    writeFileSync(file, '');
    const { n, problems } = notifier({ ...m.env, CCTOP_RUNTIME_DIR: join(file, 'run') }, 'watch');
    expect(n.start()).toBe(false);
    n.update(doc(idle));
    n.update(doc(waiting));
    await n.idle();
    expect(m.receiver.received).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^desktop and webhook notifications are off: the runtime directory/);
  });

  it('a webhook given up on is said once, and never blocks the update that found the crossing', async () => {
    const m = await machine();
    m.receiver.answers = [404];
    const { n, problems } = notifier(m.env, 'table');
    n.start();
    n.update(doc(idle));
    const before = m.receiver.received.length;
    n.update(doc(waiting));
    expect(m.receiver.received.length).toBe(before);
    await n.idle();
    expect(problems).toEqual([
      expect.stringMatching(
        /^webhook http:\/\/127\.0\.0\.1:\d+\/…: a waiting notice was not delivered after 1 try \(HTTP 404\)$/,
      ),
    ]);
  });

  it('a hostile session title arrives at the webhook as one bounded, harmless line', async () => {
    const m = await machine();
    const { n } = notifier(m.env, 'watch');
    n.start();
    const title = `\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[31m${'A'.repeat(1_000_000)}`;
    n.update(doc({ ...idle, title }));
    n.update(doc({ ...waiting, title }));
    await n.idle();
    const body = m.receiver.received[0]!.body;
    expect(body.length).toBeLessThan(4096);
    const got = JSON.parse(body);
    expect(got.session.title).toMatch(/^\ufffd\ufffdA+…$/);
    expect(JSON.stringify(got)).not.toMatch(/\\u001b|\\u0007/);
  });
});
