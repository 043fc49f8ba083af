import { describe, expect, it } from 'vitest';
import type { BudgetState } from '../config/index.js';
import type { Alert } from '../live/alerts.js';
import { MARK } from '../views/terminal-text.js';
import {
  alertNotice,
  collisionNotice,
  crossingNotice,
  MAX_ASKED_CHARS,
  MAX_NOTICE_TEXT_CHARS,
  MAX_NOTICE_TITLE_CHARS,
  MAX_PATH_CHARS,
  MAX_SESSION_TITLE_CHARS,
  type Notice,
} from './notice.js';
import { readNotice } from './notice-read.js';
import { NOW, session } from './test-support/fixtures.js';

const ctx = { dashboard: 'http://127.0.0.1:7777', nowMs: NOW };
const waiting = session('a1b2', {
  state: 'waiting',
  pendingTool: 'Bash',
  title: 'fix the login form',
  project: '/home/dev/src/shop',
  lastActiveAt: '2026-03-02T11:59:00.000Z',
});

/** Every string in a notice, however deep. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v !== null && typeof v === 'object') return Object.values(v).flatMap(strings);
  return [];
}

describe('a crossing as a notice', () => {
  it('says who waits, where, and what is asked, with a link to the session on the dashboard', () => {
    const n = crossingNotice({ session: waiting, into: 'waiting', probably: false }, ctx);
    expect(n).toMatchObject({
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
  });

  it('an inferred wait says probably, an error says what went wrong', () => {
    const p = crossingNotice({ session: waiting, into: 'waiting', probably: true }, ctx);
    expect(p.text).toContain('is probably waiting for you');
    const e = crossingNotice(
      {
        session: { ...waiting, state: 'error', stateDetail: 'API Error: 529 overloaded' },
        into: 'error',
        probably: false,
      },
      ctx,
    );
    expect(e).toMatchObject({
      kind: 'error',
      title: 'Error: fix the login form',
      asked: 'API Error: 529 overloaded',
    });
  });

  it('carries no link without a dashboard, or for an id the dashboard would refuse', () => {
    expect(
      crossingNotice({ session: waiting, into: 'waiting', probably: false }, { ...ctx, dashboard: null }).url,
    ).toBeNull();
    const odd = { ...waiting, id: '../../etc/passwd' };
    expect(crossingNotice({ session: odd, into: 'waiting', probably: false }, ctx).url).toBeNull();
  });

  it('the same wait has the same key in every process, and the next wait another', () => {
    const c = { session: waiting, into: 'waiting' as const, probably: false };
    const here = crossingNotice(c, ctx);
    const there = crossingNotice(c, { dashboard: null, nowMs: NOW + 3_000 });
    expect(there.key).toBe(here.key);
    const next = crossingNotice(
      { ...c, session: { ...waiting, lastActiveAt: '2026-03-02T12:01:00.000Z' } },
      ctx,
    );
    expect(next.key).not.toBe(here.key);
    expect(here.key).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('hostile words in a notice', () => {
  const evil = '\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2J\u202eevil\r\nline\u0000';
  const huge = 'x'.repeat(5_000_000);

  it('escape sequences and controls arrive as marks, never as themselves', () => {
    const s = { ...waiting, title: evil, pendingTool: evil, project: `/home/${evil}`, stateDetail: evil };
    const n = crossingNotice({ session: s, into: 'waiting', probably: false }, ctx);
    for (const text of strings(n)) {
      expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
      expect(text).not.toContain('cm0gLXJmIH4=');
    }
    expect(n.session.title).toBe(`${MARK}${MARK}${MARK}evil line${MARK}`);
  });

  it('huge titles, paths and questions are cut to their bounds, the end of a path kept', () => {
    const s = { ...waiting, title: huge, pendingTool: huge, project: `/${huge}/shop` };
    const n = crossingNotice({ session: s, into: 'waiting', probably: false }, ctx);
    expect(Array.from(n.title).length).toBeLessThanOrEqual(MAX_NOTICE_TITLE_CHARS);
    expect(Array.from(n.text).length).toBeLessThanOrEqual(MAX_NOTICE_TEXT_CHARS);
    expect(Array.from(n.asked!).length).toBeLessThanOrEqual(MAX_ASKED_CHARS);
    expect(Array.from(n.session.title!).length).toBeLessThanOrEqual(MAX_SESSION_TITLE_CHARS);
    expect(Array.from(n.project!).length).toBeLessThanOrEqual(MAX_PATH_CHARS);
    expect(n.project!.endsWith('xxx/shop')).toBe(true);
    expect(n.title.endsWith('…')).toBe(true);
    expect(JSON.stringify(n).length).toBeLessThan(4096);
  });
});

describe('alerts and collisions as notices', () => {
  const budget: BudgetState = {
    budget: {
      key: '["day",null,null,"daily"]',
      name: 'daily',
      period: 'day',
      usd: 20,
      project: null,
      harness: null,
    },
    fromDay: 20_514,
    toDay: 20_514,
    spentUsd: 30,
    share: 1.5,
    level: 'over',
  };

  it('each alert keeps the words the table and the dashboard use', () => {
    const alerts: Alert[] = [
      { kind: 'budget', state: budget, level: 'over' },
      { kind: 'stall', session: waiting, quietMinutes: 12 },
      { kind: 'burn', session: waiting, usdPerHour: 42, limitUsdPerHour: 30 },
      { kind: 'error-loop', session: waiting, tool: 'Bash', input: 'npm test', count: 5 },
    ];
    const notices = alerts.map((a) => alertNotice(a, ctx));
    expect(notices.map((n) => [n.kind, n.title])).toEqual([
      ['budget', 'Over budget: daily'],
      ['stall', 'Stalled: fix the login form'],
      ['burn-rate', 'Spending fast: fix the login form'],
      ['error-loop', 'Error loop: fix the login form'],
    ]);
    expect(notices[0]).toMatchObject({ session: null, url: 'http://127.0.0.1:7777/spend' });
    expect(notices[0]!.text).toBe('Over budget: daily: $30.00 of $20.00 (150%) today');
    expect(notices[3]!.asked).toBe('Bash: npm test');
  });

  it('a collision names the file, the repository and every session writing it', () => {
    const other = session('c3d4', { provider: 'codex', title: 'add tests' });
    const n = collisionNotice(
      {
        repoRoot: '/home/dev/src/shop',
        path: '/home/dev/src/shop/login.ts',
        level: 'file',
        sessions: [waiting, other],
      },
      ctx,
    ) as Extract<Notice, { kind: 'collision' }>;
    expect(n).toMatchObject({
      kind: 'collision',
      title: 'Collision: login.ts',
      asked: '/home/dev/src/shop/login.ts',
      harness: null,
      project: '/home/dev/src/shop',
      url: 'http://127.0.0.1:7777/session/a1b2',
    });
    expect(n.text).toBe(
      '2 sessions are writing /home/dev/src/shop/login.ts in shop: fix the login form (Claude Code), add tests (Codex)',
    );
    expect(n.sessions.map((s) => s.id)).toEqual(['a1b2', 'c3d4']);
  });
});

describe('reading a notice back', () => {
  it('a notice survives the spool unchanged', () => {
    const n = crossingNotice({ session: waiting, into: 'waiting', probably: true }, ctx);
    expect(readNotice(JSON.parse(JSON.stringify(n)))).toEqual(n);
  });

  it('what is not a notice reads as none, and what is too long is cut again', () => {
    const n = crossingNotice({ session: waiting, into: 'waiting', probably: false }, ctx);
    expect(readNotice(null)).toBeNull();
    expect(readNotice({ ...n, kind: 'party' })).toBeNull();
    expect(readNotice({ ...n, key: '../../x' })).toBeNull();
    expect(readNotice({ ...n, session: { provider: 'nobody', id: 'x' } })).toBeNull();
    expect(readNotice({ ...n, url: 'javascript:alert(1)' })!.url).toBeNull();
    const long = readNotice({ ...n, text: 'y'.repeat(100_000) })!;
    expect(Array.from(long.text).length).toBe(MAX_NOTICE_TEXT_CHARS);
  });
});
