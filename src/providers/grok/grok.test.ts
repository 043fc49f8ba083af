import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, REPO } from '../../test-support/corpus.js';
import { readCold } from '../../test-support/snapshot.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

const snap = (home: FakeHome, env: Record<string, string> = {}) =>
  readCold({ ...home.env, ...env }, { providers: ['grok'], nowMs: NOW });

const turn = (event: string | null, usage: object) =>
  JSON.stringify({
    timestamp: 1_780_000_000,
    params: {
      sessionId: 's',
      update: { sessionUpdate: 'turn_completed', usage },
      _meta: event === null ? {} : { eventId: event },
    },
  });

describe('Grok Build CLI sessions', () => {
  let home: FakeHome;
  const updates = (root = join(home.dir, '.grok')) =>
    join(root, 'sessions', '%2Fhome%2Fdev%2Fx', 'sess-1', 'updates.jsonl');
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  it('the recorded home: titles, working directories, the failed command, models without their -build suffix', async () => {
    cpSync(join(REPO, 'lab', 'fixtures', 'sources', 'grok', 'home'), home.dir, { recursive: true });
    const doc = (await snap(home)).document;
    const rows = doc.sessions
      .map((s) => [s.id.slice(0, 8), s.title, s.project, s.models, s.requests, s.tools.byTool, s.cost.source])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(rows).toEqual([
      [
        '0f6c1a52',
        'add a health endpoint',
        '/home/dev/api',
        ['grok-4.3'],
        2,
        { read: { calls: 1, failed: 0 }, execute: { calls: 1, failed: 1 } },
        'estimated',
      ],
      // One turn priced by the CLI itself (`costUsdTicks`), the others from the catalogue.
      [
        '7a3d9e10',
        'why is the build slow',
        '/home/dev/web',
        ['grok-4.3', 'grok-code-fast-1'],
        3,
        {},
        'mixed',
      ],
      ['c2e4f6a8', 'explain the router', '/home/dev/api', ['grok-code-fast-1'], 1, {}, 'estimated'],
    ]);
  });

  it('the cached part comes out of the input, the reasoning stays inside the output, an event counts once', async () => {
    const u = { inputTokens: 1000, cachedReadTokens: 600, outputTokens: 80, reasoningTokens: 30 };
    home.write(updates(), [turn('e1', u), turn('e1', u), turn(null, u), ''].join('\n'));
    const s = (await snap(home)).document.sessions[0]!;
    expect(s.requests).toBe(2);
    expect(s.tokens).toEqual({ input: 800, output: 160, cacheRead: 1200, cacheWrite: 0, reasoning: 60 });
    // No summary: the folder's url-encoded name is the working directory.
    expect(s.project).toBe('/home/dev/x');
  });

  it('a cache figure above the input is held to the input', async () => {
    home.write(updates(), `${turn('e', { inputTokens: 100, cachedReadTokens: 400, outputTokens: 1 })}\n`);
    const s = (await snap(home)).document.sessions[0]!;
    expect([s.tokens.input, s.tokens.cacheRead]).toEqual([0, 100]);
  });

  it('$GROK_HOME names the root instead of ~/.grok', async () => {
    const other = join(home.dir, 'g');
    home.write(updates(other), `${turn('e', { inputTokens: 5, outputTokens: 1 })}\n`);
    expect((await snap(home)).document.sessions).toEqual([]);
    expect((await snap(home, { GROK_HOME: other })).document.sessions.map((s) => s.id)).toEqual(['sess-1']);
  });
});
