import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkSchema, migrate, schemaVersion } from '../../src/store/migrate.js';
import { ROLES, SCHEMA_VERSION } from '../../src/store/schema.js';
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
      expect(await migrate(c)).toEqual([SCHEMA_VERSION]);
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
});
