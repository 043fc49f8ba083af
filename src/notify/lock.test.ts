import { spawnSync } from 'node:child_process';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/corpus.js';
import { LOCK_STALE_MS, lockPath, readLock, SenderLock } from './lock.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function dir(): string {
  const t = tempDir('cctop-lock-');
  cleanups.push(t.cleanup);
  return t.dir;
}

/** The pid of a process that ran and has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  return r.pid!;
}

describe('one sender per machine', () => {
  it('the first to check holds the lock; the second does not, until the first gives it back', () => {
    const d = dir();
    const a = new SenderLock(d, 'table');
    const b = new SenderLock(d, 'dashboard');
    expect(a.check()).toBe(true);
    expect(b.check()).toBe(false);
    expect(a.check()).toBe(true);
    a.release();
    expect(b.check()).toBe(true);
    expect(a.check()).toBe(false);
    const held = readLock(d);
    expect(held).toMatchObject({
      kind: 'held',
      alive: true,
      holder: { pid: process.pid, role: 'dashboard' },
    });
  });

  it('a lock left by a process that is gone is taken over', () => {
    const d = dir();
    writeFileSync(lockPath(d), JSON.stringify({ pid: deadPid(), token: 'old', role: 'table', since: 1 }));
    expect(readLock(d)).toMatchObject({ kind: 'held', alive: false });
    expect(new SenderLock(d, 'table').check()).toBe(true);
  });

  it('a holder whose heartbeat stopped is taken over, whatever its pid says', () => {
    const d = dir();
    const a = new SenderLock(d, 'table');
    expect(a.check()).toBe(true);
    const b = new SenderLock(d, 'table');
    expect(b.check()).toBe(false);
    const old = (Date.now() - LOCK_STALE_MS - 5_000) / 1000;
    utimesSync(lockPath(d), old, old);
    expect(b.check()).toBe(true);
    // The first finds the lock naming another and stops sending.
    expect(a.check()).toBe(false);
  });

  it('a watcher takes the lock from a table or a dashboard, never from another watcher', () => {
    const d = dir();
    const table = new SenderLock(d, 'table');
    const watch = new SenderLock(d, 'watch');
    const second = new SenderLock(d, 'watch');
    expect(table.check()).toBe(true);
    expect(watch.check()).toBe(true);
    expect(table.check()).toBe(false);
    expect(second.check()).toBe(false);
    expect(watch.check()).toBe(true);
  });

  it('a lock file being written is left alone; a damaged one is taken once it is old', () => {
    const d = dir();
    writeFileSync(lockPath(d), '{"pid":');
    const b = new SenderLock(d, 'table');
    expect(b.check()).toBe(false);
    expect(readLock(d).kind).toBe('unreadable');
    const old = (Date.now() - LOCK_STALE_MS - 5_000) / 1000;
    utimesSync(lockPath(d), old, old);
    expect(b.check()).toBe(true);
  });

  it('a pid that would name a process group is not a holder', () => {
    const d = dir();
    writeFileSync(lockPath(d), JSON.stringify({ pid: -1, token: 'x', role: 'table', since: 1 }));
    expect(readLock(d).kind).toBe('unreadable');
  });

  it('giving back a lock someone else now holds leaves theirs in place', () => {
    const d = dir();
    const a = new SenderLock(d, 'table');
    a.check();
    const watch = new SenderLock(d, 'watch');
    watch.check();
    a.release();
    expect(JSON.parse(readFileSync(lockPath(d), 'utf8')).token).toBe(watch.token);
  });
});
