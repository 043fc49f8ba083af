import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { broadcast } from '../runtime/peers.js';
import { HookFeed, MAX_FEED_EVENTS } from './feed.js';
import { appendJournal } from './journal.js';
import type { HookEvent } from './types.js';

let dir: string;
let env: { CCTOP_RUNTIME_DIR: string };
const feeds: HookFeed[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cctop-feed-'));
  env = { CCTOP_RUNTIME_DIR: dir };
});
afterEach(async () => {
  for (const f of feeds.splice(0)) await f.stop();
  rmSync(dir, { recursive: true, force: true });
});

const event = (at: number, session = `s${at}`): HookEvent => ({
  v: 1,
  at,
  agent: 'claude',
  event: 'Notification',
  session,
  cwd: '/work',
  notification: 'permission_prompt',
  tool: null,
  permissionMode: null,
  transcript: null,
  input: null,
  ppid: 9,
});

function started(): { feed: HookFeed; seen: HookEvent[] } {
  const feed = new HookFeed(env);
  feeds.push(feed);
  const seen: HookEvent[] = [];
  feed.on('event', (e) => seen.push(e));
  return { feed, seen };
}

describe('the hook feed of a running cctop', () => {
  it('knows the sessions that were waiting before it started, then each event as it arrives', async () => {
    appendJournal(dir, event(1, 'waiting-before'));
    const { feed, seen } = started();
    await feed.start();
    expect(seen.map((e) => e.session)).toEqual(['waiting-before']);
    await broadcast(env, { v: 1, kind: 'hook', event: event(2, 'live') }, 5_000);
    await expect.poll(() => seen.map((e) => e.session)).toEqual(['waiting-before', 'live']);
    expect(feed.events().map((e) => e.session)).toEqual(['waiting-before', 'live']);
    expect(feed.problem).toBeNull();
    expect(feed.stats).toMatchObject({ messages: 1, bad: 0 });
  });

  it('an event that is both in the journal and on the socket is emitted once', async () => {
    const both = event(5, 'both');
    appendJournal(dir, both);
    const { feed, seen } = started();
    await feed.start();
    await broadcast(env, { v: 1, kind: 'hook', event: both }, 5_000);
    await broadcast(env, { v: 1, kind: 'hook', event: event(6, 'after') }, 5_000);
    await expect.poll(() => seen.map((e) => e.session)).toEqual(['both', 'after']);
  });

  it('an event a hook journaled but had no time to send still reaches it', async () => {
    const { feed, seen } = started();
    await feed.start();
    appendJournal(dir, event(7, 'journaled-only'));
    await expect.poll(() => seen.map((e) => e.session)).toEqual(['journaled-only']);
    // Sent as well, late: not emitted again.
    await broadcast(env, { v: 1, kind: 'hook', event: event(7, 'journaled-only') }, 5_000);
    appendJournal(dir, event(8, 'next'));
    await expect.poll(() => seen.map((e) => e.session)).toEqual(['journaled-only', 'next']);
  });

  it('follows the journal across its compaction without emitting anything twice', async () => {
    const { feed, seen } = started();
    await feed.start();
    const n = 2_000;
    for (let i = 1; i <= n; i++) appendJournal(dir, event(i));
    await expect.poll(() => seen.at(-1)?.at, { timeout: 10_000 }).toBe(n);
    const ats = seen.map((e) => e.at);
    expect(new Set(ats).size).toBe(ats.length);
  });

  it('keeps only the newest events', async () => {
    const { feed } = started();
    await feed.start();
    for (let i = 0; i < MAX_FEED_EVENTS + 50; i++)
      await broadcast(env, { v: 1, kind: 'hook', event: event(i) }, 5_000);
    await expect.poll(() => feed.events().at(-1)?.at).toBe(MAX_FEED_EVENTS + 49);
    expect(feed.events()).toHaveLength(MAX_FEED_EVENTS);
    expect(feed.events()[0]?.at).toBe(50);
  });

  it('removes its socket when stopped, even when stopped before it finished starting', async () => {
    const { feed } = started();
    await feed.start();
    const socket = feed.socket!;
    expect(existsSync(socket)).toBe(true);
    await feed.stop();
    expect(existsSync(socket)).toBe(false);

    const early = new HookFeed(env);
    const starting = early.start();
    await early.stop();
    await starting;
    expect(early.socket).toBeNull();
    expect(existsSync(join(dir, `${process.pid}.sock`))).toBe(false);
  });

  it('a runtime directory that is refused leaves it without events, saying why', async () => {
    writeFileSync(join(dir, 'plain'), '');
    const feed = new HookFeed({ CCTOP_RUNTIME_DIR: join(dir, 'plain') });
    feeds.push(feed);
    await feed.start();
    expect(feed.events()).toEqual([]);
    expect(feed.problem).toContain('it is not a directory');
    expect(feed.stats).toBeNull();
  });
});

describe('the journal alone, for a one-shot command', () => {
  it('gives the events a cctop that starts now would know', () => {
    appendJournal(dir, event(1));
    appendJournal(dir, event(2));
    expect(HookFeed.fromJournal(env)).toEqual({ events: [event(1), event(2)], problem: null });
  });
});
