/**
 * OpenCode's calls and context series, over a session in the database of OpenCode 1.2+ and in the
 * older `storage/` tree, its messages and parts shaped as OpenCode's `MessageV2` (trimmed).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../test-support/corpus.js';
import { closeAll, memberPath } from '../sqlite.js';
import { opencode } from './index.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  // A stopped agent's database is read from a copy in cctop's cache: this test's, not the user's.
  vi.stubEnv('CCTOP_CACHE_DIR', join(dir, 'cache'));
});
afterEach(() => {
  closeAll();
  vi.unstubAllEnvs();
  cleanup();
});

type Part = Record<string, unknown>;
type Message = { data: Record<string, unknown>; parts: Part[] };

const T0 = 1_780_000_000_000;
const step = (input: number, cacheRead: number): Part => ({
  type: 'step-finish',
  reason: 'tool-calls',
  tokens: { input, output: 60, reasoning: 0, cache: { read: cacheRead, write: 200 } },
  cost: 0,
});
const tool = (name: string, state: Record<string, unknown>, s: number): Part => ({
  type: 'tool',
  tool: name,
  callID: `call_${name}_${s}`,
  state: { ...state, time: { start: T0 + s * 1000, end: T0 + (s + 2) * 1000 } },
});

/** An answer of two requests: a read and a failing build, then an edit; then the words. */
const answer: Message[] = [
  { data: { role: 'user' }, parts: [{ type: 'text', text: 'fix the build' }] },
  {
    data: { role: 'assistant', modelID: 'claude-sonnet-4-5', providerID: 'anthropic' },
    parts: [
      { type: 'step-start' },
      tool(
        'read',
        { status: 'completed', input: { filePath: '/w/a.ts' }, output: 'const a: number = "x";' },
        3,
      ),
      tool(
        'bash',
        { status: 'error', input: { command: 'npm run build' }, error: 'Error: exit status 2' },
        3,
      ),
      step(100, 12_000),
      { type: 'step-start' },
      tool(
        'edit',
        {
          status: 'completed',
          input: { filePath: '/w/a.ts', oldString: '"x"', newString: '1' },
          output: 'Edit applied.',
        },
        8,
      ),
      step(40, 14_500),
      { type: 'step-start' },
      { type: 'text', text: 'Fixed.' },
      step(30, 14_900),
    ],
  },
];

function database(messages: Message[]): string {
  const path = join(dir, 'opencode.db');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL,
      directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL, time_created INTEGER NOT NULL,
      time_updated INTEGER NOT NULL);
    CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
      time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
      time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE INDEX part_message_id_id_idx ON part (message_id, id);`);
  db.prepare('INSERT INTO session VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
    'ses_a',
    'p',
    null,
    'a',
    '/w',
    't',
    '1.2.0',
    T0,
    T0,
  );
  let n = 0;
  for (const m of messages) {
    const id = `msg_${String(++n).padStart(4, '0')}`;
    const data = { id, sessionID: 'ses_a', time: { created: T0 + n * 1000 }, ...m.data };
    db.prepare('INSERT INTO message VALUES (?, ?, ?, ?, ?)').run(id, 'ses_a', T0, T0, JSON.stringify(data));
    for (const p of m.parts) {
      const pid = `prt_${String(++n).padStart(4, '0')}`;
      const part = JSON.stringify({ id: pid, messageID: id, sessionID: 'ses_a', ...p });
      db.prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)').run(pid, id, 'ses_a', T0, T0, part);
    }
  }
  db.close();
  return memberPath(path, 'ses_a');
}

function storage(messages: Message[]): string {
  const root = join(dir, 'storage');
  const write = (path: string, o: object) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, JSON.stringify(o));
  };
  const session = join(root, 'session', 'proj', 'ses_a.json');
  write(session, { id: 'ses_a', directory: '/w', title: 't', time: { created: T0, updated: T0 } });
  let n = 0;
  for (const m of messages) {
    const id = `msg_${String(++n).padStart(4, '0')}`;
    write(join(root, 'message', 'ses_a', `${id}.json`), {
      id,
      sessionID: 'ses_a',
      time: { created: T0 + n * 1000 },
      ...m.data,
    });
    for (const p of m.parts) {
      const pid = `prt_${String(++n).padStart(4, '0')}`;
      write(join(root, 'part', id, `${pid}.json`), { id: pid, messageID: id, sessionID: 'ses_a', ...p });
    }
  }
  return session;
}

describe.each([
  ['the database', database],
  ['the storage tree', storage],
])('OpenCode calls from %s', (_where, write) => {
  it('each step is one request sized by its whole prompt; its calls share what the next step grew', () => {
    const log = opencode.calls!(write(answer));
    expect(log.requests.map((r) => r.prompt)).toEqual([12_300, 14_740, 15_130]);
    expect(log.calls.map((c) => [c.name, c.failed, c.result, c.growth, c.shared])).toEqual([
      ['read', false, 'const a: number = "x";', 2_440, true],
      ['bash', true, 'Error: exit status 2', 2_440, true],
      ['edit', false, 'Edit applied.', 390, false],
    ]);
    expect(log.calls[1]!.endMs! - log.calls[1]!.startMs!).toBe(2000);
    expect(log.calls[2]!.files).toEqual([{ path: '/w/a.ts', write: true, added: 1, removed: 1 }]);
  });

  it('an answer from a build without steps is one request, sized by the message', () => {
    const older: Message[] = [
      { data: { role: 'user' }, parts: [{ type: 'text', text: 'hi' }] },
      {
        data: {
          role: 'assistant',
          tokens: { input: 20, output: 5, reasoning: 0, cache: { read: 900, write: 0 } },
        },
        parts: [{ type: 'text', text: 'Hello.' }],
      },
    ];
    expect(opencode.calls!(write(older)).requests.map((r) => r.prompt)).toEqual([920]);
  });

  it('a multiedit writes the file it names, and a patch every file it changes', () => {
    const edits: Message[] = [
      { data: { role: 'user' }, parts: [{ type: 'text', text: 'rename it everywhere' }] },
      {
        data: { role: 'assistant', modelID: 'claude-sonnet-4-5', providerID: 'anthropic' },
        parts: [
          { type: 'step-start' },
          tool(
            'multiedit',
            {
              status: 'completed',
              input: {
                filePath: '/w/a.ts',
                edits: [{ filePath: '/w/a.ts', oldString: 'x', newString: 'y' }],
              },
              output: 'Edits applied.',
            },
            3,
          ),
          tool(
            'patch',
            {
              status: 'completed',
              input: {
                patchText:
                  '*** Begin Patch\n*** Update File: /w/b.ts\n-x\n+y\n*** Add File: /w/c.ts\n+z\n*** End Patch',
              },
              output: 'Patch applied.',
            },
            4,
          ),
          step(40, 14_500),
        ],
      },
    ];
    const written = opencode.calls!(write(edits)).calls.map((c) =>
      c.files.filter((f) => f.write).map((f) => f.path),
    );
    expect(written).toEqual([['/w/a.ts'], ['/w/b.ts', '/w/c.ts']]);
  });
});
