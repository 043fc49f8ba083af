import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { corpus, HAVE_CORPUS, jsonl, tempDir } from '../../test-support/corpus.js';
import { labFile, labFiles } from '../../test-support/lines.js';
import type { ConversationOptions } from '../types.js';
import { copilot } from './index.js';

const main: ConversationOptions = { before: null, agent: null };
const chat = (path: string, o: Partial<ConversationOptions> = {}) =>
  copilot.conversation!(path, { ...main, ...o });
describe('Copilot CLI 1.0.102 sessions recorded in the conformance lab', () => {
  // The lab's `call` script: the prompt, a reply calling bash `echo lab-call-ok`, then the answer.
  it('the prompt, the call with its output, the answer', () => {
    const c = chat(labFile('copilot', 'call'));
    expect(c.turns.filter((t) => t.role !== 'system').map((t) => [t.role, t.text])).toEqual([
      ['user', '[lab:call] Follow the lab script call.'],
      ['assistant', ''],
      ['assistant', 'The command printed lab-call-ok.'],
    ]);
    const tools = c.turns.flatMap((t) => t.tools);
    expect(tools).toEqual([
      expect.objectContaining({ name: 'bash', detail: 'echo lab-call-ok', failed: false }),
    ]);
    expect(tools[0]!.result).toContain('lab-call-ok');
  });

  it('a command that exits non-zero is marked failed', () => {
    const tools = chat(labFile('copilot', 'fail')).turns.flatMap((t) => t.tools);
    expect(tools.map((t) => t.failed)).toEqual([true]);
  });

  it('every recorded session reads', () => {
    for (const file of labFiles('copilot')) expect(chat(file).supported, file).toBe(true);
  });
});

if (HAVE_CORPUS) {
  // Extra cases over `../shared/corpus` (trimmed fixtures of other versions), registered only where it
  // is present.
  describe('Copilot CLI sessions from ../shared/corpus', () => {
    const state = (name: string) => corpus('copilot-cli', 'session-state', name);
    it('events.jsonl of 1.0.11 (a trimmed fixture): the prompt, the call with its output, the answer', () => {
      const c = chat(state('aaaabbbb-1111-2222-3333-ccccddddeeee/events.jsonl'));
      expect(c.turns.map((t) => [t.role, t.text])).toEqual([
        ['user', 'List the files'],
        ['assistant', ''],
        ['assistant', 'The directory contains file1 and file2.'],
      ]);
      expect(c.turns[1]!.tools).toEqual([
        expect.objectContaining({ name: 'bash', detail: 'ls', result: 'file1\nfile2', failed: false }),
      ]);
    });

    it("1.0.77 (a trimmed fixture): an error before the prompt, a reply, a subagent's events left out, an interruption", () => {
      const c = chat(state('agent-sessions__copilot-small.synthetic.jsonl'));
      expect(c.turns.slice(0, 4).map((t) => [t.role, t.text])).toEqual([
        ['system', 'error: Example model error'],
        ['user', 'List the files'],
        ['assistant', 'Listing the files.'],
        ['assistant', 'Done'],
      ]);
      // Arguments written as the model's JSON text still name the command.
      expect(c.turns[2]!.tools[0]).toMatchObject({ name: 'shell', detail: 'ls', result: 'a.txt\nb.txt' });
      // Four tool requests in the file, one of them the subagent's: three calls in the main thread.
      expect(c.turns.flatMap((t) => t.tools)).toHaveLength(3);
      expect(c.turns.flatMap((t) => t.tools).filter((t) => t.failed)).toHaveLength(1);
      expect(c.turns.map((t) => t.text)).toContain('interrupted: [trimmed for fixture]');
      expect(c.turns.at(-1)).toMatchObject({ role: 'assistant', kind: 'reasoning' });
    });

    it('0.0.420 (a trimmed fixture): three prompts, multi-line output, a call started with no request still running', () => {
      const c = chat(state('agent-sessions__copilot-large.synthetic.jsonl'));
      expect(c.turns.map((t) => [t.role, t.text])).toEqual([
        ['user', 'Step 1'],
        ['assistant', 'Ok'],
        ['user', 'Step 2'],
        ['assistant', ''],
        ['assistant', 'Captured multiline output.'],
        ['user', 'Step 3'],
        ['assistant', 'Ok'],
      ]);
      expect(c.turns[3]!.tools[0]).toMatchObject({ result: 'line1\nline2\nline3', failed: false });
      expect(c.turns[6]!.tools[0]).toMatchObject({ detail: 'echo hi', result: null });
    });
  });
}

/** Events shaped as Copilot CLI 1.0 writes them (the SDK's `session-events.schema.json`), trimmed. */
let n = 0;
const ev = (type: string, data: Record<string, unknown>) => ({
  type,
  data,
  id: `e${++n}`,
  timestamp: `2026-03-01T10:00:${String(n % 60).padStart(2, '0')}.000Z`,
  parentId: null,
});

describe('a Copilot CLI session (written for these tests)', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());
  const write = (...events: unknown[]): string => {
    const path = join(dir, 'events.jsonl');
    writeFileSync(path, jsonl(...events));
    return path;
  };

  it('thinking is shown once, whether it came as its own event or on the message, or both', () => {
    const path = write(
      ev('user.message', { content: 'why is it slow?' }),
      ev('assistant.reasoning', { reasoningId: 'r1', content: 'the loop is quadratic' }),
      ev('assistant.message', {
        messageId: 'm1',
        content: 'It is the loop.',
        reasoningText: 'the loop is quadratic',
      }),
      ev('assistant.message', {
        messageId: 'm2',
        content: 'Also the cache.',
        reasoningText: 'and the cache misses',
      }),
    );
    expect(chat(path).turns.map((t) => [t.kind, t.text])).toEqual([
      ['message', 'why is it slow?'],
      ['reasoning', 'the loop is quadratic'],
      ['message', 'It is the loop.'],
      ['reasoning', 'and the cache misses'],
      ['message', 'Also the cache.'],
    ]);
  });

  it('a failed call is marked and shows the error it got', () => {
    const path = write(
      ev('assistant.message', {
        messageId: 'm1',
        content: '',
        toolRequests: [{ toolCallId: 'c1', name: 'view', arguments: { path: '/etc/shadow' } }],
      }),
      ev('tool.execution_start', { toolCallId: 'c1', toolName: 'view', arguments: { path: '/etc/shadow' } }),
      ev('tool.execution_complete', {
        toolCallId: 'c1',
        success: false,
        error: { message: 'Permission denied and could not request permission from user', code: 'denied' },
      }),
    );
    const turns = chat(path).turns;
    expect(turns).toHaveLength(1);
    expect(turns[0]!.tools).toEqual([
      expect.objectContaining({
        name: 'view',
        detail: '/etc/shadow',
        failed: true,
        result: 'Permission denied and could not request permission from user',
      }),
    ]);
  });

  it('an edit carries the diff from its detailed result, else from its own arguments', () => {
    const path = write(
      ev('assistant.message', {
        messageId: 'm1',
        content: 'fixing',
        toolRequests: [
          { toolCallId: 'c1', name: 'edit', arguments: { path: 'a.ts', old_str: 'x = 1', new_str: 'x = 2' } },
          { toolCallId: 'c2', name: 'edit', arguments: { path: 'b.ts', old_str: 'y', new_str: 'z' } },
        ],
      }),
      ev('tool.execution_complete', {
        toolCallId: 'c1',
        success: true,
        result: {
          content: 'File a.ts updated with changes.',
          detailedContent:
            'diff --git a/a.ts b/a.ts\n--- a/a.ts\n+++ b/a.ts\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 2\n y = 3',
        },
      }),
      ev('tool.execution_complete', { toolCallId: 'c2', success: true, result: { content: 'ok' } }),
    );
    const [a, b] = chat(path).turns[0]!.tools;
    expect(a).toMatchObject({
      added: 1,
      removed: 1,
      diff: ['@@ -1,2 +1,2 @@', '-x = 1', '+x = 2', ' y = 3'],
    });
    expect(a!.result).toBe('File a.ts updated with changes.');
    expect(b).toMatchObject({ added: 1, removed: 1, diff: ['-y', '+z'] });
  });

  it("a subagent's events stay out of the main thread and are its own conversation, opened by its prompt", () => {
    const path = write(
      ev('user.message', { content: 'review the branch' }),
      ev('assistant.message', {
        messageId: 'm1',
        content: 'Delegating.',
        toolRequests: [
          { toolCallId: 'task_1', name: 'task', arguments: { description: 'review', prompt: 'Review src/' } },
        ],
      }),
      ev('subagent.started', { toolCallId: 'task_1', agentName: 'code-review' }),
      ev('assistant.message', {
        parentToolCallId: 'task_1',
        messageId: 's1',
        content: 'Looking at src.',
        toolRequests: [{ toolCallId: 's_c1', name: 'grep', arguments: { pattern: 'TODO' } }],
      }),
      ev('tool.execution_complete', {
        parentToolCallId: 'task_1',
        toolCallId: 's_c1',
        success: true,
        result: { content: '3 matches' },
      }),
      ev('tool.execution_complete', {
        toolCallId: 'task_1',
        success: true,
        result: { content: 'two issues' },
      }),
      ev('assistant.message', { messageId: 'm2', content: 'The review found two issues.' }),
    );
    const parent = chat(path);
    expect(parent.turns.map((t) => t.text)).toEqual([
      'review the branch',
      'Delegating.',
      'The review found two issues.',
    ]);
    expect(parent.turns[1]!.tools[0]).toMatchObject({ name: 'task', result: 'two issues' });
    const sub = chat(path, { agent: 'task_1' });
    expect(sub.turns.map((t) => [t.role, t.text])).toEqual([
      ['user', 'Review src/'],
      ['assistant', 'Looking at src.'],
    ]);
    expect(sub.turns[1]!.tools[0]).toMatchObject({ name: 'grep', detail: 'TODO', result: '3 matches' });
    expect(chat(path, { agent: 'a/b' }).supported).toBe(false);
  });

  it('a rewind takes back the event it names and everything after it', () => {
    const kept = ev('user.message', { content: 'kept' });
    const gone = ev('user.message', { content: 'taken back' });
    const path = write(
      kept,
      gone,
      ev('assistant.message', { messageId: 'm1', content: 'an answer taken back' }),
      ev('session.snapshot_rewind', { upToEventId: gone.id, eventsRemoved: 2 }),
      ev('user.message', { content: 'asked again' }),
    );
    expect(chat(path).turns.map((t) => t.text)).toEqual(['kept', 'asked again']);
  });

  it('a compaction is a seam that keeps its summary', () => {
    const path = write(
      ev('session.compaction_start', {}),
      ev('session.compaction_complete', { success: true, summaryContent: 'We fixed the parser.' }),
      ev('session.compaction_complete', { success: false, error: 'too short' }),
    );
    expect(chat(path).turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['system', 'compaction', 'We fixed the parser.'],
    ]);
  });

  it('an error before the prompt and an interruption are the harness speaking; a call started unasked is still running', () => {
    // As 1.0.77 wrote them: `session.error` ahead of the first prompt, `abort` with its reason; and,
    // as 0.0.420 did, a `tool.execution_start` with no request on any message.
    const c = chat(
      write(
        ev('session.start', { sessionId: 's1', copilotVersion: '1.0.77', context: { cwd: '/w' } }),
        ev('session.error', {
          errorType: 'query',
          message: 'the model refused the request',
          statusCode: 400,
        }),
        ev('user.message', { content: 'list the files' }),
        ev('assistant.message', { content: 'Listing them.', toolRequests: [] }),
        ev('tool.execution_start', { toolCallId: 'c9', toolName: 'bash', arguments: { command: 'echo hi' } }),
        ev('abort', { reason: 'user initiated' }),
      ),
    );
    expect(c.turns.map((t) => [t.role, t.text])).toEqual([
      ['system', 'error: the model refused the request'],
      ['user', 'list the files'],
      ['assistant', 'Listing them.'],
      ['system', 'interrupted: user initiated'],
    ]);
    expect(c.turns[2]!.tools[0]).toMatchObject({ name: 'bash', detail: 'echo hi', result: null });
  });

  it('pages back from a turn, and skips a line that is not JSON', () => {
    const events: unknown[] = [];
    for (let i = 0; i < 5; i++) events.push(ev('user.message', { content: `prompt ${i}` }));
    const path = join(dir, 'events.jsonl');
    writeFileSync(path, `${jsonl(...events.slice(0, 2))}{"type":\n${jsonl(...events.slice(2))}`);
    expect(chat(path).turns.map((t) => t.text)).toEqual([
      'prompt 0',
      'prompt 1',
      'prompt 2',
      'prompt 3',
      'prompt 4',
    ]);
    expect(chat(path, { before: 2 }).turns.map((t) => [t.seq, t.text])).toEqual([
      [0, 'prompt 0'],
      [1, 'prompt 1'],
    ]);
  });
});
