/**
 * A hundred open pages that stop reading (phones asleep, a stalled proxy) while the document keeps
 * changing: the server's memory must level off, not grow with every update.
 *
 * The history is made large on purpose (500 sessions, a document of about half a megabyte). Each
 * stalled stream holds one frame at most: the whole document it opened with until a newer frame
 * replaces it, then the newest update (a few kilobytes). A queue without a bound would keep every
 * update per stream instead, and the whole document behind them; a page that reads again sees the
 * gap in the numbers and fetches the newest document once.
 */
import { appendFileSync } from 'node:fs';
import { type ClientRequest, request } from 'node:http';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeHome } from '../../src/test-support/corpus.js';
import { DEMO_HOME } from '../../src/test-support/owned.js';
import type { WholeFrame } from '../../src/views/serve/delta.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import { claude, serve, TOKEN, until } from './helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The demo's smallest session (a docs fix, 21 lines), copied many times. */
const SMALL = 'f98c2860-e7f8-42c8-aee1-25d2bb382356';
const SESSIONS = 500;
const CLIENTS = 100;
const UPDATES = 25;

function retained(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const MB = 1024 * 1024;

describe('100 event streams that stop reading', () => {
  let home: FakeHome;
  let s: RunningServer;
  const clients: ClientRequest[] = [];
  let path = '';

  beforeAll(async () => {
    home = new FakeHome();
    for (let i = 0; i < SESSIONS; i++)
      home.copy(
        join(DEMO_HOME, '.claude', 'projects', '-home-sam-src-docs', `${SMALL}.jsonl`),
        home.claudeFile('-work-many', `s-${String(i).padStart(4, '0')}.jsonl`),
      );
    path = home.claudeFile('-work-many', 's-0000.jsonl');
    s = await serve(home);
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await s?.close();
    home?.cleanup();
  });

  async function update(n: number): Promise<void> {
    const v = s.live.version;
    appendFileSync(path, claude.title('s-0000', `update ${n}`));
    await until(`update ${n}`, () => s.live.version > v);
  }

  it('hold one pending frame each, and the server memory levels off', async () => {
    await s.live.refresh();
    const docBytes = JSON.stringify(s.live.document).length;
    let connected = 0;
    for (let i = 0; i < CLIENTS; i++) {
      const req = request(
        {
          host: '127.0.0.1',
          port: s.port,
          path: '/api/events',
          headers: { Authorization: `Bearer ${TOKEN}` },
          agent: false,
        },
        (res) => {
          connected++;
          // Never read: the socket's buffers fill and the server's writes stall.
          res.pause();
        },
      );
      req.on('error', () => {});
      req.end();
      clients.push(req);
    }
    await until('every stream open', () => connected === CLIENTS && s.hub.stats().streams === CLIENTS);

    for (let n = 0; n < 5; n++) await update(n);
    const early = retained();
    for (let n = 5; n < UPDATES; n++) await update(n);
    const late = retained();

    const stats = s.hub.stats();
    const growth = late - early;
    console.log(
      `memory with ${CLIENTS} stalled streams: document ${(docBytes / 1024).toFixed(0)} KB; heap+buffers ${(early / MB).toFixed(1)} MB after 5 updates, ${(late / MB).toFixed(1)} MB after ${UPDATES} (growth ${(growth / MB).toFixed(1)} MB; a queue without a bound holds ${(((UPDATES - 5) * docBytes) / MB).toFixed(0)} MB more with shared frames, ${(((UPDATES - 5) * CLIENTS * docBytes) / MB).toFixed(0)} MB with a frame per stream)`,
    );
    expect(stats.streams).toBe(CLIENTS);
    // At most one frame waits per stream, never a backlog.
    expect(stats.waiting).toBeLessThanOrEqual(CLIENTS);
    // Twenty more updates: without a bound, each stream would keep all of them.
    expect(growth).toBeLessThan(4 * docBytes);
  });

  it('a page that reads again gets the newest document, not the backlog', async () => {
    const last = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: s.port,
          path: '/api/events',
          headers: { Authorization: `Bearer ${TOKEN}` },
          agent: false,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            text += d;
            const m = /event: sessions\ndata: (.*)\n\n/.exec(text);
            if (m) {
              req.destroy();
              resolve(m[1]!);
            }
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
    const whole = JSON.parse(last) as WholeFrame;
    expect(whole.document.sessions.some((x) => x.title === `update ${UPDATES - 1}`)).toBe(true);
  });
});
