import { afterEach, describe, expect, it } from 'vitest';
import type { NotifyFormat } from '../config/index.js';
import { crossingNotice, type Notice } from './notice.js';
import { NOW, Receiver, session } from './test-support/fixtures.js';
import { type WebhookOptions, WebhookSender } from './webhook.js';

const receivers: Receiver[] = [];
const senders: WebhookSender[] = [];
afterEach(async () => {
  for (const s of senders.splice(0)) s.stop();
  for (const r of receivers.splice(0)) await r.stop();
});

async function receiver(answers: (number | 'silent')[] = []): Promise<{ r: Receiver; url: string }> {
  const r = new Receiver();
  r.answers = answers;
  receivers.push(r);
  return { r, url: await r.start() };
}

/** A sender that does not wait between tries (the delays are the backoff's business, not the test's). */
function sender(url: string, format: NotifyFormat, over: Partial<WebhookOptions> = {}): WebhookSender {
  const s = new WebhookSender({ url, format, baseDelayMs: 0, maxDelayMs: 0, now: () => NOW, ...over });
  senders.push(s);
  return s;
}

function notice(title: string, over: Partial<Parameters<typeof session>[1]> = {}): Notice {
  const s = session('a1b2', {
    state: 'waiting',
    pendingTool: 'Bash',
    title,
    project: '/home/dev/src/shop',
    lastActiveAt: '2026-03-02T11:59:00.000Z',
    ...over,
  });
  return crossingNotice(
    { session: s, into: 'waiting', probably: false },
    { dashboard: 'http://127.0.0.1:7777', nowMs: NOW },
  );
}

describe('a webhook in each format', () => {
  it('json: one POST of the notice as one small object', async () => {
    const { r, url } = await receiver();
    const s = sender(url, 'json');
    s.send(notice('fix the login form'));
    await s.idle();
    expect(r.received).toHaveLength(1);
    const got = r.received[0]!;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/hook/secret-topic');
    expect(got.headers['content-type']).toBe('application/json');
    expect(JSON.parse(got.body)).toEqual({
      v: 1,
      kind: 'waiting',
      session: { provider: 'claude', id: 'a1b2', title: 'fix the login form', project: '/home/dev/src/shop' },
      harness: 'claude',
      project: '/home/dev/src/shop',
      asked: 'Bash',
      title: 'Waiting: fix the login form',
      text: 'fix the login form is waiting for you (Claude Code in shop): Bash',
      url: 'http://127.0.0.1:7777/session/a1b2',
      at: '2026-03-02T12:00:00.000Z',
    });
    expect(s.status).toMatchObject({ sent: 1, failed: 0, queued: 0 });
    // What the status shows of the address leaves out its path, the secret part.
    expect(s.status.target).toBe(`${new URL(url).origin}/…`);
  });

  it('ntfy: the text as the body, the title, tag and link as headers', async () => {
    const { r, url } = await receiver();
    const s = sender(url, 'ntfy');
    s.send(notice('réparer le formulaire ✨'));
    await s.idle();
    const got = r.received[0]!;
    expect(got.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(got.body).toBe('réparer le formulaire ✨ is waiting for you (Claude Code in shop): Bash');
    expect(got.headers.tags).toBe('hourglass_flowing_sand');
    expect(got.headers.click).toBe('http://127.0.0.1:7777/session/a1b2');
    // Not ASCII, so an RFC 2047 encoded word, which ntfy decodes.
    const title = got.headers.title as string;
    const m = /^=\?UTF-8\?B\?([A-Za-z0-9+/=]+)\?=$/.exec(title);
    expect(Buffer.from(m![1]!, 'base64').toString('utf8')).toBe('Waiting: réparer le formulaire ✨');
  });

  it('slack: { text } with the markup characters escaped', async () => {
    const { r, url } = await receiver();
    const s = sender(url, 'slack');
    s.send(notice('<!channel> & <https://evil.test|click>'));
    await s.idle();
    const body = JSON.parse(r.received[0]!.body);
    expect(Object.keys(body)).toEqual(['text']);
    expect(body.text).toBe(
      '*Waiting: &lt;!channel&gt; &amp; &lt;https://evil.test|click&gt;*\n' +
        '&lt;!channel&gt; &amp; &lt;https://evil.test|click&gt; is waiting for you (Claude Code in shop): Bash\n' +
        '<http://127.0.0.1:7777/session/a1b2|Open in cctop>',
    );
  });
});

describe('a failing webhook', () => {
  it('a server failing twice gets the notice on the third try, once', async () => {
    const { r, url } = await receiver([500, 503]);
    const s = sender(url, 'json');
    s.send(notice('fix the login form'));
    await s.idle();
    expect(r.received).toHaveLength(3);
    expect(new Set(r.received.map((x) => x.body)).size).toBe(1);
    expect(s.status).toMatchObject({ sent: 1, failed: 0 });
    expect(s.status.lastFailure).toMatchObject({ status: 503, attempts: 2, final: false });
  });

  it('a server that never answers does not hold the caller: the timeout ends each try', async () => {
    const { r, url } = await receiver(['silent', 'silent']);
    const given: string[] = [];
    const s = sender(url, 'json', { timeoutMs: 50, attempts: 2, onGiveUp: (_, f) => given.push(f.error) });
    const before = r.received.length;
    s.send(notice('fix the login form'));
    // `send` returned before anything reached the server.
    expect(r.received.length).toBe(before);
    expect(s.status.queued).toBe(1);
    await s.idle();
    // Both tries were made and timed out; on a loaded machine a 50 ms try can end before the server
    // has even read its request, so the sender's count is the one to trust, not the server's.
    expect(r.received.length).toBeLessThanOrEqual(2);
    expect(s.status.lastFailure).toMatchObject({ attempts: 2 });
    expect(given).toEqual(['no answer within 0.05 s']);
    expect(s.status).toMatchObject({ sent: 0, failed: 1, queued: 0 });
  });

  it('an answer that asking again will not change is not asked again', async () => {
    const { r, url } = await receiver([404]);
    const s = sender(url, 'json');
    s.send(notice('fix the login form'));
    await s.idle();
    expect(r.received).toHaveLength(1);
    expect(s.status.lastFailure).toMatchObject({ status: 404, attempts: 1, final: true, error: 'HTTP 404' });
  });

  it('a redirect is not followed: the notice goes only where the user said', async () => {
    const { r, url } = await receiver([301]);
    const s = sender(url, 'json');
    s.send(notice('fix the login form'));
    await s.idle();
    expect(r.received).toHaveLength(1);
    expect(s.status.lastFailure?.error).toMatch(/^HTTP 301: redirected/);
  });

  it('a server that refuses connections is retried and then given up on, naming why', async () => {
    const { r, url } = await receiver();
    await r.stop();
    const s = sender(url, 'json', { attempts: 2 });
    s.send(notice('fix the login form'));
    await s.idle();
    expect(s.status.lastFailure).toMatchObject({
      status: null,
      error: 'ECONNREFUSED',
      attempts: 2,
      final: true,
    });
  });

  it('behind a stuck notice the queue keeps the newest, dropping and counting the oldest', async () => {
    const { r, url } = await receiver(['silent']);
    const s = sender(url, 'json', { timeoutMs: 200, attempts: 1, maxQueue: 2 });
    for (const t of ['one', 'two', 'three', 'four'])
      s.send(notice(t, { lastActiveAt: `2026-03-02T11:5${t.length}:00Z` }));
    await s.idle();
    const titles = r.received.map((x) => JSON.parse(x.body).session.title);
    expect(titles).toEqual(['one', 'three', 'four']);
    expect(s.status).toMatchObject({ sent: 2, failed: 1, dropped: 1 });
  });
});
