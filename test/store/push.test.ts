/**
 * `cctop push` and `cctop store migrate|status` end to end: the built `dist/cli.js`, run in
 * developers' homes of the lab's and the demo's transcripts (`src/test-support/store-homes.ts`), as database roles
 * that are members of `cctop_pusher`, against a real PostgreSQL made for this run
 * (`src/test-support/postgres.ts`). What each home's own `cctop --json` and `cctop daily --json` say
 * is what the store must hold for it, no more and no less. `npm test` builds first.
 *
 * The tests share one cluster and run in order: the first migrates the store.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SessionDocument } from '../../src/model/document.js';
import { ROLES, SCHEMA_VERSION } from '../../src/store/schema.js';
import { ADMIN_ROLE, HAVE_POSTGRES, TestPostgres } from '../../src/test-support/postgres.js';
import { unless, WHY } from '../../src/test-support/skips.js';
import { ended, StoreHome } from '../../src/test-support/store-homes.js';

/** How long a step may take to show before the test gives up on it (a loaded two-core machine). */
const PATIENCE_MS = 90_000;
const DEVELOPERS = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'];
const TOKEN_COLUMNS = [
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
];

interface Daily {
  periods: unknown[];
  totals: {
    requests: number;
    tokens: Record<string, number | null>;
    cost: { usd: number | null; unpricedTokens: number };
  };
}

/** What a home's own cctop says: the store must hold exactly this for it. */
interface Truth {
  doc: SessionDocument;
  daily: Daily;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

async function truthOf(h: StoreHome): Promise<Truth> {
  const doc = await h.run(['--json']);
  const daily = await h.run(['daily', '--json']);
  expect(doc.code).toBe(0);
  expect(daily.code).toBe(0);
  return { doc: JSON.parse(doc.out) as SessionDocument, daily: JSON.parse(daily.out) as Daily };
}

/** Poll until `check` holds, or fail after PATIENCE_MS. */
async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const end = Date.now() + PATIENCE_MS;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!HAVE_POSTGRES)(
  `cctop push into a real PostgreSQL${unless(HAVE_POSTGRES, WHY.postgres)}`,
  () => {
    const pg = new TestPostgres();
    const homes: StoreHome[] = [];
    const home = (role: string, n: number, viaEnv = false): StoreHome => {
      const h = new StoreHome(pg, role, 'team', n, viaEnv);
      homes.push(h);
      return h;
    };
    const q = async (sql: string, params: unknown[] = []) => (await pg.sql(sql, params, 'team')).rows;

    /** The store's sums for one developer's machine, beside what its cctop says. */
    async function expectStoreHolds(developer: string, host: string, t: Truth): Promise<void> {
      const [s] = await q(
        `SELECT count(*) AS n, sum(requests) AS requests, sum(cost_usd) AS usd, sum(unpriced_tokens) AS unpriced,
        ${TOKEN_COLUMNS.map((c) => `sum(${c}) AS ${c}`).join(', ')}
       FROM sessions WHERE developer = $1 AND host = $2`,
        [developer, host],
      );
      const all = t.doc.totals.all;
      expect(num(s.n)).toBe(t.doc.sessions.length);
      expect(num(s.requests)).toBe(all.requests);
      expect(num(s.unpriced)).toBe(all.cost.unpricedTokens);
      expect(num(s.usd)).toBeCloseTo(all.cost.usd ?? 0, 4);
      expect(TOKEN_COLUMNS.map((c) => num(s[c]))).toEqual(Object.values(all.tokens));
      const [d] = await q(
        `SELECT count(DISTINCT day) AS days, sum(requests) AS requests, sum(cost_usd) AS usd,
        sum(unpriced_tokens) AS unpriced, ${TOKEN_COLUMNS.map((c) => `sum(${c}) AS ${c}`).join(', ')}
       FROM spend_daily WHERE developer = $1 AND host = $2`,
        [developer, host],
      );
      const total = t.daily.totals;
      expect(num(d.days)).toBe(t.daily.periods.length);
      expect(num(d.requests)).toBe(total.requests);
      expect(num(d.unpriced)).toBe(total.cost.unpricedTokens);
      expect(num(d.usd)).toBeCloseTo(total.cost.usd ?? 0, 4);
      expect(TOKEN_COLUMNS.map((c) => num(d[c]))).toEqual(Object.values(total.tokens));
    }

    beforeAll(async () => {
      await pg.start();
      await pg.database('team');
      // The group roles come with the schema: the developers join cctop_pusher once it is migrated.
      for (const r of DEVELOPERS) await pg.role(r);
    }, 120_000);

    afterAll(async () => {
      await pg.cleanup();
      for (const h of homes) h.cleanup();
    });

    test('a push to a store cctop never migrated is refused with the command that fixes it, and migrate says what it applied', async () => {
      const alice = home('alice', 0);
      const refused = await alice.run(['push', '--to', alice.url, '--as', 'alice-first']);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain('cctop store migrate');
      expect((await q("SELECT count(*) AS n FROM pg_tables WHERE tablename = 'sessions'"))[0].n).toBe('0');

      const admin = home(ADMIN_ROLE, 0, true);
      const first = await admin.run(['store', 'migrate', '--to', admin.url]);
      expect(first.err).toBe('');
      expect(first.code).toBe(0);
      expect(first.out).toMatch(/^Applied migration 1: sessions, spend per day/m);
      expect(first.out).toMatch(/^Applied migration 2: rows belong to the developer who logged in/m);
      const again = await admin.run(['store', 'migrate', '--to', admin.url]);
      expect(again.out).toContain(`already at schema version ${SCHEMA_VERSION}`);
      for (const r of DEVELOPERS) await pg.sql(`GRANT ${ROLES.pusher} TO ${r}`);

      // The rows the refused push queued go with the first push that can deliver them.
      const pushed = await alice.run(['push', '--to', alice.url, '--as', 'alice-first']);
      expect(pushed.code).toBe(0);
      await expectStoreHolds('alice', 'alice-first', await truthOf(alice));
    }, 180_000);

    test('ten pushers at once, three developers on five machines, lose and duplicate nothing', async () => {
      const machines = [
        home('alice', 1),
        home('alice', 2, true),
        home('bob', 3),
        home('carol', 4, true),
        home('carol', 5),
      ];
      const truths = [];
      for (const m of machines) truths.push(await truthOf(m));
      const hostOf = (i: number) => `${machines[i]!.role}-box-${i}`;
      // Each machine pushed by two processes at once, in batches of two rows so that they interleave.
      const runs = await Promise.all(
        machines.flatMap((m, i) =>
          [0, 1].map(() =>
            m.run(['push', '--to', m.url, '--as', hostOf(i), '--json'], { CCTOP_PUSH_BATCH_ROWS: '2' }),
          ),
        ),
      );
      for (const r of runs) expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
      for (const [i, m] of machines.entries()) await expectStoreHolds(m.role, hostOf(i), truths[i]!);
      const [{ n }] = await q("SELECT count(*) AS n FROM sessions WHERE host LIKE '%-box-%'");
      expect(Number(n)).toBe(truths.reduce((sum, t) => sum + t.doc.sessions.length, 0));
      const [{ pushers }] = await q("SELECT count(*) AS pushers FROM pushers WHERE host LIKE '%-box-%'");
      expect(Number(pushers)).toBe(machines.length);
    }, 300_000);

    test('a second push with nothing changed sends nothing and changes nothing', async () => {
      const bob = home('bob', 6);
      expect((await bob.run(['push', '--to', bob.url, '--as', 'bob-quiet'])).code).toBe(0);
      const before = await q(
        "SELECT * FROM sessions WHERE developer = 'bob' AND host = 'bob-quiet' ORDER BY session_id",
      );
      const pusherBefore = await q("SELECT * FROM pushers WHERE developer = 'bob' AND host = 'bob-quiet'");
      const again = await bob.run(['push', '--to', bob.url, '--as', 'bob-quiet', '--json']);
      expect(again.code).toBe(0);
      const said = JSON.parse(again.out);
      expect(said).toMatchObject({
        sent: { sessions: 0, spend: 0 },
        batches: 0,
        heartbeat: false,
        failure: null,
      });
      expect(said.unchanged).toBeGreaterThan(0);
      expect(
        await q("SELECT * FROM sessions WHERE developer = 'bob' AND host = 'bob-quiet' ORDER BY session_id"),
      ).toEqual(before);
      expect(await q("SELECT * FROM pushers WHERE developer = 'bob' AND host = 'bob-quiet'")).toEqual(
        pusherBefore,
      );
      const text = await bob.run(['push', '--to', bob.url, '--as', 'bob-quiet']);
      expect(text.out).toContain('nothing changed since the last push');
    }, 120_000);

    test("bob pushing under alice's machine name leaves alice's rows as they were", async () => {
      const alice = home('alice', 7);
      const bob = home('bob', 8);
      expect((await alice.run(['push', '--to', alice.url, '--as', 'shared-box'])).code).toBe(0);
      const hers = () =>
        q("SELECT * FROM sessions WHERE developer = 'alice' AND host = 'shared-box' ORDER BY session_id");
      const herSpend = () =>
        q(
          "SELECT * FROM spend_daily WHERE developer = 'alice' AND host = 'shared-box' ORDER BY day, model, project",
        );
      const [before, spendBefore] = [await hers(), await herSpend()];
      expect(before.length).toBeGreaterThan(0);
      const r = await bob.run(['push', '--to', bob.url, '--as', 'shared-box', '--all']);
      expect(r.code).toBe(0);
      expect(await hers()).toEqual(before);
      expect(await herSpend()).toEqual(spendBefore);
      await expectStoreHolds('bob', 'shared-box', await truthOf(bob));
    }, 120_000);

    test('a pusher killed inside its batch leaves nothing of the batch, and the next push sends it whole', async () => {
      const dave = home('dave', 9);
      const truth = await truthOf(dave);
      // Test-only: dave's spend statement sleeps after his sessions are written in the same transaction.
      await q(`CREATE FUNCTION test_sleep() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF current_user = 'dave' THEN PERFORM pg_sleep(3); END IF; RETURN NULL; END $$`);
      await q(
        'CREATE TRIGGER test_sleep AFTER INSERT ON spend_daily FOR EACH STATEMENT EXECUTE FUNCTION test_sleep()',
      );
      const child = dave.spawn(['push', '--to', dave.url, '--as', 'dave-box']);
      const done = ended(child);
      let wrote = false;
      await until('dave to sleep inside his batch', async () => {
        const rows = await q(
          "SELECT backend_xid IS NOT NULL AS wrote FROM pg_stat_activity WHERE usename = 'dave' AND wait_event = 'PgSleep'",
        );
        wrote = rows[0]?.wrote === true;
        return rows.length > 0;
      });
      expect(wrote).toBe(true);
      child.kill('SIGKILL');
      await done;
      await until(
        "dave's connection to end",
        async () => (await q("SELECT 1 FROM pg_stat_activity WHERE usename = 'dave'")).length === 0,
      );
      for (const table of ['sessions', 'spend_daily', 'pushers'])
        expect((await q(`SELECT count(*) AS n FROM ${table} WHERE developer = 'dave'`))[0].n).toBe('0');
      await q('DROP TRIGGER test_sleep ON spend_daily');
      const again = await dave.run(['push', '--to', dave.url, '--as', 'dave-box']);
      expect(again.code).toBe(0);
      await expectStoreHolds('dave', 'dave-box', truth);
    }, 180_000);

    test('an unreachable store queues the push, status and doctor show the queue, and the next push delivers it', async () => {
      const erin = home('erin', 10);
      const truth = await truthOf(erin);
      await pg.stop();
      try {
        const queued = await erin.run(['push', '--to', erin.url, '--as', 'erin-box']);
        expect(queued.code).toBe(75);
        expect(queued.err).toMatch(
          /nothing accepts connections at postgres:\/\/erin@127\.0\.0\.1:\d+\/team.*rows wait in the queue/,
        );
        const status = await erin.run(['store', 'status', '--to', erin.url, '--as', 'erin-box']);
        expect(status.code).toBe(1);
        expect(status.out).toMatch(/^reachable {2}no: nothing accepts connections/m);
        expect(status.out).toMatch(/^queue {6}\d+ rows waiting since \d{4}-/m);
        const doctor = await erin.run(['doctor'], { CCTOP_STORE_URL: erin.url });
        expect(doctor.out).toMatch(/^Team store\n(?: {2}.*\n)* {2}queue {6}\d+ rows waiting since/m);
      } finally {
        await pg.start();
      }
      const delivered = await erin.run(['push', '--to', erin.url, '--as', 'erin-box', '--json']);
      expect(delivered.code).toBe(0);
      const said = JSON.parse(delivered.out);
      expect(said.fromQueue).toBe(said.sent.sessions + said.sent.spend);
      expect(said.fromQueue).toBeGreaterThan(0);
      await expectStoreHolds('erin', 'erin-box', truth);
      const status = await erin.run(['store', 'status', '--to', erin.url, '--as', 'erin-box']);
      expect(status.out).toMatch(/^queue {6}empty$/m);
      expect(status.out).toMatch(/^in store {3}last push \d{4}-/m);
      expect(status.code).toBe(0);
    }, 180_000);

    test('push --every retries an unreachable store until it is back, and SIGTERM ends it cleanly', async () => {
      const frank = home('frank', 11);
      const truth = await truthOf(frank);
      await pg.stop();
      let up = false;
      let child: ChildProcess | null = null;
      try {
        child = frank.spawn(['push', '--to', frank.url, '--as', 'frank-box', '--every', '10s', '--json']);
        const done = ended(child);
        const lines: Record<string, unknown>[] = [];
        let buffered = '';
        child.stdout?.on('data', (d) => {
          buffered += d;
          const parts = buffered.split('\n');
          buffered = parts.pop() ?? '';
          for (const p of parts) lines.push(JSON.parse(p));
        });
        await until('a queued push', () => lines.some((l) => l.failure !== null));
        await pg.start();
        up = true;
        await until('a delivered push', () => lines.some((l) => l.failure === null));
        child.kill('SIGTERM');
        const r = await done;
        expect(r.code).toBe(0);
        expect(lines.find((l) => l.failure === null)).toMatchObject({ failure: null, stopped: false });
      } finally {
        if (child !== null && child.exitCode === null) child.kill('SIGKILL');
        if (!up) await pg.start();
      }
      await expectStoreHolds('frank', 'frank-box', truth);
    }, 240_000);
  },
);
