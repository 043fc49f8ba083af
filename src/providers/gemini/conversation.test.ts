import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_TEXT_CHARS, MAX_TURNS, TurnSink } from '../../model/conversation.js';
import type { JsonObject } from '../../model/json.js';
import { corpus, HAVE_CORPUS, jsonl, tempDir } from '../../test-support/corpus.js';
import { WHOLE_FILE_CHAT_PROMPT, wholeFileChat } from '../../test-support/gemini-chat.js';
import { labFile, labFiles } from '../../test-support/lines.js';
import { unifiedDelta } from '../conversation-util.js';
import type { ConversationOptions } from '../types.js';
import { geminiMessage } from './conversation.js';
import { gemini } from './index.js';
import { WINDOW_MESSAGES } from './parser.js';

const main: ConversationOptions = { before: null, agent: null };
const chat = (path: string, o: Partial<ConversationOptions> = {}) =>
  gemini.conversation!(path, { ...main, ...o });

/** Messages shaped as Gemini CLI 0.40+ writes them (`chatRecordingTypes.ts`), trimmed. */
const header = {
  sessionId: 'aaaa1111-2222-4333-8444-555566667777',
  projectHash: 'ab12',
  startTime: 't0',
  kind: 'main',
};
const user = (id: string, text: string) => ({ id, timestamp: `t-${id}`, type: 'user', content: [{ text }] });
const reply = (id: string, content: string, toolCalls: unknown[] = []) => ({
  id,
  timestamp: `t-${id}`,
  type: 'gemini',
  content,
  thoughts: [],
  model: 'gemini-3-flash-preview',
  toolCalls,
});
const shell = (id: string, command: string, status: string, output: string) => ({
  id,
  name: 'run_shell_command',
  args: { command },
  status,
  result: [{ functionResponse: { id, name: 'run_shell_command', response: { output } } }],
});

describe('a whole-file Gemini CLI chat (the `.json` form before 0.40, written for these tests)', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());
  const write = (prompt?: string): string => {
    const path = join(dir, 'session-2025-10-29T09-00-c0ffee00.json');
    writeFileSync(path, JSON.stringify(wholeFileChat(prompt), null, 2));
    return path;
  };

  it('two prompts, every reply, thoughts apart, six calls: three marked failed, with why', () => {
    const c = chat(write());
    expect(c.supported).toBe(true);
    expect(c.earlier).toBe(0);
    // 2 prompts, 5 replies, 2 of them with thoughts ahead of them.
    expect(c.turns.map((t) => [t.role, t.kind])).toEqual([
      ['user', 'message'],
      ['assistant', 'reasoning'],
      ['assistant', 'message'],
      ['assistant', 'reasoning'],
      ['assistant', 'message'],
      ['assistant', 'message'],
      ['assistant', 'message'],
      ['user', 'message'],
      ['assistant', 'message'],
    ]);
    expect(c.turns.filter((t) => t.role === 'user').map((t) => t.text)).toEqual([
      WHOLE_FILE_CHAT_PROMPT,
      "thanks, that's all",
    ]);
    expect(c.turns[1]!.text).toBe('Reading the file first\nI will read hello.txt before changing it.');
    const tools = c.turns.flatMap((t) => t.tools);
    expect(tools).toHaveLength(6);
    expect(tools[0]).toMatchObject({
      name: 'read_file',
      detail: '/tmp/demo/hello.txt',
      result: 'Hi from the demo',
      failed: false,
    });
    // The refused `list_directory .`, the shell command that exited 1 (recorded as `success`), and
    // the one the person cancelled.
    expect(tools.filter((t) => t.failed).map((t) => [t.name, t.detail])).toEqual([
      ['run_shell_command', 'npm test'],
      ['list_directory', '.'],
      ['run_shell_command', 'python3'],
    ]);
    expect(tools.filter((t) => t.failed).map((t) => (t.result ?? '').split('\n')[0])).toEqual([
      'Command: npm test',
      'Path must be absolute: .',
      '[Operation Cancelled] Reason: User cancelled the operation.',
    ]);
    // The reply that said what it would do carries its calls.
    expect(c.turns[5]).toMatchObject({ role: 'assistant', text: 'I will write a note and run the tests.' });
    expect(c.turns[5]!.tools.map((t) => t.name)).toEqual(['write_file', 'run_shell_command']);
    // Turns are numbered in order, from zero, with nothing skipped.
    expect(c.turns.map((t) => t.seq)).toEqual([...Array(9).keys()]);
    expect(c.turns.at(-1)).toMatchObject({ role: 'assistant', text: 'Done.' });
  });

  it('a written file carries the diff Gemini CLI showed; an edit with none reads its own old and new text', () => {
    const tools = chat(write()).turns.flatMap((t) => t.tools);
    const note = tools.find((t) => t.name === 'write_file')!;
    expect(note).toMatchObject({ detail: '/tmp/demo/NOTES.md', added: 2, removed: 0 });
    expect(note.diff[0]).toBe('@@ -0,0 +1,2 @@');
    expect(tools.find((t) => t.name === 'replace')).toMatchObject({
      detail: '/tmp/demo/hello.txt',
      added: 1,
      removed: 1,
      diff: ['-Hi from the demo', '+Bye from the demo'],
      failed: false,
    });
  });

  it('a long prompt is cut, and says so', () => {
    const c = chat(write(`please ${'read every file and '.repeat(MAX_TEXT_CHARS / 10)}then stop`));
    expect(c.turns[0]).toMatchObject({ role: 'user', clipped: true });
    expect(c.turns[0]!.text.length).toBeLessThanOrEqual(MAX_TEXT_CHARS + 1);
  });
});

describe('a Gemini CLI 0.61.0 chat recorded in the conformance lab', () => {
  // The lab's `call` script: the prompt, a reply calling `echo lab-call-ok`, then the answer.
  it('the JSONL form: the prompt, a call with its output, the answer', () => {
    const c = chat(labFile('gemini', 'call'));
    const users = c.turns.filter((t) => t.role === 'user');
    expect(users.at(-1)!.text).toContain('[lab:call] Follow the lab script call.');
    const tools = c.turns.flatMap((t) => t.tools);
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ name: 'run_shell_command', failed: false });
    expect(tools[0]!.result).toContain('lab-call-ok');
    expect(c.turns.at(-1)!.role).toBe('assistant');
  });

  it('a command that exits non-zero is marked failed', () => {
    const tools = chat(labFile('gemini', 'fail')).turns.flatMap((t) => t.tools);
    expect(tools.map((t) => t.failed)).toEqual([true]);
  });

  it('every recorded chat reads', () => {
    for (const file of labFiles('gemini')) expect(chat(file).supported, file).toBe(true);
  });
});

if (HAVE_CORPUS) {
  // Extra cases over `../shared/corpus`, registered only where it is present.
  describe('Gemini CLI chats from ../shared/corpus', () => {
    const sessions = (name: string) => corpus('gemini-cli', 'sessions', name);

    it('a whole-file chat (gemini-2.5-pro): three prompts, 13 calls, four marked failed', () => {
      const c = chat(sessions('agentcmd__session-2025-10-27T19-55-981c87cb.json'));
      expect(c.turns).toHaveLength(30);
      expect(c.turns.filter((t) => t.kind === 'reasoning')).toHaveLength(12);
      const tools = c.turns.flatMap((t) => t.tools);
      expect(tools).toHaveLength(13);
      expect(tools.filter((t) => t.failed)).toHaveLength(4);
    });

    it('a large chat (gemini-3-pro-preview): 62 calls, two failed', () => {
      const c = chat(sessions('metaphi__session-2026-01-30T06-08-7befeae5.json'));
      const tools = c.turns.flatMap((t) => t.tools);
      expect(tools).toHaveLength(62);
      expect(tools.filter((t) => t.failed).map((t) => t.name)).toEqual(['activate_skill', 'push_files']);
    });

    it('single messages kept from real chats: a refused call is marked, with why', () => {
      const sink = new TurnSink();
      const message = JSON.parse(
        readFileSync(sessions('agentcmd-individual-messages/tool-result-error.json'), 'utf8'),
      ) as JsonObject;
      geminiMessage(sink, message);
      expect(
        sink.finish().turns.map((t) => [t.kind, t.tools.map((x) => [x.detail, x.result, x.failed])]),
      ).toEqual([
        ['reasoning', []],
        ['message', [['.', 'Path must be absolute: .', true]]],
      ]);
    });
  });
}

describe('a Gemini CLI JSONL chat (written for these tests in the shape of 0.40)', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());
  const write = (name: string, ...lines: unknown[]): string => {
    const path = join(dir, 'chats', name);
    mkdirSync(join(dir, 'chats'), { recursive: true });
    writeFileSync(path, jsonl(...lines));
    return path;
  };

  it('a message written again when its call finishes shows once, finished, in its first place', () => {
    const path = write(
      'session-a.jsonl',
      header,
      user('u1', 'run the tests'),
      reply('g1', 'running them', [{ ...shell('c1', 'npm test', 'executing', ''), result: undefined }]),
      { $set: { lastUpdated: 't9' } },
      reply('g1', 'running them', [shell('c1', 'npm test', 'success', '12 passed')]),
      user('u2', 'thanks'),
    );
    const c = chat(path);
    expect(c.turns.map((t) => t.text)).toEqual(['run the tests', 'running them', 'thanks']);
    expect(c.turns[1]!.tools).toEqual([expect.objectContaining({ detail: 'npm test', result: '12 passed' })]);
  });

  it('a call still executing has no result yet', () => {
    const path = write(
      'session-b.jsonl',
      header,
      reply('g1', '', [shell('c1', 'sleep 60', 'executing', '')]),
    );
    expect(chat(path).turns[0]!.tools[0]!.result).toBeNull();
  });

  it('a rewind takes back the message it names and everything after it', () => {
    const path = write(
      'session-c.jsonl',
      header,
      user('u1', 'first'),
      reply('g1', 'answer one'),
      user('u2', 'a prompt taken back'),
      reply('g2', 'an answer taken back'),
      { $rewindTo: 'u2' },
      user('u3', 'asked again'),
      reply('g3', 'answer three'),
    );
    expect(chat(path).turns.map((t) => t.text)).toEqual([
      'first',
      'answer one',
      'asked again',
      'answer three',
    ]);
  });

  it('a rewind reaches back past the messages held open for re-writes', () => {
    const lines: unknown[] = [header, user('keep', 'kept')];
    for (let i = 0; i < WINDOW_MESSAGES + 10; i++) lines.push(user(`gone${i}`, `gone ${i}`));
    lines.push({ $rewindTo: 'gone0' }, user('after', 'after the rewind'));
    expect(chat(write('session-d.jsonl', ...lines)).turns.map((t) => t.text)).toEqual([
      'kept',
      'after the rewind',
    ]);
  });

  it('a patch brings a call its result', () => {
    const path = write(
      'session-e.jsonl',
      header,
      reply('g1', 'checking', [{ ...shell('c1', 'ls', 'executing', ''), result: undefined }]),
      {
        $patch: {
          id: 'g1',
          toolCalls: [
            {
              id: 'c1',
              status: 'success',
              result: [{ functionResponse: { id: 'c1', response: { output: 'a.ts' } } }],
            },
          ],
        },
      },
    );
    expect(chat(path).turns[0]!.tools[0]).toMatchObject({ result: 'a.ts', failed: false });
  });

  it('what the person typed is shown, not the file contents Gemini CLI expanded it into', () => {
    const path = write('session-f.jsonl', header, {
      ...user('u1', 'explain\n--- a.ts ---\nexport const a = 1;'),
      displayContent: [{ text: 'explain @a.ts' }],
    });
    expect(chat(path).turns[0]!.text).toBe('explain @a.ts');
  });

  it('info and error messages are the harness speaking; thought parts are thinking', () => {
    const path = write(
      'session-g.jsonl',
      header,
      { id: 'i1', timestamp: 't', type: 'info', content: 'Request cancelled.' },
      { id: 'e1', timestamp: 't', type: 'error', content: 'API Error: quota exceeded' },
      { ...reply('g1', ''), content: [{ text: 'weighing it', thought: true }, { text: 'here it is' }] },
    );
    expect(chat(path).turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['system', 'message', 'Request cancelled.'],
      ['system', 'message', 'error: API Error: quota exceeded'],
      ['assistant', 'reasoning', 'weighing it'],
      ['assistant', 'message', 'here it is'],
    ]);
  });

  it('a garbage line is skipped and the rest still reads', () => {
    const path = join(dir, 'session-h.jsonl');
    writeFileSync(path, `${jsonl(header, user('u1', 'before'))}{not json\n${jsonl(user('u2', 'after'))}`);
    expect(chat(path).turns.map((t) => t.text)).toEqual(['before', 'after']);
  });

  it('only the newest turns are sent, the rest counted, and paging back reaches the older ones', () => {
    const lines: unknown[] = [header];
    for (let i = 0; i < MAX_TURNS + 50; i++) lines.push(user(`u${i}`, `prompt ${i}`));
    const path = write('session-i.jsonl', ...lines);
    const newest = chat(path);
    expect(newest.turns).toHaveLength(MAX_TURNS);
    expect(newest.earlier).toBe(50);
    expect(newest.turns[0]).toMatchObject({ seq: 50, text: 'prompt 50' });
    const older = chat(path, { before: 50 });
    expect(older.earlier).toBe(0);
    expect(older.turns.map((t) => t.seq)).toEqual([...Array(50).keys()]);
    expect(older.turns.at(-1)!.text).toBe('prompt 49');
  });

  it("a subagent's chat is read from its parent's folder by its id", () => {
    const path = write('session-2026-01-01T00-00-aaaa1111.jsonl', header, user('u1', 'delegate it'));
    const subDir = join(dir, 'chats', header.sessionId);
    mkdirSync(subDir, { recursive: true });
    writeFileSync(
      join(subDir, 'sub-7f3c.jsonl'),
      jsonl({ ...header, kind: 'subagent' }, user('s1', 'find the bug')),
    );
    expect(chat(path, { agent: 'sub-7f3c' }).turns.map((t) => t.text)).toEqual(['find the bug']);
    expect(chat(path, { agent: 'nobody' }).supported).toBe(false);
    expect(chat(path, { agent: '../escape' }).supported).toBe(false);
  });

  it('a chat file that is not JSON is refused, not read as empty', () => {
    const path = join(dir, 'session-j.json');
    writeFileSync(path, 'not json');
    expect(chat(path)).toMatchObject({ supported: false });
  });
});

/**
 * Lines Gemini CLI 0.61.0 wrote in the conformance lab (`[lab:fail]`, then `--resume` with
 * `[lab:resume]`), trimmed: the `<session_context>` to its first lines, ids shortened, the `$set`s of
 * `lastUpdated` and the token counts left out.
 */
describe('a Gemini CLI 0.61 chat', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());

  const context = user(
    'd04923d3',
    '<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nMy operating system is: linux\n</session_context>',
  );
  const output =
    '<untrusted_context>\nOutput: lab-fail-out\nExit Code: 3\nProcess Group PGID: 25916\n</untrusted_context>';
  const failing = shell('run_shell_command__call_lab_2', 'echo lab-fail-out; exit 3', 'success', output);
  const firstRun = [
    header,
    { $set: { messages: [context] } },
    user('5b1ee638', '[lab:fail] Follow the lab script fail.'),
    reply('7239154d', ''),
    reply('7239154d', '', [failing]),
    { id: '8e90c0fb', timestamp: 't', type: 'user', content: failing.result },
    reply('5aeaf7ab', 'The command failed with exit code 3.'),
  ];
  const resumed = [
    { $set: { sessionId: header.sessionId } },
    {
      $set: {
        messages: [
          context,
          user('5b1ee638', '[lab:fail] Follow the lab script fail.'),
          {
            id: '7239154d',
            timestamp: 't',
            type: 'gemini',
            content: [{ functionCall: { id: failing.id, name: 'run_shell_command', args: failing.args } }],
          },
          { id: '7239154d_response', timestamp: 't', type: 'user', content: failing.result },
          {
            id: '5aeaf7ab',
            timestamp: 't',
            type: 'gemini',
            content: [{ text: 'The command failed with exit code 3.' }],
          },
        ],
      },
    },
    user('cd8053ac', '[lab:resume] Follow the lab script resume.'),
    reply('f5b19346', 'Resumed: the second turn is answered.'),
  ];
  const write = (...lines: unknown[]): string => {
    const path = join(dir, 'chats', 'session-2026-12-01T21-19-d66d1d33.jsonl');
    mkdirSync(join(dir, 'chats'), { recursive: true });
    writeFileSync(path, jsonl(...lines));
    return path;
  };

  it('the <session_context> Gemini CLI writes first is the harness speaking, not a prompt', () => {
    const c = chat(write(...firstRun));
    expect(c.turns.filter((t) => t.role === 'user').map((t) => t.text)).toEqual([
      '[lab:fail] Follow the lab script fail.',
    ]);
    expect(c.turns[0]).toMatchObject({ role: 'system', kind: 'message' });
    expect(c.turns[0]!.text.startsWith('<session_context>')).toBe(true);
  });

  it('a shell call recorded `success` whose command exited 3 is marked failed, with its output', () => {
    const tools = chat(write(...firstRun)).turns.flatMap((t) => t.tools);
    expect(tools).toEqual([expect.objectContaining({ detail: 'echo lab-fail-out; exit 3', failed: true })]);
    expect(tools[0]!.result).toContain('Exit Code: 3');
  });

  it('a resume writes the history again without its calls; the calls and turns stay as they were', () => {
    const c = chat(write(...firstRun, ...resumed));
    expect(c.turns.filter((t) => t.role !== 'system').map((t) => [t.role, t.text])).toEqual([
      ['user', '[lab:fail] Follow the lab script fail.'],
      ['assistant', ''],
      ['assistant', 'The command failed with exit code 3.'],
      ['user', '[lab:resume] Follow the lab script resume.'],
      ['assistant', 'Resumed: the second turn is answered.'],
    ]);
    expect(c.turns.flatMap((t) => t.tools)).toEqual([expect.objectContaining({ failed: true })]);
  });
});

describe('reading a unified diff', () => {
  it('counts added and removed lines, not the file headers', () => {
    const d = unifiedDelta(
      `Index: a.ts\n${'='.repeat(67)}\n--- a.ts\tOriginal\n+++ a.ts\tWritten\n@@ -1,2 +1,2 @@\n-old\n+new\n same`,
    );
    expect(d).toEqual({ added: 1, removed: 1, lines: ['@@ -1,2 +1,2 @@', '-old', '+new', ' same'] });
  });

  it('a removed line that starts with dashes is a removal, and a second file is read after the first', () => {
    const d = unifiedDelta(
      '--- a.sql\n+++ a.sql\n@@ -1,2 +1 @@\n--- a comment\n select 1;\n--- b.sql\n+++ b.sql\n@@ -0,0 +1 @@\n+select 2;',
    );
    expect(d).toMatchObject({ added: 1, removed: 1 });
    expect(d!.lines).toEqual(['@@ -1,2 +1 @@', '--- a comment', ' select 1;', '@@ -0,0 +1 @@', '+select 2;']);
  });
});
