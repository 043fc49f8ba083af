import { cpSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { corpus, HAVE_CORPUS, tempDir } from '../../test-support/corpus.js';
import { labHome } from '../../test-support/lines.js';
import { STORAGE_T0, writeOpenCodeStorage } from '../../test-support/opencode-storage.js';
import { closeAll, memberPath } from '../sqlite.js';
import type { ConversationOptions } from '../types.js';
import { opencode } from './index.js';

const main: ConversationOptions = { before: null, agent: null };
const chat = (path: string, o: Partial<ConversationOptions> = {}) =>
  opencode.conversation!(path, { ...main, ...o });
describe('an OpenCode `storage/` tree (the layout before 1.2, written for these tests)', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    writeOpenCodeStorage(join(dir, 'storage'));
  });
  afterEach(() => cleanup());
  const stored = (id: string) => join(dir, 'storage', 'session', 'proj_test', `${id}.json`);

  it('a prompt, then one reply holding its call and its words', () => {
    const c = chat(stored('ses_hello'));
    expect(c.turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['user', 'message', 'hello'],
      ['assistant', 'message', 'Two files.'],
    ]);
    expect(c.turns[1]!.tools).toEqual([
      expect.objectContaining({ name: 'bash', detail: 'ls', result: 'index.html\nmain.js', failed: false }),
    ]);
    expect(c.turns[0]!.ts).toBe(new Date(STORAGE_T0 + 1000).toISOString());
  });

  it('a call that exited 2, OpenCode’s own words, thinking, the interruption, the compaction', () => {
    const c = chat(stored('ses_check'));
    // The reply's parts in order: tool, OpenCode's synthetic text, reasoning, step-start, step-finish,
    // compaction; the message ended with MessageAbortedError.
    expect(c.turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['user', 'message', 'run the check'],
      ['assistant', 'message', ''],
      ['system', 'message', 'Command failed with exit code 2.'],
      ['assistant', 'reasoning', 'The lint step fails; looking at why.'],
      ['system', 'message', 'interrupted'],
      ['system', 'compaction', 'compacted'],
      ['user', 'message', 'try again'],
      ['assistant', 'message', 'Ok'],
    ]);
    // OpenCode recorded the call `completed`, with `metadata.exit` 2: the command failed.
    expect(c.turns[1]!.tools).toEqual([
      expect.objectContaining({
        name: 'bash',
        detail: 'npm run check',
        result: 'check failed: 3 lint errors',
        failed: true,
      }),
    ]);
  });
});

describe('an OpenCode 1.18.33 database recorded in the conformance lab', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => {
    closeAll();
    cleanup();
  });
  // A copy, so that opening the database leaves the recording as it was.
  const db = (name: string) => {
    cpSync(labHome('opencode', name), dir, { recursive: true });
    return join(dir, '.local', 'share', 'opencode', 'opencode.db');
  };
  const only = (path: string) => {
    const r = new Database(path, { readonly: true });
    try {
      const ids = r.prepare('SELECT id FROM session').all() as { id: string }[];
      expect(ids).toHaveLength(1);
      return ids[0]!.id;
    } finally {
      r.close();
    }
  };

  // The lab's `call` script: the prompt, a reply calling bash `echo lab-call-ok`, then the answer.
  it('the prompt, the call with its output, the answer', () => {
    const path = db('call');
    const c = chat(memberPath(path, only(path)));
    expect(c.turns.find((t) => t.role === 'user')!.text).toBe('[lab:call] Follow the lab script call.');
    const tools = c.turns.flatMap((t) => t.tools);
    expect(tools).toEqual([expect.objectContaining({ name: 'bash', failed: false })]);
    expect(tools[0]!.result).toContain('lab-call-ok');
    expect(c.turns.at(-1)).toMatchObject({ role: 'assistant', text: 'The command printed lab-call-ok.' });
  });

  it('a command that exits non-zero is marked failed', () => {
    const path = db('fail');
    const tools = chat(memberPath(path, only(path))).turns.flatMap((t) => t.tools);
    expect(tools.map((t) => t.failed)).toEqual([true]);
  });
});

if (HAVE_CORPUS) {
  // Extra cases over `../shared/corpus`, registered only where it is present.
  describe('an OpenCode storage tree from ../shared/corpus (a synthetic fixture of 1.3.17)', () => {
    const stored = (name: string) => corpus('opencode', 'storage', 'session', 'proj_test', name);
    it('the small session: the prompt, then one reply holding its call and its words', () => {
      const c = chat(stored('ses_s_stage0_small.json'));
      expect(c.turns.map((t) => [t.role, t.kind, t.text])).toEqual([
        ['user', 'message', 'Hello'],
        ['assistant', 'message', 'Found 2 files.'],
      ]);
      expect(c.turns[1]!.tools).toEqual([
        expect.objectContaining({ name: 'bash', detail: 'ls', result: 'a.txt\nb.txt', failed: false }),
      ]);
      expect(c.turns[0]!.ts).toBe(new Date(1730000001000).toISOString());
    });

    it('the large session: a call that exited 1, OpenCode’s own words, thinking, the interruption, the compaction', () => {
      const c = chat(stored('ses_s_stage0_large.json'));
      // Parts of m_assistant_large_1 in order: tool, synthetic text, file, reasoning, step-start,
      // step-finish, compaction, patch; the message ended with MessageAbortedError.
      expect(c.turns.map((t) => [t.role, t.kind, t.text])).toEqual([
        ['user', 'message', 'Step 1'],
        ['assistant', 'message', ''],
        ['system', 'message', 'Command failed with exit code 1.'],
        ['assistant', 'reasoning', 'Investigating failing command.'],
        ['system', 'message', 'interrupted'],
        ['system', 'compaction', 'compacted'],
        ['user', 'message', 'Step 2'],
        ['assistant', 'message', 'Ok'],
      ]);
      // OpenCode recorded the call `completed`, with `metadata.exit` 1: the command failed.
      expect(c.turns[1]!.tools).toEqual([
        expect.objectContaining({
          name: 'bash',
          detail: 'ls /non-existent-directory',
          result: 'ls: /non-existent-directory: No such file or directory',
          failed: true,
        }),
      ]);
    });
  });
}

/**
 * An `opencode.db` written for these tests in the tables of OpenCode 1.2+ (`session.sql.ts`); `data`
 * is shaped as OpenCode's `MessageV2` messages and parts.
 */
class Db {
  readonly db: Database.Database;
  private n = 0;
  constructor(readonly path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.exec(`
      CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL,
        directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL, time_created INTEGER NOT NULL,
        time_updated INTEGER NOT NULL);
      CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
        time_updated INTEGER NOT NULL, data TEXT NOT NULL);
      CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
        time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
      CREATE INDEX part_message_id_id_idx ON part (message_id, id);`);
  }
  session(id: string, parent: string | null = null): void {
    this.db
      .prepare('INSERT INTO session VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(id, 'p', parent, id, '/w', 't', '1.2.0', 1, 1);
  }
  message(session: string, data: Record<string, unknown>, parts: Record<string, unknown>[] = []): string {
    const at = 1_780_000_000_000 + ++this.n * 1000;
    const id = `msg_${String(this.n).padStart(4, '0')}`;
    this.db
      .prepare('INSERT INTO message VALUES (?, ?, ?, ?, ?)')
      .run(id, session, at, at, JSON.stringify({ id, sessionID: session, time: { created: at }, ...data }));
    for (const p of parts) {
      const pid = `prt_${String(++this.n).padStart(4, '0')}`;
      this.db
        .prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)')
        .run(pid, id, session, at, at, JSON.stringify({ id: pid, messageID: id, sessionID: session, ...p }));
    }
    return id;
  }
}

const text = (t: string, more: Record<string, unknown> = {}) => ({ type: 'text', text: t, ...more });
const tool = (name: string, state: Record<string, unknown>) => ({
  type: 'tool',
  tool: name,
  callID: `call_${name}`,
  state,
});

describe('OpenCode database (written for these tests in the schema of OpenCode 1.2+)', () => {
  let dir: string;
  let cleanup: () => void;
  let oc: Db;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    // A stopped agent's database is read from a copy in cctop's cache: this test's, not the user's.
    vi.stubEnv('CCTOP_CACHE_DIR', join(dir, 'cache'));
    oc = new Db(join(dir, 'opencode.db'));
  });
  afterEach(() => {
    oc.db.close();
    closeAll();
    vi.unstubAllEnvs();
    cleanup();
  });
  const read = (session: string, o: Partial<ConversationOptions> = {}) =>
    chat(memberPath(oc.path, session), o);

  it('each request of an answer is a reply of its own; thinking apart; calls with their output or error', () => {
    oc.session('ses_a');
    oc.message('ses_a', { role: 'user' }, [
      text('fix the build'),
      { type: 'file', filename: 'ci.log', url: 'file:///w/ci.log' },
    ]);
    oc.message('ses_a', { role: 'assistant', summary: false }, [
      { type: 'step-start' },
      { type: 'reasoning', text: 'the log says a type error' },
      text('Reading the file.'),
      tool('read', { status: 'completed', input: { filePath: '/w/a.ts' }, output: 'const a: number = "x";' }),
      tool('bash', { status: 'error', input: { command: 'npm run build' }, error: 'Error: exit status 2' }),
      { type: 'step-finish', reason: 'tool-calls' },
      { type: 'step-start' },
      tool('edit', {
        status: 'completed',
        input: { filePath: '/w/a.ts', oldString: '"x"', newString: '1' },
        output: 'Edit applied.',
      }),
      tool('bash', { status: 'running', input: { command: 'npm test' } }),
    ]);
    const c = read('ses_a');
    expect(c.turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['user', 'message', 'fix the build\n\nattached: ci.log'],
      ['assistant', 'reasoning', 'the log says a type error'],
      ['assistant', 'message', 'Reading the file.'],
      ['assistant', 'message', ''],
    ]);
    expect(c.turns[2]!.tools.map((t) => [t.name, t.detail, t.result, t.failed])).toEqual([
      ['read', '/w/a.ts', 'const a: number = "x";', false],
      ['bash', 'npm run build', 'Error: exit status 2', true],
    ]);
    expect(c.turns[3]!.tools.map((t) => [t.name, t.result, t.added, t.removed])).toEqual([
      ['edit', 'Edit applied.', 1, 1],
      ['bash', null, 0, 0],
    ]);
  });

  it('a compaction is a seam carrying the summary the model goes on from; a failed answer says why', () => {
    oc.session('ses_b');
    oc.message('ses_b', { role: 'user' }, [{ type: 'compaction', auto: true }]);
    oc.message('ses_b', { role: 'assistant', summary: true }, [text('We were fixing the parser.')]);
    oc.message('ses_b', { role: 'user' }, [
      text('go on'),
      text('<file contents read for the model>', { synthetic: true }),
    ]);
    oc.message('ses_b', {
      role: 'assistant',
      error: { name: 'APIError', data: { message: 'Overloaded', statusCode: 529 } },
    });
    expect(read('ses_b').turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['system', 'compaction', 'We were fixing the parser.'],
      ['user', 'message', 'go on'],
      ['system', 'message', 'error: Overloaded'],
    ]);
  });

  it("a task's child session is its own conversation, asked for by its id; the main one does not show it", () => {
    oc.session('ses_main');
    oc.session('ses_child', 'ses_main');
    oc.session('ses_other');
    oc.message('ses_main', { role: 'user' }, [text('review it')]);
    oc.message('ses_main', { role: 'assistant' }, [
      tool('task', {
        status: 'completed',
        input: { description: 'review', prompt: 'Review src/' },
        output: 'fine',
      }),
    ]);
    oc.message('ses_child', { role: 'user' }, [text('Review src/')]);
    oc.message('ses_child', { role: 'assistant' }, [text('It is fine.')]);
    expect(read('ses_main').turns.map((t) => t.text)).toEqual(['review it', '']);
    expect(read('ses_main').turns[1]!.tools[0]).toMatchObject({
      name: 'task',
      detail: 'review',
      result: 'fine',
    });
    expect(read('ses_main', { agent: 'ses_child' }).turns.map((t) => t.text)).toEqual([
      'Review src/',
      'It is fine.',
    ]);
    expect(read('ses_main', { agent: 'ses_other' }).supported).toBe(false);
    expect(read('ses_gone').supported).toBe(false);
  });

  it('a shell call that exited non-zero has failed, its output still its result (as OpenCode 1.18.33 wrote it)', () => {
    // The lab's `fail` run: OpenCode 1.18.33 records the command `completed`, its exit in the metadata.
    oc.session('ses_f');
    oc.message('ses_f', { role: 'user' }, [text('[lab:fail] Follow the lab script fail.')]);
    oc.message('ses_f', { role: 'assistant', finish: 'tool-calls' }, [
      { type: 'step-start' },
      tool('bash', {
        status: 'completed',
        input: { command: 'echo lab-fail-out; exit 3' },
        output: 'lab-fail-out\n',
        metadata: { output: 'lab-fail-out\n', exit: 3, truncated: false },
        title: 'echo lab-fail-out; exit 3',
      }),
      { type: 'step-finish', reason: 'tool-calls' },
    ]);
    expect(read('ses_f').turns[1]!.tools.map((t) => [t.name, t.detail, t.result, t.failed])).toEqual([
      ['bash', 'echo lab-fail-out; exit 3', 'lab-fail-out', true],
    ]);
  });

  it('a long output is cut to its head, and a huge input still names its file', () => {
    oc.session('ses_c');
    oc.message('ses_c', { role: 'assistant' }, [
      tool('bash', { status: 'completed', input: { command: 'cat big' }, output: 'x'.repeat(100_000) }),
      tool('write', {
        status: 'completed',
        input: { filePath: '/w/big.txt', content: 'y'.repeat(400_000) },
        output: 'ok',
      }),
    ]);
    const [bash, write] = read('ses_c').turns[0]!.tools;
    expect(bash!.result!.endsWith('…')).toBe(true);
    expect(bash!.result!.length).toBeLessThan(1000);
    expect(write).toMatchObject({ name: 'write', detail: '/w/big.txt', result: 'ok' });
  });

  it('pages back from a turn', () => {
    oc.session('ses_d');
    for (const t of ['one', 'two', 'three']) oc.message('ses_d', { role: 'user' }, [text(t)]);
    expect(read('ses_d', { before: 2 }).turns.map((t) => [t.seq, t.text])).toEqual([
      [0, 'one'],
      [1, 'two'],
    ]);
  });
});
