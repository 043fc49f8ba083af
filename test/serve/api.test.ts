/**
 * `cctop serve` over real HTTP on 127.0.0.1: who gets in, what is refused before it is read, and
 * what the JSON API answers, on a history made of the lab's recorded runs, the demo and a long session the test writes.
 */
import { appendFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Conversation } from '../../src/model/conversation.js';
import type { SessionDocument } from '../../src/model/document.js';
import type { SessionReport } from '../../src/report/types.js';
import { FakeHome } from '../../src/test-support/corpus.js';
import { readCold } from '../../src/test-support/snapshot.js';
import type { Io } from '../../src/views/cli/main.js';
import { RUN_HEADER, SEQ_HEADER } from '../../src/views/serve/app.js';
import { cookieName } from '../../src/views/serve/auth.js';
import { serveCommand } from '../../src/views/serve/command.js';
import { type ChangesFrame, Follower, type WholeFrame } from '../../src/views/serve/delta.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import { MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_URL_CHARS } from '../../src/views/serve/limits.js';
import {
  base,
  bearer,
  claude,
  get,
  LAB_CLAUDE,
  LONG_CODEX,
  ownedHome,
  raw,
  serve,
  statusOf,
  TOKEN,
  until,
} from './helpers.js';

type Chat = Conversation & { stamp: string; unchanged?: true };
const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;

function io(env: Record<string, string>): Io & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    lines,
    errors,
    out: (s) => lines.push(Buffer.from(s).toString()),
    err: (s) => errors.push(s),
    isTty: false,
    columns: 80,
    env,
  };
}

describe('cctop serve over HTTP', () => {
  let home: FakeHome;
  let s: RunningServer;
  let url: string;

  beforeAll(async () => {
    home = ownedHome();
    s = await serve(home);
    url = base(s);
  });
  afterAll(async () => {
    await s?.close();
    home?.cleanup();
  });

  describe('who gets in', () => {
    it('a request without a token is answered 401, pages and API alike', async () => {
      for (const path of ['/', '/api/sessions', '/api/events', '/assets/app.js', '/session/abc']) {
        const res = await fetch(`${url}${path}`);
        expect(res.status, path).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="cctop"');
      }
    });

    it('a wrong token is answered 401, whether it is almost right, a prefix or garbage', async () => {
      const wrong = [
        `${TOKEN.slice(0, -1)}X`,
        `X${TOKEN.slice(1)}`,
        TOKEN.slice(0, 10),
        `${TOKEN}extra`,
        '',
        'x'.repeat(300),
      ];
      for (const t of wrong) {
        expect((await fetch(`${url}/api/sessions`, { headers: bearer(t) })).status).toBe(401);
        expect((await fetch(`${url}/api/sessions?t=${encodeURIComponent(t)}`)).status).toBe(401);
      }
      expect((await fetch(`${url}/api/sessions`, { headers: { Authorization: TOKEN } })).status).toBe(401);
    });

    it('the token as a Bearer header, or ?t= on the API, is let in', async () => {
      expect((await fetch(`${url}/api/sessions`, { headers: bearer() })).status).toBe(200);
      expect((await fetch(`${url}/api/sessions?t=${TOKEN}`)).status).toBe(200);
    });

    it('the read-only token reads everything there is to read today, and is told its level', async () => {
      const read = s.tokens!.read;
      expect(read).not.toBe(TOKEN);
      const info = await json<{ level: string }>(await fetch(`${url}/api/info`, { headers: bearer(read) }));
      expect(info.level).toBe('read');
      expect((await fetch(`${url}/api/sessions`, { headers: bearer(read) })).status).toBe(200);
      const full = await json<{ level: string }>(await fetch(`${url}/api/info`, { headers: bearer() }));
      expect(full.level).toBe('full');
    });

    it('?t= on a page trades the token for an HttpOnly, SameSite=Strict cookie named for the port, and drops it from the URL', async () => {
      const res = await fetch(`${url}/session/abc?t=${TOKEN}&x=1`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/session/abc?x=1');
      const cookie = res.headers.get('set-cookie')!;
      expect(cookie).toContain(`${cookieName(s.port)}=${TOKEN}`);
      expect(cookie).toContain(`cctop_${s.port}=`);
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
      const page = await fetch(`${url}/`, { headers: { Cookie: `${cookieName(s.port)}=${TOKEN}` } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<script type="module" src="/assets/app.js">');
    });

    it("another port's cookie does not open this one, and a stale cookie is cleared", async () => {
      const other = await fetch(`${url}/`, { headers: { Cookie: `${cookieName(s.port + 1)}=${TOKEN}` } });
      expect(other.status).toBe(401);
      const stale = await fetch(`${url}/`, {
        headers: { Cookie: `${cookieName(s.port)}=old-token-from-yesterday` },
      });
      expect(stale.status).toBe(401);
      expect(stale.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    });

    it('the icon and the manifest are the only files served without a token', async () => {
      expect((await fetch(`${url}/favicon.svg`)).status).toBe(200);
      expect((await fetch(`${url}/manifest.webmanifest`)).status).toBe(200);
    });

    it('a page reached under another host name (DNS rebinding) is refused on a loopback bind', async () => {
      const res = await get(s.port, '/api/sessions', { ...bearer(), Host: `evil.example:${s.port}` });
      expect(res.status).toBe(403);
      expect((await get(s.port, '/api/sessions', { ...bearer(), Host: `localhost:${s.port}` })).status).toBe(
        200,
      );
    });

    it('the API does not answer a cross-site request even with the cookie', async () => {
      const res = await get(s.port, '/api/sessions', {
        Cookie: `${cookieName(s.port)}=${TOKEN}`,
        'Sec-Fetch-Site': 'cross-site',
      });
      expect(res.status).toBe(403);
    });
  });

  describe('what is refused before it is read', () => {
    it('path traversal, plain or encoded, is rejected and never reaches a file', async () => {
      const paths = [
        '/assets/../../../../etc/passwd',
        '/assets/..%2f..%2f..%2fpackage.json',
        '/assets/%2e%2e/%2e%2e/etc/passwd',
        '/assets/..\\..\\package.json',
        '/session/..%2F..%2Fetc%2Fpasswd',
        '/api/report/..%2F..%2Fetc%2Fpasswd',
        '/api/chat/%2e%2e',
        '/api/report/..',
        '/assets/%00app.js',
        `//evil.example/?t=${TOKEN}`,
      ];
      for (const path of paths) {
        const res = await raw(
          s.port,
          `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`,
        );
        expect([400, 404], path).toContain(statusOf(res));
        expect(res, path).not.toMatch(/root:|"name": "cctop"/);
        expect(res, path).not.toMatch(/^location:/im);
      }
    });

    it('ids are checked, not trimmed: an over-long or odd id is a 400, an unknown one a 404', async () => {
      const long = 'a'.repeat(257);
      expect((await get(s.port, `/api/report/${long}`)).status).toBe(400);
      expect((await get(s.port, `/api/report/${long.slice(0, 256)}`)).status).toBe(404);
      expect((await get(s.port, '/api/report/%3Cscript%3E')).status).toBe(400);
      expect((await get(s.port, `/api/chat/${LONG_CODEX}?agent=../x`)).status).toBe(400);
      expect((await get(s.port, `/api/chat/${LONG_CODEX}?before=-1`)).status).toBe(400);
      expect((await get(s.port, `/api/chat/${LONG_CODEX}?since=NOT-A-STAMP`)).status).toBe(400);
    });

    it('an ambiguous prefix is a 409 that lists the candidates', async () => {
      // The lab's five Codex runs were recorded within a minute: their ids share the prefix.
      const res = await get(s.port, '/api/report/01a2337e');
      expect(res.status).toBe(409);
      expect(JSON.parse(res.body).candidates.length).toBeGreaterThan(1);
    });

    it('oversized requests are refused: headers (431), URL (414), body (413)', async () => {
      const big = 'x'.repeat(MAX_HEADER_BYTES + 1024);
      const headers = await raw(s.port, `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${big}\r\n\r\n`);
      expect(statusOf(headers)).toBe(431);
      const longUrl = await get(s.port, `/api/sessions?pad=${'y'.repeat(MAX_URL_CHARS)}`);
      expect(longUrl.status).toBe(414);
      const body = await raw(
        s.port,
        `POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: ${MAX_BODY_BYTES * 16}\r\n\r\n${'z'.repeat(1024)}`,
      );
      expect(statusOf(body)).toBe(413);
      const chunked = await raw(
        s.port,
        `GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n`,
      );
      expect(statusOf(chunked)).toBe(413);
    });

    it('anything but GET is refused, but for the answer route', async () => {
      const res = await fetch(`${url}/api/sessions`, { method: 'DELETE', headers: bearer() });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD');
    });

    it('every answer carries a strict Content-Security-Policy, errors included', async () => {
      for (const res of [await fetch(`${url}/`), await fetch(`${url}/api/sessions`, { headers: bearer() })]) {
        const csp = res.headers.get('content-security-policy')!;
        expect(csp).toContain("default-src 'none'");
        expect(csp).toContain("script-src 'self'");
        expect(csp).not.toContain('unsafe-inline');
        expect(csp).toContain("require-trusted-types-for 'script'");
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      }
    });
  });

  describe('the JSON API', () => {
    it('/api/sessions is the same document cctop --json prints', async () => {
      const served = (await (
        await fetch(`${url}/api/sessions`, { headers: bearer() })
      ).json()) as SessionDocument;
      const printed = (await readCold(home.env)).document;
      expect(served.version).toBe(printed.version);
      const pick = (d: SessionDocument) =>
        d.sessions.map((x) => ({
          id: x.id,
          provider: x.provider,
          title: x.title,
          tokens: x.tokens,
          usd: x.cost.usd,
          context: x.context,
        }));
      expect(pick(served)).toEqual(pick(printed));
      expect(served.sessions.length).toBeGreaterThan(20);
    });

    it('/api/sessions answers 304 to a page that already has the current document', async () => {
      const first = await fetch(`${url}/api/sessions`, { headers: bearer() });
      const tag = first.headers.get('etag')!;
      const again = await fetch(`${url}/api/sessions`, { headers: { ...bearer(), 'If-None-Match': tag } });
      expect(again.status).toBe(304);
    });

    it('/api/report/:id answers a prefix with the full report', async () => {
      const r = await json<SessionReport>(
        await fetch(`${url}/api/report/${LONG_CODEX.slice(0, 13)}`, { headers: bearer() }),
      );
      expect(r.session.id).toBe(LONG_CODEX);
      expect(r.cost.byModel.length).toBeGreaterThan(0);
      expect(r.context.series.length).toBeGreaterThan(0);
    });

    it('/api/chat pages back with before=, and its stamp makes a repeat poll answer {unchanged: true}', async () => {
      const newest = await json<Chat>(await fetch(`${url}/api/chat/${LONG_CODEX}`, { headers: bearer() }));
      expect(newest.turns.length).toBe(200);
      expect(newest.earlier).toBeGreaterThan(0);
      expect(newest.stamp).toMatch(/^[0-9a-f]+$/);
      const older = await json<Chat>(
        await fetch(`${url}/api/chat/${LONG_CODEX}?before=${newest.earlier}`, { headers: bearer() }),
      );
      expect(older.turns.at(-1)!.seq).toBeLessThan(newest.earlier);
      expect(older.earlier).toBe(0);
      const same = await json<Chat>(
        await fetch(`${url}/api/chat/${LONG_CODEX}?since=${newest.stamp}`, { headers: bearer() }),
      );
      expect(same).toEqual({ unchanged: true, stamp: newest.stamp });
    });

    it('/api/chat/:id/markdown is the conversation as a Markdown download', async () => {
      const res = await get(s.port, `/api/chat/${LONG_CODEX}/markdown`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(
        `attachment; filename="${LONG_CODEX}.md"; filename*=UTF-8''${LONG_CODEX}.md`,
      );
      expect(res.body).toMatch(/^# /);
      expect(res.body).toContain(`session \`${LONG_CODEX}\``);
    });

    it('a line appended to a transcript changes the stamp and the conversation', async () => {
      const { id, rel } = LAB_CLAUDE.text;
      const path = join(home.dir, rel);
      const before = await json<Chat>(await fetch(`${url}/api/chat/${id}`, { headers: bearer() }));
      appendFileSync(path, claude.user(id, 'one more question from the test'));
      const after = await json<Chat>(
        await fetch(`${url}/api/chat/${id}?since=${before.stamp}`, { headers: bearer() }),
      );
      expect(after.unchanged).toBeUndefined();
      expect(after.stamp).not.toBe(before.stamp);
      expect(after.turns.at(-1)!.text).toBe('one more question from the test');
    });
  });

  describe('the event stream', () => {
    /** A page's stream, read into frames as they come. */
    async function stream(headers: Record<string, string> = {}) {
      const ctrl = new AbortController();
      const res = await fetch(`${url}/api/events`, {
        headers: { ...bearer(), ...headers },
        signal: ctrl.signal,
      });
      const reader = res.body!.getReader();
      const dec = new TextDecoder();
      let text = '';
      const pump = (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          text += dec.decode(value, { stream: true });
        }
      })().catch(() => {});
      const frames = (event: 'sessions' | 'changes') =>
        [...text.matchAll(new RegExp(`event: ${event}\ndata: (.*)\n\n`, 'g'))].map((m) => JSON.parse(m[1]!));
      return {
        res,
        text: () => text,
        wholes: () => frames('sessions') as WholeFrame[],
        updates: () => frames('changes') as ChangesFrame[],
        async close() {
          ctrl.abort();
          await pump;
        },
      };
    }

    /** What a page does to catch up: fetch `/api/sessions` and read where it stands from its headers. */
    const fetchWhole = async (): Promise<WholeFrame | null> => {
      const res = await fetch(`${url}/api/sessions`, { headers: bearer() });
      return {
        run: res.headers.get(RUN_HEADER)!,
        seq: Number(res.headers.get(SEQ_HEADER)),
        document: (await res.json()) as SessionDocument,
      };
    };

    it('sends the whole document on connect, then numbered updates that keep a page current', async () => {
      const page = await stream();
      expect(page.res.headers.get('content-type')).toContain('text/event-stream');
      await until('the first document', () => page.wholes().length >= 1);
      expect(page.text().startsWith('retry: ')).toBe(true);
      const first = page.wholes()[0]!;
      expect(first.document.sessions.length).toBeGreaterThan(20);
      // A page follows the stream as web/live.js does.
      let shown: SessionDocument | null = null;
      const follower = new Follower(fetchWhole, (d) => {
        shown = d;
      });
      follower.whole(first);
      appendFileSync(
        join(home.dir, LAB_CLAUDE.call.rel),
        claude.title(LAB_CLAUDE.call.id, 'Renamed while the stream was open'),
      );
      let fed = 0;
      await until('the page to hold the new title', () => {
        for (const u of page.updates().slice(fed)) follower.changes(u);
        fed = page.updates().length;
        return (
          (shown as SessionDocument | null)?.sessions.some(
            (x) => x.title === 'Renamed while the stream was open',
          ) ?? false
        );
      });
      const u = page.updates()[0]!;
      expect(u.run).toBe(first.run);
      expect(u.seq).toBe(first.seq + 1);
      // Only a live picture that says nothing of what changed sends a bare "everything".
      if (u.kind === 'some') expect(JSON.stringify(u).length).toBeLessThan(JSON.stringify(first).length / 4);
      await page.close();
    });

    it("/api/sessions says where its document stands among the stream's updates", async () => {
      const page = await stream();
      await until('the first document', () => page.wholes().length >= 1);
      const res = await fetch(`${url}/api/sessions`, { headers: bearer() });
      const whole = page.wholes()[0]!;
      expect(res.headers.get(RUN_HEADER)).toBe(whole.run);
      expect(Number(res.headers.get(SEQ_HEADER))).toBeGreaterThanOrEqual(whole.seq);
      expect(res.headers.get('etag')).toBe(`"${whole.run}.${res.headers.get(SEQ_HEADER)}"`);
      await page.close();
    });

    it('a page reconnecting to a restarted server gets the document, whatever event id it saw last', async () => {
      const firstEvent = async (port: number, lastId: string | null) => {
        const ctrl = new AbortController();
        const res = await fetch(`http://127.0.0.1:${port}/api/events`, {
          headers: { ...bearer(), ...(lastId ? { 'Last-Event-ID': lastId } : {}) },
          signal: ctrl.signal,
        });
        const reader = res.body!.getReader();
        let text = '';
        while (!/\n\n(id: .*\n)?event: \w+\n/.test(text))
          text += new TextDecoder().decode((await reader.read()).value);
        ctrl.abort();
        return text;
      };
      const seen = /id: (.*)\n/.exec(await firstEvent(s.port, null))![1]!;
      // The same server skips a document the page already has...
      expect(await firstEvent(s.port, seen)).not.toContain('event: sessions');
      // ...a new run, whose version counter starts again, does not.
      const again = await serve(home);
      try {
        expect(await firstEvent(again.port, seen)).toContain('event: sessions');
      } finally {
        await again.close();
      }
    });

    it('HEAD on the stream opens no stream', async () => {
      const before = s.hub.stats().streams;
      for (let i = 0; i < 20; i++)
        expect((await fetch(`${url}/api/events`, { method: 'HEAD', headers: bearer() })).status).toBe(200);
      expect(s.hub.stats().streams).toBe(before);
    });
  });
});

describe('starting cctop serve', () => {
  it('--no-token with a non-loopback bind refuses to start', async () => {
    const home = new FakeHome();
    try {
      for (const bind of ['0.0.0.0', '::', '192.168.1.10']) {
        const o = io(home.env);
        expect(await serveCommand(['--no-token', '--bind', bind, '--port', '0'], o)).toBe(2);
        expect(o.errors.join('\n')).toMatch(/--no-token is refused/);
        expect(o.lines).toEqual([]);
      }
      await expect(serve(home, { bind: '0.0.0.0', token: null })).rejects.toThrow(/--no-token is refused/);
    } finally {
      home.cleanup();
    }
  });

  it('--no-token on loopback serves without a token', async () => {
    const home = new FakeHome();
    const s = await serve(home, { token: null });
    try {
      expect((await fetch(`${base(s)}/api/sessions`)).status).toBe(200);
      expect(s.links.read).toEqual([]);
    } finally {
      await s.close();
      home.cleanup();
    }
  });

  it('a busy default port steps to the next free one; an explicit busy port is an error', async () => {
    const home = new FakeHome();
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const busy = (blocker.address() as AddressInfo).port;
    try {
      const stepped = await serve(home, { port: busy, stepPort: true });
      expect(stepped.port).toBeGreaterThan(busy);
      expect(stepped.links.full[0]).toBe(`http://127.0.0.1:${stepped.port}/?t=${TOKEN}`);
      await stepped.close();
      await expect(serve(home, { port: busy, stepPort: false })).rejects.toThrow(`port ${busy} is busy`);
    } finally {
      blocker.close();
      home.cleanup();
    }
  });

  it('prints the link with its token, and a read-only link', async () => {
    const home = new FakeHome();
    const o = io(home.env);
    let stop = () => {};
    const running = serveCommand(['--port', '0', '--delay', '1'], o, new Promise<void>((r) => (stop = r)));
    try {
      await until('the link', () => o.lines.length >= 2);
      expect(o.lines[0]).toMatch(/^cctop serve: http:\/\/127\.0\.0\.1:\d+\/\?t=[A-Za-z0-9_-]{43}$/);
      expect(o.lines[1]).toMatch(/^read-only: +http:\/\/127\.0\.0\.1:\d+\/\?t=/);
      const link = o.lines[0]!.slice('cctop serve: '.length);
      expect((await fetch(link, { redirect: 'manual' })).status).toBe(302);
    } finally {
      stop();
      expect(await running).toBe(0);
      home.cleanup();
    }
  });

  it('bad flags are usage errors', async () => {
    const home = new FakeHome();
    try {
      for (const args of [
        ['--port', '99999'],
        ['--delay', '0.1'],
        ['--token-file', '/tmp/x', '--no-token'],
        ['extra'],
      ]) {
        const o = io(home.env);
        expect(await serveCommand(args, o), args.join(' ')).toBe(2);
      }
    } finally {
      home.cleanup();
    }
  });

  it('a client that never finishes its request is cut off (request time limit)', async () => {
    const home = new FakeHome();
    const s = await serve(home, { limits: { requestTimeoutMs: 800 } });
    try {
      const started = Date.now();
      const res = await raw(
        s.port,
        `GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nX-Slow: `,
        8000,
      );
      expect(Date.now() - started).toBeLessThan(5000);
      expect(statusOf(res)).toBe(408);
    } finally {
      await s.close();
      home.cleanup();
    }
  });
});
