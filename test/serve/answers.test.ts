/**
 * Answering a driven run's approval through `cctop serve`, over real HTTP on 127.0.0.1 and real
 * runtime sockets: the one route that acts, and everything that must keep it from acting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announced } from '../../src/drive/announced-run.js';
import type { Run } from '../../src/drive/run.js';
import { ScriptedRun, scriptedOutcome } from '../../src/drive/test-support/scripted-run.js';
import { AgentStates } from '../../src/live/agent-state.js';
import type { SessionDoc, SessionDocument } from '../../src/model/document.js';
import { peerSockets } from '../../src/runtime/peers.js';
import { FakeHome } from '../../src/test-support/corpus.js';
import { Tokens } from '../../src/views/serve/auth.js';
import { Follower, type WholeFrame } from '../../src/views/serve/delta.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import { base, bearer, claude, serve, TOKEN, until } from './helpers.js';

describe('answering a driven run from the dashboard', () => {
  let home: FakeHome;
  let runtime: string;
  let agents: AgentStates;
  let s: RunningServer;
  let url: string;

  beforeAll(async () => {
    home = new FakeHome();
    runtime = mkdtempSync(join(tmpdir(), 'cctop-serve-answers-'));
    agents = new AgentStates({ ...home.env, CCTOP_RUNTIME_DIR: runtime });
    s = await serve(home, { env: { ...home.env, CCTOP_RUNTIME_DIR: runtime }, agents });
    url = base(s);
    for (let i = 0; i < 100 && peerSockets(runtime).length === 0; i++)
      await new Promise((r) => setTimeout(r, 50));
  });
  afterAll(async () => {
    await s?.close();
    home?.cleanup();
    rmSync(runtime, { recursive: true, force: true });
  });

  /** A remote-approval run waiting on one Bash call, as the dashboard sees it. */
  async function waitingRun(
    remote = true,
  ): Promise<{ inner: ScriptedRun; run: Run; id: string; session: string; done: Promise<void> }> {
    const inner = new ScriptedRun();
    const run = announced(inner, {
      agent: 'claude',
      prompt: 'p',
      approvals: remote ? 'remote' : true,
      parentEnv: { CCTOP_RUNTIME_DIR: runtime },
      announce: { program: 'fix-bot' },
    });
    const done = (async () => {
      for await (const _ of run) {
        // Read as a program would.
      }
    })();
    const session = `s-${Math.random()}`;
    inner.emit({ kind: 'started', session, model: null });
    inner.emit({ kind: 'approval_request', id: 'req-1', tool: 'Bash', input: { command: 'touch x' } });
    // Earlier tests' runs may still be leaving: this one is known by its session.
    const mine = () => agents.driven.list().find((r) => r.session === session && r.pending.length > 0);
    await expect.poll(mine).toBeTruthy();
    const id = mine()!.id;
    return { inner, run, id, session, done };
  }

  /**
   * A page kept current as web/live.js keeps it: the event stream's frames fed to a `Follower` as
   * they arrive, the whole document fetched when an update cannot be applied.
   */
  async function follow(): Promise<{ row(id: string): SessionDoc | undefined; close(): Promise<void> }> {
    let shown: SessionDocument | null = null;
    const follower = new Follower(
      async (): Promise<WholeFrame> => {
        const res = await fetch(`${url}/api/sessions`, { headers: bearer() });
        return {
          run: res.headers.get('Cctop-Run')!,
          seq: Number(res.headers.get('Cctop-Seq')),
          document: (await res.json()) as SessionDocument,
        };
      },
      (d) => {
        shown = d;
      },
    );
    const ctrl = new AbortController();
    const res = await fetch(`${url}/api/events`, { headers: bearer(), signal: ctrl.signal });
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    const pump = (async () => {
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += dec.decode(value, { stream: true });
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const event = /^event: (\w+)$/m.exec(text.slice(0, end))?.[1];
          const data = /^data: (.*)$/m.exec(text.slice(0, end))?.[1];
          text = text.slice(end + 2);
          if (event === 'sessions' && data) follower.whole(JSON.parse(data));
          if (event === 'changes' && data) follower.changes(JSON.parse(data));
        }
      }
    })().catch(() => {
      // The stream aborted by `close()`.
    });
    return {
      row: (id) => (shown as SessionDocument | null)?.sessions.find((s) => s.id === id),
      async close() {
        ctrl.abort();
        await pump;
      },
    };
  }

  const post = (id: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}/api/runs/${encodeURIComponent(id)}/answer`, {
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

  it('the session document marks the run as driven, with what it asks', async () => {
    const w = await waitingRun();
    await expect
      .poll(async () => {
        const doc = (await (
          await fetch(`${url}/api/sessions`, { headers: bearer() })
        ).json()) as SessionDocument;
        return doc.sessions.find((x) => x.driven?.id === w.id)?.driven?.pending[0]?.input;
      })
      .toBe('{"command":"touch x"}');
    w.inner.end(scriptedOutcome());
    await w.done;
  });

  it('a page kept current by the stream still shows the run on its session once cctop reads its transcript', async () => {
    const w = await waitingRun();
    const page = await follow();
    // The run is on the page before cctop has read a line of its session: a row of its own.
    await until(
      'the page to show what the run asks',
      () => page.row(w.session)?.driven?.pending.length === 1,
    );
    expect(page.row(w.session)?.file).toBe('');
    // Its transcript is read while the run waits (nothing of the run moves): the update that brings
    // the session's own row must bring it marked, as a page opened now would be sent it.
    home.write(
      home.claudeFile('-work-driven', `${w.session}.jsonl`),
      claude.user(w.session, 'fix the build'),
    );
    await until(
      'the page to hold the session read from its transcript',
      () => (page.row(w.session)?.file ?? '') !== '',
    );
    const row = page.row(w.session)!;
    expect([row.driven?.id, row.driven?.pending[0]?.input, row.state, row.stateSource]).toEqual([
      w.id,
      '{"command":"touch x"}',
      'waiting',
      'driven',
    ]);
    await page.close();
    w.inner.end(scriptedOutcome());
    await w.done;
  });

  it('the full token from the page itself answers, once: a second answer is told who answered first', async () => {
    const w = await waitingRun();
    const res = await post(w.id, { request: 'req-1', behavior: 'deny' });
    expect([res.status, await res.clone().text()]).toEqual([202, '{"sent":true}']);
    await expect.poll(() => w.inner.answers.map(([id, d]) => [id, d.behavior])).toEqual([['req-1', 'deny']]);
    await expect.poll(() => agents.driven.get(w.id)?.answered?.by).toBe('the dashboard (cctop serve)');
    const again = await post(w.id, { request: 'req-1', behavior: 'allow' });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toBe(
      'already answered (deny) by the dashboard (cctop serve)',
    );
    expect(w.inner.answers).toHaveLength(1);
    w.inner.end(scriptedOutcome());
    await w.done;
  });

  it('the read-only token, another origin, no origin, or a form post is refused, and nothing is answered', async () => {
    const w = await waitingRun();
    const readOnly = new Tokens(TOKEN).read;
    const refusals = [
      await post(w.id, { request: 'req-1', behavior: 'allow' }, bearer(readOnly)),
      await post(w.id, { request: 'req-1', behavior: 'allow' }, { Origin: 'http://evil.example' }),
      await post(w.id, { request: 'req-1', behavior: 'allow' }, { Origin: 'null' }),
      await post(w.id, { request: 'req-1', behavior: 'allow' }, { 'Sec-Fetch-Site': 'cross-site' }),
      await post(w.id, 'request=req-1&behavior=allow', {
        'Content-Type': 'application/x-www-form-urlencoded',
      }),
      await post(w.id, { request: 'req-1', behavior: 'sure' }),
    ];
    expect(refusals.map((r) => r.status)).toEqual([403, 403, 403, 403, 400, 400]);
    expect(((await refusals[0]!.json()) as { error: string }).error).toContain('read-only');
    const noOrigin = await fetch(`${url}/api/runs/${w.id}/answer`, {
      method: 'POST',
      headers: { ...bearer(), 'Content-Type': 'application/json' },
      body: JSON.stringify({ request: 'req-1', behavior: 'allow' }),
    });
    expect(noOrigin.status).toBe(403);
    expect(w.inner.answers).toEqual([]);
    w.inner.end(scriptedOutcome());
    await w.done;
  });

  it('a run whose program answers its own approvals is not answered from here', async () => {
    const w = await waitingRun(false);
    const res = await post(w.id, { request: 'req-1', behavior: 'allow' });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: string }).error).toContain('answers its own approvals');
    expect(w.inner.answers).toEqual([]);
    w.inner.end(scriptedOutcome());
    await w.done;
  });

  it('only the answer route takes a POST', async () => {
    const res = await fetch(`${url}/api/sessions`, { method: 'POST', headers: { ...bearer(), Origin: url } });
    expect(res.status).toBe(405);
  });
  // Last: it starts and closes a second server on the agent states the other tests share.
  it('a --no-token server is read-only: a forged same-origin answer from another local process is refused', async () => {
    const open = await serve(home, { env: { ...home.env, CCTOP_RUNTIME_DIR: runtime }, agents, token: null });
    try {
      const w = await waitingRun();
      const there = base(open);
      const info = (await (await fetch(`${there}/api/info`)).json()) as { level: string };
      expect(info.level).toBe('read');
      // Any local user can send what a browser would: the page's own Origin and Sec-Fetch-Site.
      const forged = await fetch(`${there}/api/runs/${encodeURIComponent(w.id)}/answer`, {
        method: 'POST',
        headers: { Origin: there, 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'application/json' },
        body: JSON.stringify({ request: 'req-1', behavior: 'allow' }),
      });
      expect(forged.status).toBe(403);
      expect(((await forged.json()) as { error: string }).error).toBe(
        'this link is read-only: it cannot answer approvals',
      );
      expect(w.inner.answers).toEqual([]);
      w.inner.end(scriptedOutcome());
      await w.done;
    } finally {
      await open.close();
    }
  });
});
