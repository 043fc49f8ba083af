import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/corpus.js';
import { DriveError, type Failure } from './errors.js';
import { defaultSessionDir, MAX_SESSION_NAME_BYTES, SessionStore } from './sessions.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('cctop-sessions-'));
});
afterEach(() => cleanup());

const failureOf = (f: () => unknown): Failure => {
  try {
    f();
  } catch (e) {
    if (e instanceof DriveError) return e.failure;
    throw e;
  }
  throw new Error('expected a DriveError');
};

describe('the named-session store', () => {
  it('binds, reads back, lists and forgets a name per project', () => {
    const store = new SessionStore(join(dir, 'sessions'));
    expect(store.get('/work/a', 'review')).toBeNull();
    store.bind('/work/a', 'review', 'claude', 'sess-1');
    store.bind('/work/b', 'review', 'codex', 'thread-9');
    expect(store.get('/work/a', 'review')).toMatchObject({
      agent: 'claude',
      session: 'sess-1',
      name: 'review',
    });
    expect(store.get('/work/b', 'review')).toMatchObject({ agent: 'codex', session: 'thread-9' });
    const rebound = store.bind('/work/a', 'review', 'claude', 'sess-2');
    expect(rebound.session).toBe('sess-2');
    expect(store.list('/work/a').map((r) => r.session)).toEqual(['sess-2']);
    expect(store.forget('/work/a', 'review')).toBe(true);
    expect(store.forget('/work/a', 'review')).toBe(false);
    expect(store.get('/work/a', 'review')).toBeNull();
  });

  it('keeps its files to their owner', () => {
    const root = join(dir, 'sessions');
    const store = new SessionStore(root);
    store.bind('/work/a', 'x', 'claude', 's');
    const [record] = store.list('/work/a');
    expect(record).toBeDefined();
    expect(statSync(root).mode & 0o777).toBe(0o700);
    const files = readdirSync(root);
    const projectDir = join(root, files[0]!);
    expect(statSync(projectDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(projectDir, 'x.json')).mode & 0o777).toBe(0o600);
  });

  it('names any string as a file, and refuses a name past its bound rather than shortening it', () => {
    const store = new SessionStore(dir);
    for (const name of ['../escape', '..', 'a/b', 'émoji 🙂', '*?']) {
      store.bind('/p', name, 'claude', 's');
      expect(store.get('/p', name)?.name).toBe(name);
    }
    expect(
      failureOf(() => store.bind('/p', 'n'.repeat(MAX_SESSION_NAME_BYTES + 1), 'claude', 's')).kind,
    ).toBe('invalid_request');
    expect(failureOf(() => store.get('/p', '')).kind).toBe('invalid_request');
  });

  it('lets one run hold a name at a time', () => {
    const store = new SessionStore(dir);
    const lease = store.acquire('/p', 'review');
    const busy = failureOf(() => store.acquire('/p', 'review'));
    expect(busy).toMatchObject({ kind: 'session_busy', holder: `pid ${process.pid}` });
    // Another name is free.
    store.acquire('/p', 'other').release();
    lease.release();
    lease.release();
    store.acquire('/p', 'review').release();
  });

  it('takes over a lock left by a process that is gone', () => {
    const store = new SessionStore(dir);
    store.acquire('/p', 'review').release();
    const lease = store.acquire('/p', 'review');
    lease.release();
    // A lock file as a crashed run would have left it: a pid that no longer exists.
    const files = readdirSync(dir);
    const lock = join(dir, files[0]!, 'review.json.lock');
    writeFileSync(lock, JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), since: '' }));
    store.acquire('/p', 'review').release();
  });

  it('a damaged record says where it is and how to recover', () => {
    const store = new SessionStore(dir);
    store.bind('/p', 'x', 'claude', 's');
    const files = readdirSync(dir);
    writeFileSync(join(dir, files[0]!, 'x.json'), '{not json');
    const f = failureOf(() => store.get('/p', 'x'));
    expect(f).toMatchObject({ kind: 'store' });
    expect(new DriveError(f).message).toMatch(/remove it/);
    expect(store.list('/p'), 'a damaged record does not hide the rest').toEqual([]);
  });

  it('lives under XDG_STATE_HOME by default', () => {
    expect(defaultSessionDir({ XDG_STATE_HOME: '/state', HOME: '/h' })).toBe('/state/cctop/sessions');
    expect(defaultSessionDir({ HOME: '/h' })).toBe('/h/.local/state/cctop/sessions');
  });
});
