/**
 * The live watch over collisions: which sessions it reads, when it reads them again, and what it
 * tells once. Driven by hand (documents in, a clock, calls answered at once), never by timers.
 */
import { describe, expect, it } from 'vitest';
import { type Call, type CallLog, emptyCallLog } from '../model/calls.js';
import type { Collision } from '../model/collision.js';
import type { SessionDoc, SessionDocument } from '../model/document.js';
import { syntheticSession } from '../views/serve/test-support/sessions.js';
import { CollisionWatch, REREAD_MIN_MS } from './collision-watch.js';

const T0 = Date.parse('2026-12-01T12:00:00Z');
const APP = '/w/app';
const rootOf = (path: string) => (path.startsWith(`${APP}/`) ? APP : null);

/** A call log whose only calls wrote `files` at `ms`. */
function wrote(files: string[], ms: number): CallLog {
  const log = emptyCallLog();
  const call: Call = {
    origin: 'main',
    name: 'Edit',
    detail: files[0] ?? '',
    argument: files[0] ?? '',
    startMs: ms,
    endMs: ms,
    result: 'ok',
    failed: false,
    added: 1,
    removed: 0,
    files: files.map((path) => ({ path, write: true, added: 1, removed: 0 })),
    growth: null,
    shared: false,
  };
  log.calls.push(call);
  return log;
}

function session(id: string, over: Partial<SessionDoc>): SessionDoc {
  return {
    ...syntheticSession(0),
    provider: 'claude',
    id,
    project: APP,
    running: true,
    deleted: false,
    ...over,
  };
}

const docOf = (sessions: SessionDoc[]): SessionDocument => ({
  version: 1,
  generatedAt: new Date(T0).toISOString(),
  plan: 'retail',
  timeZone: 'UTC',
  sessions,
  problems: [],
  totals: { all: {}, byProvider: {} } as unknown as SessionDocument['totals'],
});

/** A watch on a clock the test moves, with each session's calls given by `logs`. */
function watching(logs: Map<string, CallLog | Error>) {
  const clock = { now: T0 };
  const read: string[] = [];
  const changes: (readonly Collision[])[] = [];
  const told: Collision[][] = [];
  const watch = new CollisionWatch({
    now: () => clock.now,
    rootOf,
    calls: async (s) => {
      read.push(s.id);
      const log = logs.get(s.id) ?? emptyCallLog();
      if (log instanceof Error) throw log;
      return log;
    },
    onChange: (list) => changes.push(list),
    onNew: (fresh) => told.push(fresh),
  });
  return { watch, clock, read, changes, told };
}

const at = (ms: number) => new Date(ms).toISOString();

describe('the collision watch', () => {
  it('reads only the running sessions that wrote lately, and tells a collision that starts while it watches once', async () => {
    const logs = new Map<string, CallLog | Error>([
      ['a', wrote([`${APP}/src/x.ts`], T0 - 10 * 60_000)],
      ['b', wrote([`${APP}/src/x.ts`], T0 + 60_000)],
      ['stopped', wrote([`${APP}/src/x.ts`], T0 - 60_000)],
    ]);
    const { watch, clock, read, changes, told } = watching(logs);
    clock.now = T0 + 60_000;
    const doc = docOf([
      session('a', { lastActiveAt: at(T0 - 10 * 60_000) }),
      session('b', { lastActiveAt: at(T0 + 60_000) }),
      session('stopped', { lastActiveAt: at(T0 - 60_000), running: false }),
      session('quiet', { lastActiveAt: at(T0 - 45 * 60_000) }),
    ]);
    watch.update(doc);
    await watch.settled();
    expect(read.sort()).toEqual(['a', 'b']);
    expect(told).toHaveLength(1);
    expect(told[0]!.map((c) => [c.level, c.path, c.sessions.map((s) => s.id)])).toEqual([
      ['file', `${APP}/src/x.ts`, ['b', 'a']],
    ]);
    expect(changes.at(-1)).toEqual(watch.collisions);

    // Nothing written since: nothing read again, nothing told again.
    watch.update(doc);
    await watch.settled();
    expect(read).toHaveLength(2);
    expect(told).toHaveLength(1);
  });

  it('a collision already there when it starts is shown but not told', async () => {
    const logs = new Map<string, CallLog | Error>([
      ['a', wrote([`${APP}/src/x.ts`], T0 - 5 * 60_000)],
      ['b', wrote([`${APP}/src/x.ts`], T0 - 2 * 60_000)],
    ]);
    const { watch, told } = watching(logs);
    watch.update(
      docOf([
        session('a', { lastActiveAt: at(T0 - 5 * 60_000) }),
        session('b', { lastActiveAt: at(T0 - 2 * 60_000) }),
      ]),
    );
    await watch.settled();
    expect(watch.collisions.map((c) => c.key)).toEqual([`file:${APP}/src/x.ts`]);
    expect(told).toEqual([]);
  });

  it(`a session that wrote again is read again, but not sooner than ${REREAD_MIN_MS / 1000} s after its last read`, async () => {
    const logs = new Map<string, CallLog | Error>([['a', wrote([`${APP}/src/x.ts`], T0)]]);
    const { watch, clock, read } = watching(logs);
    watch.update(docOf([session('a', { lastActiveAt: at(T0) })]));
    await watch.settled();
    expect(read).toEqual(['a']);
    clock.now = T0 + 1000;
    watch.update(docOf([session('a', { lastActiveAt: at(T0 + 1000) })]));
    await watch.settled();
    expect(read).toEqual(['a']);
    clock.now = T0 + REREAD_MIN_MS;
    watch.update(docOf([session('a', { lastActiveAt: at(T0 + 1000) })]));
    await watch.settled();
    expect(read).toEqual(['a', 'a']);
  });

  it('a collision ends when one of its sessions stops running, and the change says none is left', async () => {
    const logs = new Map<string, CallLog | Error>([
      ['a', wrote([`${APP}/src/x.ts`], T0 - 60_000)],
      ['b', wrote([`${APP}/src/y.ts`], T0 - 30_000)],
    ]);
    const { watch, changes } = watching(logs);
    const a = session('a', { lastActiveAt: at(T0 - 60_000) });
    const b = session('b', { lastActiveAt: at(T0 - 30_000) });
    watch.update(docOf([a, b]));
    await watch.settled();
    expect(watch.collisions.map((c) => c.level)).toEqual(['repo']);
    watch.update(docOf([a, { ...b, running: false }]));
    await watch.settled();
    expect(watch.collisions).toEqual([]);
    expect(changes.at(-1)).toEqual([]);
  });

  it('a read that fails collides with nothing, and the session is read again once it writes', async () => {
    const logs = new Map<string, CallLog | Error>([
      ['a', wrote([`${APP}/src/x.ts`], T0)],
      ['b', new Error('the reading thread stopped')],
    ]);
    const { watch, clock, read } = watching(logs);
    watch.update(docOf([session('a', { lastActiveAt: at(T0) }), session('b', { lastActiveAt: at(T0) })]));
    await watch.settled();
    expect(watch.collisions).toEqual([]);
    logs.set('b', wrote([`${APP}/src/x.ts`], T0 + REREAD_MIN_MS));
    clock.now = T0 + REREAD_MIN_MS;
    watch.update(
      docOf([session('a', { lastActiveAt: at(T0) }), session('b', { lastActiveAt: at(T0 + REREAD_MIN_MS) })]),
    );
    await watch.settled();
    expect(read.filter((id) => id === 'b')).toHaveLength(2);
    expect(watch.collisions.map((c) => c.level)).toEqual(['file']);
  });
});
