import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome } from '../../test-support/corpus.js';
import { readCold } from '../../test-support/snapshot.js';
import { closeAll } from '../sqlite.js';
import { windsurf } from './index.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

const snap = (home: FakeHome, env: Record<string, string> = {}) =>
  readCold({ ...home.env, ...env }, { providers: ['windsurf'], nowMs: NOW });

/**
 * No Windsurf data was available: the workspace databases here are written for these tests from the
 * documented layout (`ItemTable(key, value)` in `state.vscdb`, chat data under `cascade.chatdata`).
 */
function workspace(
  home: FakeHome,
  name: string,
  value: unknown,
  key = 'cascade.chatdata',
  folder = '/work/app',
): string {
  const dir = join(home.dir, '.config', 'Windsurf', 'User', 'workspaceStorage', name);
  mkdirSync(dir, { recursive: true });
  home.write(join(dir, 'workspace.json'), JSON.stringify({ folder: `file://${encodeURI(folder)}` }));
  const path = join(dir, 'state.vscdb');
  const db = new Database(path);
  db.exec('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
  db.prepare('INSERT INTO ItemTable VALUES (?, ?)').run(
    key,
    typeof value === 'string' ? value : JSON.stringify(value),
  );
  db.prepare('INSERT INTO ItemTable VALUES (?, ?)').run('workbench.unrelated', '{"x":1}');
  db.close();
  return path;
}

describe('Windsurf chat data (written for these tests from the documented format)', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => {
    closeAll();
    home.cleanup();
  });

  const chat = {
    tabs: [
      {
        tabId: 'tab-1',
        chatTitle: 'Refactor the auth module',
        bubbles: [
          { type: 'user', text: 'refactor auth' },
          { type: 'ai', toolCalls: [{ name: 'read_file' }, { name: 'edit_file' }] },
          { type: 'ai', tool_calls: [{ toolName: 'run_command' }] },
        ],
      },
      { tabId: 'tab-2', chatTitle: 'Explain the build', bubbles: [] },
    ],
  };

  it('every chat tab is a session: its title, its tool calls, and the workspace folder as project', async () => {
    workspace(home, 'ws1', chat, 'cascade.chatdata', '/work/my app');
    const doc = (await snap(home)).document;
    expect(doc.sessions.map((s) => s.id).sort()).toEqual(['tab-1', 'tab-2']);
    const s = doc.sessions.find((x) => x.id === 'tab-1')!;
    expect(s.title).toBe('Refactor the auth module');
    expect(s.project).toBe('/work/my app');
    expect(s.tools.byTool).toEqual({
      read_file: { calls: 1, failed: null },
      edit_file: { calls: 1, failed: null },
      run_command: { calls: 1, failed: null },
    });
    expect(s.tools.failed).toBeNull();
    expect(s.tokens.input).toBeNull();
    expect(s.cost.usd).toBeNull();
    expect(s.model).toBeNull();
  });

  it('the older chat data keys are read too', async () => {
    workspace(home, 'ws1', chat, 'workbench.panel.aichat.view.aichat.chatdata');
    expect((await snap(home)).document.sessions).toHaveLength(2);
  });

  it('chat data of an unknown shape yields no session rather than a guess', async () => {
    workspace(home, 'ws1', { conversations: [{ id: 'x' }] });
    workspace(home, 'ws2', 'not json');
    const doc = (await snap(home)).document;
    expect(doc.sessions).toEqual([]);
  });

  it('reading leaves the workspace database exactly as it was', async () => {
    const path = workspace(home, 'ws1', chat);
    const before = readFileSync(path);
    await snap(home);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('$WINDSURF_USER_DIR, else the platform’s Windsurf/User', async () => {
    expect(windsurf.roots({ HOME: '/h', WINDSURF_USER_DIR: '/w' })).toEqual([
      { path: '/w', origin: '$WINDSURF_USER_DIR' },
    ]);
    if (process.platform === 'linux') {
      expect(windsurf.roots({ HOME: '/h' })).toEqual([
        { path: '/h/.config/Windsurf/User', origin: 'default' },
      ]);
    }
    workspace(home, 'ws1', chat);
    const doc = (await snap(home, { WINDSURF_USER_DIR: join(home.dir, 'nowhere') })).document;
    expect(doc.sessions).toEqual([]);
  });
});
