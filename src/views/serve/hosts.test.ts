import { describe, expect, it } from 'vitest';
import type { Fetched, HostPoller, HostSpec, HostView } from '../../hosts/index.js';
import type { SessionDoc } from '../../model/document.js';
import { totalsOf } from '../../model/totals.js';
import { SessionMirror } from './delta.js';
import { ServedHosts } from './hosts.js';
import {
  type Fetchers,
  MAX_FETCHES_PER_SESSION,
  MAX_SESSIONS_FETCHING,
  RemoteFetches,
} from './hosts-fetch.js';
import { Publication } from './publish.js';
import { syntheticDocument, syntheticSession } from './test-support/sessions.js';

const BOX: HostSpec = { name: 'box', cctop: null };

/** A poller that answers what the test says, when it says. */
function poller(views: () => HostView[]): HostPoller {
  return { views } as unknown as HostPoller;
}

const remoteRow = (s: SessionDoc, host = 'box'): SessionDoc => ({ ...s, host });

const answered = (rows: SessionDoc[]): HostView[] => [
  {
    status: { host: 'box', ok: true, sessions: rows.length, error: null, answeredAt: '2026-03-02T12:00:00Z' },
    sessions: rows,
  },
];

describe('the dashboard’s other machines', () => {
  it('a session with the same harness and id on another machine is a row of its own, through updates', () => {
    const local = syntheticDocument(3);
    const twin = remoteRow(local.sessions[0]!);
    let views = answered([twin]);
    const hosts = new ServedHosts(
      poller(() => views),
      [BOX],
    );
    const pub = new Publication('run');
    const mirror = new SessionMirror();
    hosts.take();
    pub.update(hosts.merged(local), { kind: 'all' });
    mirror.reset({ run: 'run', seq: 1, document: hosts.merged(local) });
    expect(mirror.document!.sessions.filter((s) => s.id === twin.id)).toHaveLength(2);
    expect(mirror.document!.totals.all.sessions).toBe(4);

    // box answers again without the twin: only its row goes, this machine's stays.
    views = answered([]);
    const changes = hosts.take();
    expect(changes).toEqual({
      kind: 'some',
      changed: [],
      removed: [{ provider: twin.provider, id: twin.id, host: 'box' }],
    });
    const sent = new TextDecoder().decode(pub.update(hosts.merged(local), changes).bytes);
    const frame = JSON.parse(/^data: (.*)$/m.exec(sent)![1]!);
    expect(mirror.apply(frame)).toEqual({ kind: 'applied' });
    expect(mirror.document!.sessions.filter((s) => s.id === twin.id).map((s) => s.host)).toEqual([undefined]);
    expect(mirror.document!.hosts).toEqual([expect.objectContaining({ host: 'box', sessions: 0 })]);
  });

  it('the totals over both machines are what summing every session gives', () => {
    const local = syntheticDocument(40);
    const rows = Array.from({ length: 25 }, (_, i) => remoteRow(syntheticSession(100 + i)));
    const hosts = new ServedHosts(
      poller(() => answered(rows)),
      [BOX],
    );
    hosts.take();
    const merged = hosts.merged(local);
    const summed = totalsOf(merged.sessions);
    expect(merged.totals.all.sessions).toBe(65);
    expect(merged.totals.all.tokens).toEqual(summed.all.tokens);
    expect(merged.totals.all.cost.usd).toBeCloseTo(summed.all.cost.usd!, 5);
    expect(Object.keys(merged.totals.byProvider).sort()).toEqual(Object.keys(summed.byProvider).sort());
    for (const [p, t] of Object.entries(summed.byProvider))
      expect(merged.totals.byProvider[p as keyof typeof summed.byProvider]?.requests).toBe(t.requests);
  });

  it('an answer that moved nothing sends no row again', () => {
    const row = remoteRow(syntheticSession(7));
    const hosts = new ServedHosts(
      poller(() => answered([row])),
      [BOX],
    );
    expect(hosts.take()).toMatchObject({ changed: [row], removed: [] });
    expect(hosts.take()).toEqual({ kind: 'some', changed: [], removed: [] });
  });
});

describe('fetching a remote session when its page asks', () => {
  /** Fetchers whose round trips end when the test releases them, counting how many ran. */
  function held() {
    const waiting: (() => void)[] = [];
    let running = 0;
    let most = 0;
    let calls = 0;
    const trip = async <T>(value: T): Promise<Fetched<T>> => {
      calls++;
      running++;
      most = Math.max(most, running);
      await new Promise<void>((r) => waiting.push(r));
      running--;
      return { kind: 'read', value, ms: 1 };
    };
    const from: Fetchers = {
      report: () => trip({ report: true } as never),
      conversation: () => trip({ turns: [] } as never),
    };
    return {
      from,
      release: () => {
        for (const r of waiting.splice(0)) r();
      },
      counts: () => ({ calls, most }),
    };
  }
  const fetches = (from: Fetchers) => new RemoteFetches({} as ServedHosts, {}, [], from);
  const settle = () => new Promise((r) => setTimeout(r, 0));

  it('runs one round trip at a time per session, and the same ask twice shares one', async () => {
    const h = held();
    const f = fetches(h.from);
    const s = remoteRow(syntheticSession(1));
    const asks = [f.report(BOX, s), f.report(BOX, s), f.conversation(BOX, s, { before: null, agent: null })];
    for (let i = 0; i < 3; i++) {
      await settle();
      h.release();
    }
    await Promise.all(asks);
    expect(h.counts()).toEqual({ calls: 2, most: 1 });
  });

  it('keeps an answer while the row has not moved, and asks again once it has', async () => {
    const h = held();
    const f = fetches(h.from);
    const s = remoteRow(syntheticSession(1));
    const first = f.report(BOX, s);
    await settle();
    h.release();
    await first;
    expect(await f.report(BOX, s)).toEqual({ kind: 'read', value: { report: true } });
    expect(h.counts().calls).toBe(1);
    const moved = { ...s, requests: s.requests + 1 };
    const again = f.report(BOX, moved);
    await settle();
    h.release();
    await again;
    expect(h.counts().calls).toBe(2);
  });

  it('tells asks past its bounds to try again, per session and over every session', async () => {
    const h = held();
    const f = fetches(h.from);
    const s = remoteRow(syntheticSession(1));
    const windows = Array.from({ length: MAX_FETCHES_PER_SESSION + 1 }, (_, i) =>
      f.conversation(BOX, s, { before: i + 1, agent: null }),
    );
    expect(await windows[MAX_FETCHES_PER_SESSION]).toEqual({ kind: 'busy' });
    const others = Array.from({ length: MAX_SESSIONS_FETCHING }, (_, i) =>
      f.report(BOX, remoteRow(syntheticSession(100 + i))),
    );
    expect(await others[MAX_SESSIONS_FETCHING - 1]).toEqual({ kind: 'busy' });
    for (let i = 0; i < MAX_FETCHES_PER_SESSION + MAX_SESSIONS_FETCHING; i++) {
      await settle();
      h.release();
    }
    await Promise.all([...windows, ...others]);
  });
});
