import { appendFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INDEX_FILE } from '../index/store.js';
import { claudeResponse, FakeHome } from '../test-support/corpus.js';
import { damagePages } from '../test-support/damage.js';
import { LiveSessions } from './engine.js';

const line = (id: string, output: number, at: string) => claudeResponse(id, output, at);

describe('the live picture', () => {
  let home: FakeHome;
  let now = Date.parse('2026-11-29T10:00:30Z');
  beforeEach(() => {
    home = new FakeHome();
    now = Date.parse('2026-11-29T10:00:30Z');
  });
  afterEach(() => home.cleanup());

  const live = () =>
    new LiveSessions({ env: home.env, plan: 'retail', providers: null, delayMs: 1000, now: () => now });

  it('a refresh with nothing changed keeps the same document and does not announce an update', async () => {
    home.write(home.claudeFile('-w', 's.jsonl'), line('1', 5, '2026-11-29T10:00:00Z'), now);
    const l = live();
    let updates = 0;
    l.on('update', () => updates++);
    const first = await l.refresh();
    const again = await l.refresh();
    expect(updates).toBe(1);
    expect(again.sessions).toBe(first.sessions);
  });

  it('an appended line moves the session and announces an update', async () => {
    const path = home.write(home.claudeFile('-w', 's.jsonl'), line('1', 5, '2026-11-29T10:00:00Z'), now);
    const l = live();
    await l.refresh();
    appendFileSync(path, line('2', 7, '2026-11-29T10:00:20Z'));
    const v = l.version;
    const doc = await l.refresh();
    expect(l.version).toBe(v + 1);
    expect(doc.sessions[0]!.tokens.output).toBe(12);
  });

  it('a working session lapses to idle with time alone, and a deleted transcript stays as history', async () => {
    const path = home.write(home.claudeFile('-w', 's.jsonl'), line('1', 5, '2026-11-29T10:00:00Z'), now);
    const l = live();
    expect((await l.refresh()).sessions[0]!.state).toBe('working');
    now += 16 * 60_000;
    expect((await l.refresh()).sessions[0]!.state).toBe('idle');
    rmSync(path);
    const doc = await l.refresh();
    expect(doc.sessions[0]!.deleted).toBe(true);
    expect(doc.sessions[0]!.tokens.output).toBe(5);
  });

  it('an index that goes bad under a running view is moved aside and rebuilt once, said once, and the picture stays right', async () => {
    const path = home.write(home.claudeFile('-w', 's.jsonl'), line('1', 5, '2026-11-29T10:00:00Z'), now);
    home.write(home.claudeFile('-w', 't.jsonl'), line('2', 3, '2026-11-29T10:00:00Z'), now);
    const l = live();
    const notices: string[] = [];
    l.on('notice', (n) => notices.push(n));
    await l.refresh();
    const cache = home.env.CCTOP_CACHE_DIR!;
    damagePages(join(cache, INDEX_FILE), 'files');
    appendFileSync(path, line('3', 7, '2026-11-29T10:00:20Z'));
    const doc = await l.refresh();
    expect(Object.fromEntries(doc.sessions.map((s) => [s.id, s.tokens.output]))).toEqual({ s: 12, t: 3 });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /was damaged \(database disk image is malformed\); moved it to index\.sqlite\.corrupt-/,
    );
    expect(doc.problems).toContainEqual({ kind: 'cache', path: cache, count: null, detail: notices[0] });
    expect(readdirSync(cache).some((n) => n.startsWith(`${INDEX_FILE}.corrupt-`))).toBe(true);
    appendFileSync(path, line('4', 1, '2026-11-29T10:00:25Z'));
    expect((await l.refresh()).sessions.find((s) => s.id === 's')!.tokens.output).toBe(13);
    expect(notices).toHaveLength(1);
  });

  it('a cache directory that is a file leaves the view without an index, said once and listed as a problem', async () => {
    home.write(home.claudeFile('-w', 's.jsonl'), line('1', 5, '2026-11-29T10:00:00Z'), now);
    const file = home.write(join(home.dir, 'a-file'), 'x');
    const l = new LiveSessions({
      env: { ...home.env, CCTOP_CACHE_DIR: file },
      plan: 'retail',
      providers: null,
      delayMs: 1000,
      now: () => now,
    });
    const notices: string[] = [];
    l.on('notice', (n) => notices.push(n));
    await l.fromIndex();
    const doc = await l.refresh();
    await l.refresh();
    expect(doc.sessions[0]!.tokens.output).toBe(5);
    expect(notices).toEqual([
      `the cache directory ${file} cannot be used (it is a file, not a directory); reading without the index (set CCTOP_CACHE_DIR to a directory cctop can write)`,
    ]);
    expect(doc.problems.map((p) => p.kind)).toEqual(['cache']);
  });
});
