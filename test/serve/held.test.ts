/**
 * Answering a held request (docs/act.md) through `cctop serve`, over real HTTP on 127.0.0.1: the
 * "Needs you" list, the acting route, and what keeps it from acting. The hold is the hook's own code
 * (`approvals/hold.ts`) running in this process against the same runtime directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HoldResult, startHold } from '../../src/approvals/hold.js';
import { linkKey, linkPath } from '../../src/approvals/sign.js';
import { approvalsDir } from '../../src/approvals/store.js';
import { APPROVAL_VERSION, type ApprovalRequest } from '../../src/approvals/types.js';
import { FakeHome } from '../../src/test-support/corpus.js';
import { Tokens } from '../../src/views/serve/auth.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import { base, bearer, serve, TOKEN } from './helpers.js';

/** How long a test's hold lasts at most: far beyond what an answer over loopback takes. */
const HOLD_MS = 60_000;

describe('answering a held request from the dashboard', () => {
  let home: FakeHome;
  let runtime: string;
  let s: RunningServer;
  let url: string;
  let n = 0;

  beforeAll(async () => {
    home = new FakeHome();
    runtime = mkdtempSync(join(tmpdir(), 'cctop-serve-held-'));
    s = await serve(home, { env: { ...home.env, CCTOP_RUNTIME_DIR: runtime } });
    url = base(s);
  });
  afterAll(async () => {
    await s?.close();
    home?.cleanup();
    rmSync(runtime, { recursive: true, force: true });
  });

  /** A request held as Claude Code's hook holds one: registered, waiting for its first answer. */
  function held(): { request: ApprovalRequest; done: Promise<HoldResult>; stop: () => void } {
    const dir = approvalsDir(runtime)!;
    const now = Date.now();
    const request: ApprovalRequest = {
      v: APPROVAL_VERSION,
      id: (++n).toString(16).padStart(32, '0'),
      agent: 'claude',
      session: `590ab5e8-${n}`,
      cwd: '/work',
      tool: 'Bash',
      input: 'touch lab-approved.txt',
      kind: 'permission',
      questions: [],
      at: now,
      expiresAt: now + HOLD_MS,
      pid: process.pid,
    };
    const hold = startHold({
      dir,
      runtime,
      request,
      now: Date.now,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      agentPid: null,
      movedOn: () => false,
      render: (a) => JSON.stringify(a.verdict),
    });
    return { request, done: hold.done, stop: () => hold.stop('hook-ended') };
  }

  const post = (id: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}/api/held/${id}/answer`, {
      method: 'POST',
      headers: {
        ...bearer(),
        Origin: url,
        'Sec-Fetch-Site': 'same-origin',
        'Content-Type': 'application/json',
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('lists the open requests, and a deny from the page reaches the hook with its reason', async () => {
    const h = held();
    const list = (await (await fetch(`${url}/api/held`, { headers: bearer() })).json()) as {
      requests: ApprovalRequest[];
    };
    expect(list.requests.map((r) => r.id)).toContain(h.request.id);
    const res = await post(h.request.id, { verdict: 'deny', reason: 'not on a Monday' });
    expect([res.status, await res.text()]).toEqual([200, '{"outcome":"delivered"}']);
    const out = await h.done;
    expect(out.kind === 'delivered' ? [out.output, out.answer.by.via, out.answer.by.who] : out).toEqual([
      '{"kind":"deny","reason":"not on a Monday"}',
      'dashboard',
      'the dashboard’s token holder',
    ]);
    const again = await post(h.request.id, { verdict: 'allow' });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toMatch(
      /^no longer open: answered \(deny: not on a Monday\) by the dashboard’s token holder via dashboard from 127\.0\.0\.1 \(cctop serve on .+\)$/,
    );
  });

  it('a signed link answers without the token, once: its page shows what it does, only its POST acts', async () => {
    const h = held();
    const key = linkKey(runtime)!;
    const claim = {
      id: h.request.id,
      verdict: 'deny' as const,
      via: 'ntfy' as const,
      expiresAt: h.request.expiresAt,
    };
    const link = `${url}${linkPath(key, claim)}`;
    const page = await fetch(link);
    expect([page.status, await page.text()]).toEqual([
      200,
      expect.stringContaining('<p>Deny Bash: touch lab-approved.txt?</p><form method="post"'),
    ]);
    const forged = await fetch(link.replace('/deny?', '/allow?'), { method: 'POST' });
    expect(forged.status).toBe(403);
    const used = await fetch(link, { method: 'POST' });
    expect([used.status, await used.text()]).toEqual([200, expect.stringContaining('<p>Denied.</p>')]);
    const out = await h.done;
    expect(
      out.kind === 'delivered' ? [out.answer.verdict, out.answer.by.via, out.answer.by.who] : out,
    ).toEqual([{ kind: 'deny', reason: null }, 'ntfy', 'the holder of a ntfy link']);
    const again = await fetch(link, { method: 'POST' });
    expect([again.status, await again.text()]).toEqual([
      409,
      expect.stringContaining(
        'Not answered: no longer open: answered (deny) by the holder of a ntfy link via ntfy',
      ),
    ]);
  });

  it('the read-only token, another origin, a form post or a bad verdict is refused, and the request stays open', async () => {
    const h = held();
    const readOnly = new Tokens(TOKEN).read;
    const refusals = [
      await post(h.request.id, { verdict: 'allow' }, bearer(readOnly)),
      await post(h.request.id, { verdict: 'allow' }, { Origin: 'http://evil.example' }),
      await post(h.request.id, { verdict: 'allow' }, { 'Sec-Fetch-Site': 'cross-site' }),
      await post(h.request.id, 'verdict=allow', { 'Content-Type': 'application/x-www-form-urlencoded' }),
      await post(h.request.id, { verdict: 'sure' }),
      await post('f'.repeat(32), { verdict: 'allow' }),
    ];
    expect(refusals.map((r) => r.status)).toEqual([403, 403, 403, 400, 400, 404]);
    const list = (await (await fetch(`${url}/api/held`, { headers: bearer() })).json()) as {
      requests: ApprovalRequest[];
    };
    expect(list.requests.map((r) => r.id)).toContain(h.request.id);
    h.stop();
    expect(await h.done).toEqual({ kind: 'released', why: 'hook-ended' });
  });
});
