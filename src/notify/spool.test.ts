import { readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/corpus.js';
import { crossingNotice } from './notice.js';
import { MAX_SPOOLED, SPOOL_KEEP_MS, Spool } from './spool.js';
import { NOW, session } from './test-support/fixtures.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function dir(): string {
  const t = tempDir('cctop-spool-');
  cleanups.push(t.cleanup);
  return t.dir;
}

const notice = (id: string, at = '2026-03-02T11:59:00.000Z') =>
  crossingNotice(
    { session: session(id, { state: 'waiting', lastActiveAt: at }), into: 'waiting', probably: false },
    { dashboard: null, nowMs: NOW },
  );

describe('the spool between cctops', () => {
  it('one crossing seen by two processes is kept once, and handed to one sender once', () => {
    const d = dir();
    const here = new Spool(d);
    const there = new Spool(d);
    expect(here.put(notice('a'))).toBe('new');
    expect(there.put(notice('a'))).toBe('known');
    expect(there.put(notice('b'))).toBe('new');
    expect(here.pending()).toBe(2);
    const first = here.claim();
    expect(first.map((n) => n.session?.id).sort()).toEqual(['a', 'b']);
    expect(there.claim()).toEqual([]);
    expect(here.claim()).toEqual([]);
    expect(here.put(notice('a'))).toBe('known');
  });

  it('a notice nobody claimed in time is dropped unsent, and its files go', () => {
    const d = dir();
    let now = Date.now();
    const spool = new Spool(d, () => now);
    spool.put(notice('a'));
    now += SPOOL_KEEP_MS + 1_000;
    expect(spool.claim()).toEqual([]);
    expect(spool.sweep()).toBe(1);
    expect(readdirSync(spool.dir)).toEqual([]);
  });

  it('a full spool keeps no more, and says so', () => {
    const d = dir();
    const spool = new Spool(d);
    for (let i = 0; i < MAX_SPOOLED; i++) expect(spool.put(notice(`s${i}`))).toBe('new');
    expect(spool.put(notice('one-more'))).toBe('full');
  });

  it('a damaged file in the spool is skipped, and the rest still sent', () => {
    const d = dir();
    const spool = new Spool(d);
    spool.put(notice('a'));
    const bad = join(spool.dir, `${'f'.repeat(32)}.json`);
    writeFileSync(bad, '{"kind":"waiting", nope');
    const now = Date.now() / 1000;
    utimesSync(bad, now, now);
    expect(spool.claim().map((n) => n.session?.id)).toEqual(['a']);
  });
});
