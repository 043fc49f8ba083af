import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkSchema, migrate, schemaVersion } from '../../src/store/migrate.js';
import { MIGRATIONS, ROLES } from '../../src/store/schema.js';
import { HAVE_POSTGRES, TestPostgres } from '../../src/test-support/postgres.js';
import { unless, WHY } from '../../src/test-support/skips.js';

describe.skipIf(!HAVE_POSTGRES)(`the team store's schema${unless(HAVE_POSTGRES, WHY.postgres)}`, () => {
  const pg = new TestPostgres();
  beforeAll(async () => {
    await pg.start();
    await pg.database('team');
  }, 60_000);
  afterAll(() => pg.cleanup());

  test('a database cctop never saw reads as version 0 and is told to migrate', async () => {
    const c = await pg.client(undefined, 'team');
    try {
      expect(await schemaVersion(c)).toBe(0);
      const check = await checkSchema(c);
      expect(check.kind).toBe('older');
      expect(check.kind === 'older' && check.message).toContain('cctop store migrate');
    } finally {
      await c.end();
    }
  });

  test('migrate applies every version once, and a second migrate applies nothing', async () => {
    const c = await pg.client(undefined, 'team');
    try {
      expect(await migrate(c)).toEqual(MIGRATIONS.map((m) => m.version));
      expect(await migrate(c)).toEqual([]);
      expect((await checkSchema(c)).kind).toBe('current');
    } finally {
      await c.end();
    }
  });

  test("a pusher writes its own rows and cannot write or see another developer's", async () => {
    await pg.role('alice', [ROLES.pusher]);
    await pg.role('bob', [ROLES.pusher]);
    await pg.role('dash', [ROLES.reader]);
    const alice = await pg.client('alice', 'team');
    const bob = await pg.client('bob', 'team');
    const dash = await pg.client('dash', 'team');
    try {
      await alice.query(
        "INSERT INTO sessions (host, harness, session_id, state) VALUES ('laptop', 'claude', 's1', 'idle')",
      );
      await expect(
        bob.query(
          "INSERT INTO sessions (developer, host, harness, session_id, state) VALUES ('alice', 'x', 'claude', 's2', 'idle')",
        ),
      ).rejects.toThrow(/row-level security/);
      const changed = await bob.query("UPDATE sessions SET state = 'error' WHERE developer = 'alice'");
      expect(changed.rowCount).toBe(0);
      expect((await bob.query('SELECT * FROM sessions')).rowCount).toBe(0);
      const seen = await dash.query('SELECT developer, state FROM sessions');
      expect(seen.rows).toEqual([{ developer: 'alice', state: 'idle' }]);
      await expect(dash.query("DELETE FROM sessions WHERE developer = 'alice'")).rejects.toThrow(
        /permission denied/,
      );
    } finally {
      await Promise.all([alice.end(), bob.end(), dash.end()]);
    }
  });

  test('a pusher that takes on the shared role still writes as itself, and no row can name the shared role', async () => {
    await pg.role('carol', [ROLES.pusher]);
    await pg.role('dave', [ROLES.pusher]);
    const carol = await pg.client('carol', 'team');
    const dave = await pg.client('dave', 'team');
    try {
      await carol.query(`SET ROLE ${ROLES.pusher}`);
      // Left to the default, the row is carol's: the role she logged in as, not the one she took on.
      await carol.query(
        "INSERT INTO sessions (host, harness, session_id, state) VALUES ('laptop', 'claude', 'c1', 'idle')",
      );
      await carol.query(
        "INSERT INTO pushers (host, cctop_version, time_zone) VALUES ('laptop', '0.1.0', 'UTC')",
      );
      for (const table of ['sessions', 'spend_daily', 'pushers'])
        await expect(
          carol.query(
            table === 'sessions'
              ? `INSERT INTO sessions (developer, host, harness, session_id, state) VALUES ('${ROLES.pusher}', 'x', 'claude', 'anon', 'working')`
              : table === 'spend_daily'
                ? `INSERT INTO spend_daily (developer, host, harness, day, model, project, requests, cost_usd) VALUES ('${ROLES.pusher}', 'x', 'claude', '2026-12-01', 'm', 'p', 1, 1000)`
                : `INSERT INTO pushers (developer, host, cctop_version, time_zone) VALUES ('${ROLES.pusher}', 'x', '0', 'UTC')`,
          ),
          table,
        ).rejects.toThrow(/row-level security|violates check constraint/);
      // Nor can anyone else overwrite carol's rows by taking on the shared role.
      await dave.query(`SET ROLE ${ROLES.pusher}`);
      expect((await dave.query("UPDATE sessions SET state = 'error' WHERE session_id = 'c1'")).rowCount).toBe(
        0,
      );
      const rows = await pg.sql(
        'SELECT developer, session_id, state FROM sessions WHERE session_id = $1',
        ['c1'],
        'team',
      );
      expect(rows.rows).toEqual([{ developer: 'carol', session_id: 'c1', state: 'idle' }]);
    } finally {
      await Promise.all([carol.end(), dave.end()]);
    }
  });

  test('migrating a version 1 store removes the rows written as the shared role and closes the way in', async () => {
    await pg.database('team_v1');
    const admin = await pg.client(undefined, 'team_v1');
    await pg.role('erin', [ROLES.pusher]);
    const erin = await pg.client('erin', 'team_v1');
    try {
      await admin.query(MIGRATIONS[0]!.sql);
      await admin.query('INSERT INTO cctop_schema (version) VALUES (1)');
      // What version 1 let any pusher do: rows attributed to no developer.
      await erin.query(`SET ROLE ${ROLES.pusher}`);
      await erin.query(
        "INSERT INTO spend_daily (host, harness, day, model, project, requests, cost_usd) VALUES ('x', 'claude', '2026-12-01', 'm', 'p', 1, 1000)",
      );
      await erin.query('RESET ROLE');
      await erin.query(
        "INSERT INTO spend_daily (host, harness, day, model, project, requests, cost_usd) VALUES ('x', 'claude', '2026-12-01', 'm', 'p', 1, 2)",
      );
      expect(await migrate(admin)).toEqual([2, 3]);
      const left = await admin.query('SELECT developer, cost_usd FROM spend_daily');
      expect(left.rows).toEqual([{ developer: 'erin', cost_usd: '2.000000' }]);
      await erin.query(`SET ROLE ${ROLES.pusher}`);
      await expect(
        erin.query(
          `INSERT INTO spend_daily (developer, host, harness, day, model, project, requests, cost_usd) VALUES ('${ROLES.pusher}', 'x', 'claude', '2026-12-02', 'm', 'p', 1, 1000)`,
        ),
      ).rejects.toThrow(/row-level security|violates check constraint/);
    } finally {
      await Promise.all([admin.end(), erin.end()]);
    }
  });
});
