import { describe, expect, it } from 'vitest';
import type { SessionDoc, SessionDocument } from '../model/document.js';
import { totalsOf } from '../model/totals.js';
import { withHosts } from './merge.js';
import type { HostReading } from './read.js';
import { remoteSession } from './remote-doc.js';

const session = (id: string, lastActiveAt: string, usd: number | null, host?: string): SessionDoc => {
  const s = remoteSession({
    provider: 'claude',
    id,
    state: 'idle',
    lastActiveAt,
    requests: 1,
    tokens: { input: 10, output: 5 },
    cost: { usd, byModel: [] },
  })!;
  return host === undefined ? s : { ...s, host };
};

const local: SessionDocument = (() => {
  const sessions = [session('l1', '2026-12-01T10:00:00Z', 1), session('l2', '2026-12-01T08:00:00Z', null)];
  return {
    version: 1,
    generatedAt: '2026-12-01T12:00:00Z',
    plan: 'retail',
    timeZone: 'UTC',
    sessions,
    problems: [],
    totals: totalsOf(sessions),
  };
})();

describe('a document with other machines’ sessions', () => {
  const readings: HostReading[] = [
    {
      kind: 'read',
      host: { name: 'devbox', cctop: null },
      sessions: [session('r1', '2026-12-01T09:00:00Z', 2, 'devbox')],
      skipped: 0,
      ms: 10,
    },
    { kind: 'failed', host: { name: 'gone', cctop: null }, ms: 10, failure: { kind: 'refused' }, said: '' },
  ];
  const merged = withHosts(local, readings, '2026-12-01T12:00:01Z');

  it('puts the remote rows among the local ones, newest activity first', () => {
    expect(merged.sessions.map((s) => [s.id, s.host ?? 'local'])).toEqual([
      ['l1', 'local'],
      ['r1', 'devbox'],
      ['l2', 'local'],
    ]);
  });

  it('totals every machine’s sessions, an unpriced one still unpriced', () => {
    expect(merged.totals.all.sessions).toBe(3);
    expect(merged.totals.all.cost.usd).toBe(3);
    expect(merged.totals.all.tokens.input).toBe(30);
  });

  it('says how each host answered, the failed one with its fix', () => {
    expect(merged.hosts).toEqual([
      { host: 'devbox', ok: true, sessions: 1, error: null, answeredAt: '2026-12-01T12:00:01Z' },
      { host: 'gone', ok: false, sessions: 0, error: expect.stringContaining('refused'), answeredAt: null },
    ]);
  });

  it('leaves the local document as it was', () => {
    expect(local.sessions).toHaveLength(2);
    expect(local.hosts).toBeUndefined();
  });
});
