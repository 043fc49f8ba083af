/**
 * The team dashboard (`cctop serve --store`) against a real PostgreSQL and a real Chromium: two
 * developers push their machines' sessions and spend with the built `cctop push` (each as their own
 * database role), and the dashboard, reading as its own role, shows both developers' working and
 * waiting sessions and their spend; a machine that stopped pushing reads as stale with its age; the
 * read-only link (and the full one) cannot change budgets; the store's address and the dashboard's
 * password are in no answer; a stopped store is said on the page with the age of the last good read.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROLES } from '../../src/store/schema.js';
import { CUT_MARK, MAX_TEAM_ID_CHARS, MAX_TEAM_TEXT_CHARS } from '../../src/store/team-sessions.js';
import { claudeRecord, prompt, type Rec, toolCall } from '../../src/test-support/claude-records.js';
import { HAVE_POSTGRES, passwordOf, TestPostgres } from '../../src/test-support/postgres.js';
import { unlessAll, WHY } from '../../src/test-support/skips.js';
import { ended, StoreHome } from '../../src/test-support/store-homes.js';
import type { TeamAnswer } from '../../src/views/team/answer.js';
import { type RunningTeamServer, startTeamServer } from '../../src/views/team/index.js';
import { type Browser, HAVE_CHROMIUM, launch } from '../serve/chromium.js';

/* The browser global the `evaluate` callbacks touch (the tests compile without the DOM library). */
declare const window: { __pwned?: string };

const TOKEN = 'team-token-0123456789abcdefghijklmnopqrstuvwxyz';
/** How long a wait for the page or the poller may take on a loaded two-core machine. */
const PATIENCE_MS = 60_000;
const READY = HAVE_POSTGRES && HAVE_CHROMIUM;

/** An assistant turn that calls `tool` and waits for its result, with real usage on a priced model. */
const toolUse = (n: number, tool: string, input: number, output: number): Rec =>
  toolCall(n, tool, { question: 'Which one?' }, 'claude-sonnet-4-5-20250929', input, output);

/** A session running now in `home`: its last turn a call still waiting for its result (or for the user). */
function liveSession(
  home: StoreHome,
  id: string,
  project: string,
  title: string,
  tool: string,
  tokens: number,
) {
  const now = Date.now();
  home.home.write(
    home.home.claudeFile(project.replaceAll('/', '-'), `${id}.jsonl`),
    claudeRecord(id, project, now - 30_000, `${id}-1`, prompt(title)) +
      claudeRecord(id, project, now - 20_000, `${id}-2`, toolUse(1, tool, tokens, tokens / 5)),
  );
}

const ALICE_LIVE = 'a1111111-1111-4111-8111-111111111111';
const ALICE_ACCOUNT = 'acc0a11c-0000-4000-8000-00000000a11c';
const BOB_LIVE = 'b2222222-2222-4222-8222-222222222222';
/** A title that would run script if the page parsed it as markup. */
const HOSTILE_TITLE = 'Fix the parser <img src=x onerror="window.__pwned=1">';

describe.skipIf(!READY)(
  `the team dashboard${unlessAll([HAVE_POSTGRES, WHY.postgres], [HAVE_CHROMIUM, WHY.chromium])}`,
  () => {
    const pg = new TestPostgres();
    let alice: StoreHome;
    let bob: StoreHome;
    let server: RunningTeamServer;
    let base: string;
    let storeUrl: string;
    let browser: Browser;
    let page: Page;

    const team = async (period = 'today', token = TOKEN): Promise<TeamAnswer> =>
      (await (
        await fetch(`${base}/api/team?period=${period}`, { headers: { Authorization: `Bearer ${token}` } })
      ).json()) as TeamAnswer;

    /** Ask until `ok` holds of the answer (the poller reads every half second here). */
    async function until(ok: (a: TeamAnswer) => boolean, period = 'today'): Promise<TeamAnswer> {
      for (;;) {
        const a = await team(period);
        if (ok(a)) return a;
        await new Promise((r) => setTimeout(r, 200));
      }
    }

    const budgetNames = async () =>
      (await pg.sql('SELECT name, usd::text FROM budgets ORDER BY name', [], 'team')).rows;

    beforeAll(async () => {
      await pg.start();
      await pg.migratedDatabase('team');
      await pg.role('alice', [ROLES.pusher]);
      await pg.role('bob', [ROLES.pusher]);
      await pg.role('dash', [ROLES.reader]);
      alice = new StoreHome(pg, 'alice', 'team', 0, true);
      bob = new StoreHome(pg, 'bob', 'team', 1, true);
      liveSession(alice, ALICE_LIVE, '/work/shop', HOSTILE_TITLE, 'Read', 200_000);
      liveSession(bob, BOB_LIVE, '/work/api', 'Which database?', 'AskUserQuestion', 100_000);
      // Alice's Claude Code cached her account's quota three hours ago (and some minutes: the page says
      // "3h" for the next fifty): the 5-hour window runs for two more hours; the 7-day one reset an
      // hour ago, so its figure is of a window that has ended.
      const now = Date.now();
      alice.home.write(
        join(alice.home.dir, '.claude.json'),
        JSON.stringify({
          cachedUsageUtilization: {
            fetchedAtMs: now - 3 * 3_600_000 - 10 * 60_000,
            accountUuid: ALICE_ACCOUNT,
            utilization: {
              five_hour: { utilization: 64, resets_at: new Date(now + 2 * 3_600_000).toISOString() },
              seven_day: { utilization: 97, resets_at: new Date(now - 3_600_000).toISOString() },
            },
          },
        }),
      );
      for (const [home, host] of [
        [alice, 'alice-laptop'],
        [bob, 'bob-desktop'],
      ] as const) {
        const pushed = await home.run(['push', '--titles', '--as', host], { CCTOP_STORE_URL: home.url });
        expect(pushed.code, pushed.err).toBe(0);
      }
      await pg.sql(
        `INSERT INTO budgets (name, period, usd, developer) VALUES ('team month', 'month', 1000, NULL), ('alice today', 'day', 0.5, 'alice')`,
        [],
        'team',
      );
      // The dashboard's role, with its password in the URL: the strongest case for "never reaches the page".
      storeUrl = `postgres://dash:${passwordOf('dash')}@127.0.0.1:${pg.port}/team`;
      server = await startTeamServer({
        url: storeUrl,
        env: {},
        timeZone: undefined,
        startOfWeek: 'monday',
        bind: '127.0.0.1',
        port: 0,
        stepPort: false,
        token: TOKEN,
        pollMs: 500,
        onTrouble: () => {},
      });
      base = `http://127.0.0.1:${server.port}`;
      browser = await launch();
      page = await browser.page();
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await server?.close();
      await pg.cleanup();
      alice?.cleanup();
      bob?.cleanup();
    });

    test(
      "the page shows both developers' running and waiting sessions, with transcript text as text",
      async () => {
        const a = await until((x) => x.store.state === 'ok' && x.sessions.length >= 2);
        expect(a.sessions.map((s) => [s.developer, s.host, s.sessionId, s.state]).sort()).toEqual([
          ['alice', 'alice-laptop', ALICE_LIVE, 'working'],
          ['bob', 'bob-desktop', BOB_LIVE, 'waiting'],
        ]);
        await page.goto(`${base}/?t=${TOKEN}`);
        await page.waitForSelector('table.sessions tbody tr');
        const rows = await page.$$eval('table.sessions tbody tr', (trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
        );
        // Waiting first: it is the one that needs someone.
        expect(rows.map((r) => [r[0], r[1], r[6]])).toEqual([
          ['bob', 'bob-desktop', 'waiting'],
          ['alice', 'alice-laptop', 'working'],
        ]);
        expect(rows[1]![4]).toBe(HOSTILE_TITLE);
        // The model by the short name the live table uses; the id as pushed is its tooltip.
        expect(rows[1]![5]).toBe('sonnet-4.5');
        expect(await page.getAttribute('table.sessions tbody tr td.model', 'title')).toBe(
          'claude-sonnet-4-5-20250929',
        );
        expect(rows[1]![3]).toBe('/work/shop');
        expect(await page.$('table.sessions img')).toBeNull();
        expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
        expect(new URL(page.url()).search).toBe('');
        expect(browser.problems).toEqual([]);
      },
      PATIENCE_MS,
    );

    test(
      "each developer's quota shows as a meter per window, with its source and age; a window reset since as stale",
      async () => {
        const a = await until((x) => x.quota.some((q) => q.developer === 'alice'));
        const hers = a.quota.filter((q) => q.developer === 'alice' && q.harness === 'claude');
        expect(hers.map((q) => [q.account, q.window, q.usedPercent, q.stale, q.sourceLabel, q.host])).toEqual(
          [
            [ALICE_ACCOUNT, '5h', 64, false, "agent's cache", 'alice-laptop'],
            [ALICE_ACCOUNT, '7d', 97, true, "agent's cache", 'alice-laptop'],
          ],
        );
        // The store holds what `cctop quota` says on her machine, figure for figure.
        const own = await alice.run(['quota', '--json']);
        expect(own.code, own.err).toBe(0);
        const said = (JSON.parse(own.out) as { quota: Record<string, unknown>[] }).quota
          .filter((f) => f.harness === 'claude')
          .map((f) => [f.window, f.usedPercent, f.resetsAt, f.source, f.fetchedAt]);
        const stored = await pg.sql(
          "SELECT quota_window, used_percent::float8 AS used, resets_at, source, fetched_at FROM quota WHERE developer = 'alice' AND harness = 'claude' ORDER BY quota_window",
          [],
          'team',
        );
        expect(
          stored.rows.map((r) => [
            r.quota_window,
            r.used,
            (r.resets_at as Date).toISOString(),
            r.source,
            (r.fetched_at as Date).toISOString(),
          ]),
        ).toEqual(said);
        await page.goto(`${base}/?t=${TOKEN}`);
        const five = 'table.quota tr[data-developer="alice"][data-window="5h"]';
        await page.waitForSelector(five);
        expect(await page.$eval(`${five} meter`, (m) => (m as unknown as { value: number }).value)).toBe(64);
        expect(await page.$eval(`${five} td.share`, (td) => td.textContent)).toBe(' 64%');
        expect(await page.$eval(`${five} td.source`, (td) => td.textContent)).toBe("agent's cache, 3h ago");
        const seven = 'table.quota tr[data-developer="alice"][data-window="7d"]';
        expect(await page.$eval(seven, (tr) => tr.className)).toBe('quota stale');
        expect(await page.$(`${seven} meter`)).toBeNull();
        expect(await page.$eval(`${seven} td.share`, (td) => td.textContent)).toBe(
          'stale (97% before it reset)',
        );
        expect(browser.problems).toEqual([]);
      },
      PATIENCE_MS,
    );

    test("a developer can neither write another's quota nor read it; the dashboard's role reads everyone's", async () => {
      const asBob = await pg.client('bob', 'team');
      try {
        await expect(
          asBob.query(
            "INSERT INTO quota (developer, host, harness, quota_window, used_percent, source) VALUES ('alice', 'bob-desktop', 'claude', '5h', 1, 'agent-cache')",
          ),
        ).rejects.toThrow(/row-level security/);
        const seen = await asBob.query('SELECT DISTINCT developer FROM quota');
        expect(seen.rows.every((r) => r.developer === 'bob')).toBe(true);
      } finally {
        await asBob.end();
      }
      const asDash = await pg.client('dash', 'team');
      try {
        const seen = await asDash.query("SELECT count(*)::int AS n FROM quota WHERE developer = 'alice'");
        expect(seen.rows[0].n).toBeGreaterThanOrEqual(2);
      } finally {
        await asDash.end();
      }
    });

    test(
      "the page shows each developer's spend per day, as the store adds it up, and the budgets against it",
      async () => {
        const today = (await team()).days.at(-1)!;
        const stored = await pg.sql(
          'SELECT developer, sum(cost_usd)::float8 AS usd FROM spend_daily WHERE day = $1 GROUP BY developer ORDER BY developer',
          [today],
          'team',
        );
        expect(stored.rows.map((r) => r.developer)).toEqual(['alice', 'bob']);
        const a = await team();
        const shown = Object.fromEntries(a.spend.developer.map((l) => [l.key, l.costUsd]));
        for (const r of stored.rows) expect(shown[r.developer as string]).toBeCloseTo(r.usd as number, 6);

        await page.goto(`${base}/?t=${TOKEN}`);
        await page.waitForSelector('table.spend[data-by="developer"] tbody tr');
        const cells = await page.$$eval('table.spend[data-by="developer"] tbody tr', (trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
        );
        expect(cells.map((r) => r[0]).sort()).toEqual(['alice', 'bob']);
        for (const r of cells) expect(r.at(-1)).toMatch(/^\$\d/);

        // The 7-day view: one column per day, then the total.
        await page.click('nav.periods button[data-period="7d"]');
        await page.waitForSelector('table.spend[data-by="developer"] thead th:nth-child(9)');
        expect(await page.$('table.spend[data-by="developer"] thead th:nth-child(10)')).toBeNull();
        expect(await page.getAttribute('nav.periods button[data-period="7d"]', 'aria-pressed')).toBe('true');

        const budgets = await page.$$eval('table.budgets tbody tr', (trs) =>
          trs.map((tr) => ({
            name: tr.getAttribute('data-budget'),
            level: tr.className,
            spent: tr.querySelector('td.spent')?.textContent,
          })),
        );
        const aliceToday = stored.rows.find((r) => r.developer === 'alice')!.usd as number;
        expect(budgets.map((b) => b.name)).toEqual(['alice today', 'team month']);
        // Alice alone spent more than her half-dollar day.
        expect(aliceToday).toBeGreaterThan(0.5);
        expect(budgets[0]!.level).toContain('over');
      },
      PATIENCE_MS,
    );

    test('neither the read-only link nor the full one can change a budget', async () => {
      const before = await budgetNames();
      for (const token of [server.tokens!.read, TOKEN])
        for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'])
          for (const path of ['/api/team', '/api/budgets', '/api/budgets/team%20month', '/']) {
            const res = await fetch(`${base}${path}`, {
              method,
              headers: {
                Authorization: `Bearer ${token}`,
                'Content-Type': 'application/json',
                Origin: base,
              },
              body: JSON.stringify({ name: 'team month', usd: 1 }),
            });
            expect(res.status, `${method} ${path}`).toBe(405);
          }
      expect(await budgetNames()).toEqual(before);
      // The read-only link reads the same page.
      const read = await team('month', server.tokens!.read);
      expect(read.budgets.map((b) => b.name)).toEqual(['alice today', 'team month']);
    });

    test(
      'a machine that stopped pushing shows its sessions as stale, with the age of its last push',
      async () => {
        await pg.sql(
          "UPDATE pushers SET pushed_at = now() - interval '2 hours' WHERE developer = 'bob'",
          [],
          'team',
        );
        const a = await until((x) => x.sessions.some((s) => s.developer === 'bob' && s.stale));
        expect(a.sessions.find((s) => s.developer === 'alice')!.stale).toBe(false);
        await page.goto(`${base}/?t=${TOKEN}`);
        await page.waitForSelector('table.sessions tr.stale');
        const stale = await page.$eval('table.sessions tr.stale', (tr) => tr.textContent ?? '');
        expect(stale).toContain('bob');
        expect(stale).toContain('stale, pushed 2h ago');
      },
      PATIENCE_MS,
    );

    test(
      'an unreachable store is said on the page with the age of the last good read, and no address',
      async () => {
        await pg.stop();
        try {
          const a = await until((x) => x.store.state === 'failed');
          expect(a.sessions.length).toBe(2);
          await page.goto(`${base}/?t=${TOKEN}`);
          await page.waitForSelector('#store.failed');
          const said = await page.textContent('#store');
          expect(said).toMatch(/cannot be reached.*showing what was read \d+s ago/);
          expect(said).not.toContain(String(pg.port));
          expect(JSON.stringify(a)).not.toContain(String(pg.port));
        } finally {
          await pg.start();
        }
        await until((x) => x.store.state === 'ok');
      },
      PATIENCE_MS,
    );

    test(
      "a pusher's over-long title arrives cut and marked, and a session id no harness writes is dropped and counted",
      async () => {
        const c = await pg.client('alice', 'team');
        try {
          // What a pusher's role can write by hand, past anything `cctop push` sends.
          await c.query(
            `INSERT INTO sessions (host, harness, session_id, title, state, last_active_at)
           VALUES ('alice-laptop', 'claude', $1, 'an id too long', 'working', now()),
                  ('alice-laptop', 'claude', 'long-title', $2, 'working', now())`,
            ['i'.repeat(MAX_TEAM_ID_CHARS + 1), 'T'.repeat(100_000)],
          );
          const a = await until(
            (x) => x.droppedSessions === 1 && x.sessions.some((s) => s.sessionId === 'long-title'),
          );
          const title = a.sessions.find((s) => s.sessionId === 'long-title')!.title!;
          expect(title).toBe(`${'T'.repeat(MAX_TEAM_TEXT_CHARS)}${CUT_MARK}`);
          expect(a.sessions.some((s) => s.title === 'an id too long')).toBe(false);
        } finally {
          await c.end();
          await pg.sql(
            "DELETE FROM sessions WHERE session_id IN ('long-title') OR length(session_id) > 256",
            [],
            'team',
          );
        }
      },
      PATIENCE_MS,
    );

    test(
      'cctop serve --store, as a user starts it, prints its links and reads the store with PGPASSWORD',
      async () => {
        const dash = new StoreHome(pg, 'dash', 'team', 2, true);
        const child = dash.spawn(['serve', '--store', '--port', '0'], { CCTOP_STORE_URL: dash.url });
        const done = ended(child);
        try {
          let out = '';
          child.stdout!.on('data', (d) => {
            out += d;
          });
          while (!/read-only: +http\S+/.test(out)) {
            if (child.exitCode !== null) throw new Error(`cctop serve --store ended: ${(await done).err}`);
            await new Promise((r) => setTimeout(r, 100));
          }
          const full = new URL(/serve --store: (http\S+)/.exec(out)![1]!);
          const read = new URL(/read-only: +(http\S+)/.exec(out)![1]!);
          const ask = async () =>
            (await (
              await fetch(`${full.origin}/api/team?t=${read.searchParams.get('t')}`)
            ).json()) as TeamAnswer;
          let a = await ask();
          while (a.store.state !== 'ok') {
            await new Promise((r) => setTimeout(r, 200));
            a = await ask();
          }
          expect(a.sessions.map((s) => s.developer).sort()).toEqual(['alice', 'bob']);
        } finally {
          child.kill('SIGTERM');
          const ran = await done;
          dash.cleanup();
          expect(ran.code).toBe(0);
          expect(`${ran.out}${ran.err}`).not.toContain(passwordOf('dash'));
        }
      },
      PATIENCE_MS,
    );

    test('no answer carries the store address or the password', async () => {
      const secrets = [passwordOf('dash'), storeUrl, `127.0.0.1:${pg.port}`, 'dash@', 'postgres://'];
      const paths = [
        '/',
        '/?period=month',
        '/assets/team.js',
        '/assets/team.css',
        '/assets/shared-format.js',
        '/assets/harnesses.js',
        '/api/info',
        '/api/team',
        '/api/team?period=7d',
        '/api/team?period=month',
        '/api/team?period=year',
        '/nothing-here',
      ];
      for (const path of paths)
        for (const headers of [{ Authorization: `Bearer ${TOKEN}` }, {} as Record<string, string>]) {
          const res = await fetch(`${base}${path}`, { headers, redirect: 'manual' });
          const text = `${[...res.headers].join('\n')}\n${await res.text()}`;
          for (const s of secrets) expect(text, `${path} ${res.status}`).not.toContain(s);
        }
      const html = await page.content();
      for (const s of secrets) expect(html).not.toContain(s);
    });
  },
);
