import { appendFileSync, rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeResponse, FakeHome } from '../test-support/corpus.js';
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
});
