import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, REPO } from '../../test-support/corpus.js';
import { readCold } from '../../test-support/snapshot.js';
import { kilo } from './index.js';

/** The recorded home of `lab/fixtures/sources/kilo`: three sessions in OpenCode's schema. */
const FIXTURE = join(REPO, 'lab', 'fixtures', 'sources', 'kilo', 'home', '.local', 'share', 'kilo');

const snap = (home: FakeHome, env: Record<string, string> = {}) =>
  readCold({ ...home.env, ...env }, { providers: ['kilo'], nowMs: Date.parse('2026-02-01T12:00:00Z') });

describe('Kilo Code sessions', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  it("kilo.db is read as OpenCode's database: its sessions, their costs, calls and failures", async () => {
    cpSync(FIXTURE, join(home.dir, 'elsewhere'), { recursive: true });
    const d = (await snap(home, { KILO_DATA_DIR: join(home.dir, 'elsewhere') })).document;
    const a = d.sessions.find((s) => s.id === 'ses_kA01')!;
    expect(d.sessions.map((s) => s.provider)).toEqual(['kilo', 'kilo', 'kilo']);
    expect([a.title, a.project, a.requests, a.cost.source]).toEqual([
      'Add a coupon field to checkout',
      '/home/dev/shop',
      2,
      'reported',
    ]);
    expect(a.tools.byTool).toEqual({ bash: { calls: 1, failed: 1 } });
  });

  it('the conversation of a session, its calls with their outcomes', () => {
    const c = kilo.conversation!(`${join(FIXTURE, 'kilo.db')}#ses_kA01`, { before: null, agent: null });
    expect(c.turns.map((t) => [t.role, t.text, t.tools.map((u) => [u.name, u.failed])])).toEqual([
      ['user', 'Add a coupon field to the checkout form.', []],
      ['assistant', 'Running the tests first.', [['bash', true]]],
      ['assistant', 'Added the field and its validation.', []],
    ]);
  });
});
