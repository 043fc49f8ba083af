/**
 * `cctop store budget set|list|remove` (the built cctop, its password in PGPASSWORD) against a real PostgreSQL: a role in `cctop_budgets` adds,
 * replaces, lists and removes the team's budgets; a developer's role (a pusher) may list them but is
 * refused a change, told which grant it lacks and where docs/team.md explains it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROLES } from '../../src/store/schema.js';
import { HAVE_POSTGRES, TestPostgres } from '../../src/test-support/postgres.js';
import { unless, WHY } from '../../src/test-support/skips.js';
import { type Ran, StoreHome } from '../../src/test-support/store-homes.js';

describe.skipIf(!HAVE_POSTGRES)(`cctop store budget${unless(HAVE_POSTGRES, WHY.postgres)}`, () => {
  const pg = new TestPostgres();
  const homes = new Map<string, StoreHome>();

  /** The built cctop as `role` would run it: the store in CCTOP_STORE_URL, the password in PGPASSWORD. */
  function budget(role: string, ...args: string[]): Promise<Ran> {
    const home = homes.get(role)!;
    return home.run(['store', 'budget', ...args], { CCTOP_STORE_URL: home.url });
  }

  beforeAll(async () => {
    await pg.start();
    await pg.migratedDatabase('team');
    await pg.role('lead', [ROLES.budgets]);
    await pg.role('alice', [ROLES.pusher]);
    homes.set('lead', new StoreHome(pg, 'lead', 'team', 0, true));
    homes.set('alice', new StoreHome(pg, 'alice', 'team', 1, true));
  }, 60_000);
  afterAll(async () => {
    await pg.cleanup();
    for (const h of homes.values()) h.cleanup();
  });

  test('a budgets role adds a budget, replaces it by name, lists it and removes it', async () => {
    const added = await budget(
      'lead',
      'set',
      'app month',
      '--period',
      'month',
      '--usd',
      '500',
      '--project',
      '/home/alice/src/app/',
      '--harness',
      'claude',
    );
    expect(added).toMatchObject({ code: 0, err: '' });
    expect(added.out).toContain('Added team budget app month: $500.00 a month');

    const replaced = await budget('lead', 'set', 'app month', '--period', 'week', '--usd', '120.50');
    expect(replaced.code).toBe(0);
    expect(replaced.out).toContain('Replaced team budget app month');

    const listed = await budget('lead', 'list', '--json');
    expect(listed.code).toBe(0);
    const { budgets } = JSON.parse(listed.out) as { budgets: Record<string, unknown>[] };
    // Replacing sets the whole budget: the selection of the first set is gone.
    expect(budgets).toEqual([
      expect.objectContaining({
        name: 'app month',
        period: 'week',
        usd: 120.5,
        project: null,
        harness: null,
        developer: null,
        updatedBy: 'lead',
      }),
    ]);
    const table = await budget('lead', 'list');
    expect(table.out).toMatch(/NAME\s+PERIOD\s+LIMIT/);
    expect(table.out).toContain('app month');

    expect((await budget('lead', 'remove', 'app month')).code).toBe(0);
    expect((await budget('lead', 'list')).out).toContain('No team budgets');
    const again = await budget('lead', 'remove', 'app month');
    expect(again.code).toBe(1);
    expect(again.err).toContain('no team budget is named app month');
  });

  test('a role without cctop_budgets may list budgets but is refused a change, told the grant it lacks', async () => {
    expect((await budget('lead', 'set', 'team', '--period', 'day', '--usd', '50')).code).toBe(0);
    const refused = await budget('alice', 'set', 'mine', '--period', 'day', '--usd', '999');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('the role alice may not change team budgets');
    expect(refused.err).toContain(`GRANT ${ROLES.budgets} TO "alice"`);
    expect(refused.err).toContain('docs/team.md');
    const removal = await budget('alice', 'remove', 'team');
    expect(removal.code).toBe(1);
    expect(removal.err).toContain('docs/team.md');
    const seen = await budget('alice', 'list', '--json');
    expect(seen.code).toBe(0);
    expect((JSON.parse(seen.out) as { budgets: { name: string }[] }).budgets.map((b) => b.name)).toEqual([
      'team',
    ]);
  });

  test('a budget the command line gets wrong is refused before the store is asked', async () => {
    const noPeriod = await budget('lead', 'set', 'x', '--usd', '5');
    expect(noPeriod).toMatchObject({ code: 2 });
    expect(noPeriod.err).toContain('--period day, week or month');
    const badUsd = await budget('lead', 'set', 'x', '--period', 'day', '--usd', '-3');
    expect(badUsd.code).toBe(2);
    const relative = await budget(
      'lead',
      'set',
      'x',
      '--period',
      'day',
      '--usd',
      '3',
      '--project',
      'src/app',
    );
    expect(relative.err).toContain('expected an absolute directory');
    const harness = await budget('lead', 'set', 'x', '--period', 'day', '--usd', '3', '--harness', 'vim');
    expect(harness.err).toContain('--harness vim: expected one of');
    const name = await budget('lead', 'set', '\u001b[31mred', '--period', 'day', '--usd', '3');
    expect(name.code).toBe(2);
    expect(name.err).not.toContain('\u001b');
  });
});
