/**
 * The session page's Hand off button asks `GET /api/handoff/<id>` for the line that hands the session
 * to another harness: a read, for both token levels, that runs nothing.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeHome } from '../../src/test-support/corpus.js';
import type { HandoffAnswer } from '../../src/views/serve/api.js';
import type { RunningServer } from '../../src/views/serve/index.js';
import { base, bearer, LONG_CODEX, ownedHome, serve } from './helpers.js';

describe('GET /api/handoff/:id', () => {
  let home: FakeHome;
  let s: RunningServer;
  let url: string;
  beforeAll(async () => {
    home = ownedHome();
    s = await serve(home);
    url = base(s);
  });
  afterAll(async () => {
    await s?.close();
    home?.cleanup();
  });

  it('answers the line for another harness than the session’s own, from a prefix, to a read-only link too', async () => {
    for (const token of [undefined, s.tokens!.read]) {
      const res = await fetch(`${url}/api/handoff/${LONG_CODEX.slice(0, 13)}`, { headers: bearer(token) });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect((await res.json()) as HandoffAnswer).toEqual({
        session: LONG_CODEX,
        to: 'claude',
        targets: ['claude', 'codex', 'gemini', 'qwen', 'opencode', 'pi', 'copilot'],
        command: `cctop handoff ${LONG_CODEX} --to claude --run`,
      });
    }
    // Showing the line wrote no brief.
    expect(existsSync(join(home.env.CCTOP_CACHE_DIR!, 'handoff'))).toBe(false);
  });

  it('names the harness asked for, and refuses one it cannot start', async () => {
    const ok = await fetch(`${url}/api/handoff/${LONG_CODEX}?to=gemini`, { headers: bearer() });
    expect(((await ok.json()) as HandoffAnswer).command).toBe(
      `cctop handoff ${LONG_CODEX} --to gemini --run`,
    );
    const bad = await fetch(`${url}/api/handoff/${LONG_CODEX}?to=cursor`, { headers: bearer() });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain('claude, codex, gemini');
  });

  it('needs a token, and says which session is missing', async () => {
    expect((await fetch(`${url}/api/handoff/${LONG_CODEX}`)).status).toBe(401);
    expect((await fetch(`${url}/api/handoff/ffffffff-0000`, { headers: bearer() })).status).toBe(404);
  });

  it('is a read: a POST is refused', async () => {
    const res = await fetch(`${url}/api/handoff/${LONG_CODEX}`, { method: 'POST', headers: bearer() });
    expect(res.status).toBe(405);
  });
});
