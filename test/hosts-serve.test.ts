/**
 * `cctop serve --host`: the dashboard with another machine's sessions beside this one's, against a
 * real OpenSSH server on 127.0.0.1 (`src/test-support/sshd.ts`) serving a "remote" home through this
 * repository's built cctop, and the page in Debian's Chromium. `npm test` builds first (the remote
 * cctop is `dist/cli.js`, and the page loads the compiled update protocol).
 *
 * The remote home holds a copy of one of the local transcripts too: the same harness and id on two
 * machines, which must stay two rows.
 */
import { spawnSync } from 'node:child_process';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHost } from '../src/hosts/index.js';
import type { SessionDocument } from '../src/model/document.js';
import type { FakeHome } from '../src/test-support/corpus.js';
import { cleanupHosts, hostsEnv, newHosts } from '../src/test-support/hosts-env.js';
import { addClaude, addCodex, demoClaude, demoCodex, labTranscript } from '../src/test-support/owned.js';
import { unless, WHY } from '../src/test-support/skips.js';
import { HAVE_SSHD, type TestSshd } from '../src/test-support/sshd.js';
import { serveOptions } from '../src/views/serve/command.js';
import type { RunningServer } from '../src/views/serve/index.js';
import { type Browser, HAVE_CHROMIUM, launch } from './serve/chromium.js';
import { base, bearer, get, serve, TOKEN, until } from './serve/helpers.js';

/*
 * The few browser globals the `evaluate` callbacks touch; the tests compile without the DOM library.
 */
declare const document: { querySelector(s: string): { textContent: string | null } | null };

/** How long a step may take: a login, a remote scan and a poll on a loaded two-core machine. */
const PATIENCE_MS = 45_000;
/** Polls every second here, so a stopped sshd shows without waiting out the 15 s schedule. */
const POLL_MS = 1_000;

/** The session both machines hold (a copied project): one the real Claude Code wrote in the lab. */
const SHARED = labTranscript('claude', 'call');

describe('cctop serve --host on the command line', () => {
  it('takes --host (repeatable) and passes --plan on to the remote cctop', () => {
    const lines: string[] = [];
    const io = {
      env: { HOME: '/nonexistent' },
      out: (l: string) => lines.push(l),
      err: (l: string) => lines.push(l),
    };
    const o = serveOptions(['--host', 'box', '--host', 'me@gpu:/opt/cctop', '--plan', 'max'], io as never);
    expect(o?.options.hosts?.map((h) => h.name)).toEqual(['box', 'me@gpu']);
    expect(o?.options.hostArgs).toEqual(['--plan', 'max']);
  });

  it('reads CCTOP_HOSTS when no --host is given, and no hosts for the demo', () => {
    const io = { env: { HOME: '/nonexistent', CCTOP_HOSTS: 'devbox,vm' }, out() {}, err() {} };
    expect(serveOptions([], io as never)?.options.hosts?.map((h) => h.name)).toEqual(['devbox', 'vm']);
    expect(serveOptions(['--demo'], io as never)?.options.hosts).toBeUndefined();
  });
});

describe.skipIf(!HAVE_SSHD)(
  `cctop serve with another machine, against a real sshd${unless(HAVE_SSHD, WHY.sshd)}`,
  () => {
    let sshd: TestSshd;
    let local: FakeHome;
    let remote: FakeHome;
    let remoteDoc: SessionDocument;
    let localDoc: SessionDocument;
    let s: RunningServer;
    let url: string;
    let remoteCctop: string;

    const doc = async (): Promise<SessionDocument> =>
      (await (await fetch(`${url}/api/sessions`, { headers: bearer() })).json()) as SessionDocument;

    beforeAll(async () => {
      ({ sshd, local, remote } = newHosts());
      addClaude(local.dir, SHARED);
      addClaude(remote.dir, SHARED);
      addClaude(remote.dir, demoClaude('-home-sam-src-webapp', 'c2e6f295-9659-488f-a728-481824e8b02c'));
      addCodex(remote.dir, demoCodex('019ac7fd-d1f6-74ea-81a6-b0113778a839'));
      remoteCctop = sshd.remoteCctop(remote.dir);
      sshd.alias({ name: 'box' });
      // A host whose every connection waits on a ProxyCommand far longer than any test.
      sshd.alias({ name: 'slow', proxyCommand: 'sleep 47.25' });
      await sshd.start();
      // Each side's own answer, read directly (this also warms the remote index).
      remoteDoc = JSON.parse(
        spawnSync(remoteCctop, ['--json'], { encoding: 'utf8' }).stdout,
      ) as SessionDocument;
      const box = parseHost(`box:${remoteCctop}`);
      if (box.kind !== 'ok') throw new Error(box.why);
      s = await serve(local, {
        env: hostsEnv({ sshd, local, remote }, 20),
        hosts: [box.host],
        limits: { hostPollMs: POLL_MS },
      });
      url = base(s);
      localDoc = JSON.parse(
        spawnSync(process.execPath, ['dist/cli.js', '--json'], {
          encoding: 'utf8',
          env: { ...local.env, PATH: process.env.PATH ?? '', CCTOP_HOSTS: '' },
        }).stdout,
      ) as SessionDocument;
      await until('box to answer', async () => (await doc()).hosts?.[0]?.ok === true, PATIENCE_MS);
    }, 2 * PATIENCE_MS);

    afterAll(async () => {
      await s?.close();
      await cleanupHosts({ sshd, local, remote });
    });

    it('/api/sessions has the remote rows marked with their host, in the totals, and how each host answered', async () => {
      const d = await doc();
      expect(remoteDoc.sessions).toHaveLength(3);
      expect(
        d.sessions
          .filter((x) => x.host === 'box')
          .map((x) => x.id)
          .sort(),
      ).toEqual(remoteDoc.sessions.map((x) => x.id).sort());
      expect(d.sessions.filter((x) => x.host === undefined).map((x) => x.id)).toEqual(
        localDoc.sessions.map((x) => x.id),
      );
      // The shared transcript is one row on each machine, not one row.
      const shared = localDoc.sessions[0]!.id;
      expect(d.sessions.filter((x) => x.id === shared).map((x) => x.host ?? 'here')).toEqual(
        expect.arrayContaining(['here', 'box']),
      );
      expect(d.totals.all.sessions).toBe(localDoc.sessions.length + 3);
      expect(d.totals.all.cost.usd).toBeCloseTo(
        localDoc.totals.all.cost.usd! + remoteDoc.totals.all.cost.usd!,
        5,
      );
      expect(d.hosts).toEqual([
        { host: 'box', ok: true, sessions: 3, error: null, answeredAt: expect.any(String) },
      ]);
    });

    it('a remote session’s report and conversation are fetched over ssh, and a read-only link reads them too', async () => {
      const id = remoteDoc.sessions.find((x) => x.provider === 'codex')!.id;
      const report = await get(s.port, `/api/report/${id}?host=box`);
      expect(report.status).toBe(200);
      const r = JSON.parse(report.body) as { session: { id: string; host?: string } };
      expect(r.session).toMatchObject({ id, host: 'box' });
      const read = s.tokens!.read;
      const chat = await get(s.port, `/api/chat/${id}?host=box`, bearer(read));
      expect(chat.status).toBe(200);
      const c = JSON.parse(chat.body) as { turns: unknown[]; host: string; stamp: string };
      expect(c.host).toBe('box');
      expect(c.turns.length).toBeGreaterThan(0);
      // Asked again with its stamp while the row has not moved: unchanged, without asking box.
      const again = await get(s.port, `/api/chat/${id}?host=box&since=${c.stamp}`, bearer(read));
      expect(JSON.parse(again.body)).toEqual({ unchanged: true, stamp: c.stamp });
    });

    it('asks only the hosts it reads, about the sessions they listed, and hands nothing off for them', async () => {
      const id = remoteDoc.sessions[0]!.id;
      expect((await get(s.port, `/api/report/${id}?host=elsewhere`)).status).toBe(404);
      expect((await get(s.port, `/api/chat/not-a-session-there?host=box`)).status).toBe(404);
      const handoff = await get(s.port, `/api/handoff/${id}?host=box`);
      expect(handoff.status).toBe(409);
      expect(JSON.parse(handoff.body).error).toMatch(/runs on box: hand it off there/);
    });

    it('a host that has not answered stalls nothing: this machine’s rows are served and its pages are told to ask again', async () => {
      const slow = parseHost('slow');
      if (slow.kind !== 'ok') throw new Error(slow.why);
      const other = await serve(local, {
        env: {
          ...local.env,
          PATH: process.env.PATH ?? '',
          CCTOP_SSH: sshd.ssh,
          CCTOP_RUNTIME_DIR: sshd.runtimeDir,
        },
        hosts: [slow.host],
      });
      try {
        const d = (await (
          await fetch(`${base(other)}/api/sessions`, { headers: bearer() })
        ).json()) as SessionDocument;
        expect(d.sessions.map((x) => x.id)).toEqual(localDoc.sessions.map((x) => x.id));
        expect(d.hosts).toEqual([{ host: 'slow', ok: false, sessions: 0, error: null, answeredAt: null }]);
        const asked = await get(other.port, `/api/report/${remoteDoc.sessions[0]!.id}?host=slow`);
        expect(asked.status).toBe(503);
        expect(JSON.parse(asked.body).error).toMatch(/slow has not answered yet/);
      } finally {
        await other.close();
      }
    });

    describe.skipIf(!HAVE_CHROMIUM)(`the page in Chromium${unless(HAVE_CHROMIUM, WHY.chromium)}`, () => {
      let browser: Browser;
      let page: Page;

      beforeAll(async () => {
        browser = await launch();
        page = await browser.page();
      });

      afterAll(async () => {
        await browser?.close();
      });

      const rows = () =>
        page.$$eval('table.sessions tbody tr', (trs) =>
          trs.map((tr) => ({
            host: tr.querySelector('.col-host')?.textContent ?? '',
            cls: tr.className,
          })),
        );

      it('shows the remote rows marked with their host beside the local ones, and counts them all', async () => {
        await page.goto(`${url}/?t=${TOKEN}`);
        await page.waitForSelector('table.sessions tbody tr.remote');
        const shown = await rows();
        expect(shown.filter((r) => r.host === 'box')).toHaveLength(3);
        expect(shown.filter((r) => r.host === '')).toHaveLength(localDoc.sessions.length);
        expect(await page.isVisible('th.col-host')).toBe(true);
        const count = await page.textContent('.filters .count');
        expect(count).toBe(`${localDoc.sessions.length + 3} sessions`);
        expect(await page.textContent('.hosts .host.ok')).toMatch(/box · 3 sessions · answered/);
        if (process.env.CCTOP_SHOTS)
          await page.screenshot({ path: `${process.env.CCTOP_SHOTS}/hosts-dashboard.png` });
        expect(browser.problems).toEqual([]);
      });

      it('a remote row’s page shows its conversation, fetched over ssh, and no control that acts on it', async () => {
        // The session only box has (the API test above fetched another one).
        const two = remoteDoc.sessions.find(
          (x) => x.provider === 'claude' && !localDoc.sessions.some((l) => l.id === x.id),
        )!;
        const there = JSON.parse(
          spawnSync(remoteCctop, ['chat', '--json', two.id], { encoding: 'utf8' }).stdout,
        ) as { turns: { seq: number }[] };
        await page.click(`table.sessions tbody tr.remote[data-id="${two.id}"] a.title`);
        await page.waitForSelector('#conversation .turn', { timeout: PATIENCE_MS });
        expect(page.url()).toContain(`/session/${two.id}?host=box`);
        const seqs = await page.$$eval('#conversation .turn', (els) => els.map((e) => e.id));
        expect(seqs).toEqual(there.turns.map((t) => `turn-${t.seq}`));
        expect(await page.textContent('.remote-note')).toMatch(/runs on box.*not acted on/s);
        expect(await page.$('.handoff-button')).toBeNull();
        expect(await page.$('.driven-actions button')).toBeNull();
        expect(await page.textContent('.session-head')).not.toMatch(/could not read/);
        if (process.env.CCTOP_SHOTS)
          await page.screenshot({ path: `${process.env.CCTOP_SHOTS}/hosts-session.png` });
        expect(browser.problems).toEqual([]);
      });

      it('with sshd stopped, the remote rows stay, greyed, and the page says since when and why', async () => {
        await page.goto(`${url}/?t=${TOKEN}`);
        await page.waitForSelector('table.sessions tbody tr.remote');
        await sshd.stop();
        // The first poll after the stop may catch the shared connection closing; the next finds no sshd.
        await page.waitForFunction(
          () =>
            /refused the connection/.test(document.querySelector('.hosts .host.silent')?.textContent ?? ''),
          null,
          { timeout: PATIENCE_MS },
        );
        const line = (await page.textContent('.hosts .host.silent')) ?? '';
        expect(line).toMatch(
          /^box · last answer \d+[smh] ago \(3 sessions greyed\): box refused the connection: /,
        );
        const shown = await rows();
        const boxRows = shown.filter((r) => r.host === 'box');
        expect(boxRows).toHaveLength(3);
        expect(boxRows.every((r) => r.cls.split(' ').includes('silent'))).toBe(true);
        expect(shown.filter((r) => r.host === '').every((r) => !r.cls.includes('silent'))).toBe(true);
        if (process.env.CCTOP_SHOTS)
          await page.screenshot({ path: `${process.env.CCTOP_SHOTS}/hosts-silent.png` });
        const d = await doc();
        expect(d.hosts?.[0]).toMatchObject({ host: 'box', ok: false, sessions: 3 });
        expect(d.totals.all.sessions).toBe(localDoc.sessions.length + 3);
      });
    });
  },
);
