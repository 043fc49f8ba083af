import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { corpus, HAVE_CORPUS, jsonl, tempDir } from '../../test-support/corpus.js';
import { labFile } from '../../test-support/lines.js';
import type { ConversationOptions } from '../types.js';
import { entryHead } from './conversation.js';
import { pi } from './index.js';

const main: ConversationOptions = { before: null, agent: null };
const chat = (path: string, o: Partial<ConversationOptions> = {}) =>
  pi.conversation!(path, { ...main, ...o });

describe('Pi 0.73.1 sessions recorded in the conformance lab', () => {
  // The lab's `call` script: the prompt, a reply calling bash `echo lab-call-ok`, then the answer.
  it('the prompt, the call with its output, the answer', () => {
    const c = chat(labFile('pi', 'call'));
    expect(c.turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['user', 'message', '[lab:call] Follow the lab script call.'],
      ['assistant', 'message', ''],
      ['assistant', 'message', 'The command printed lab-call-ok.'],
    ]);
    expect(c.turns[1]!.tools).toEqual([
      expect.objectContaining({ name: 'bash', detail: 'echo lab-call-ok', failed: false }),
    ]);
    expect(c.turns[1]!.tools[0]!.result).toContain('lab-call-ok');
    expect(c.turns[0]!.ts).toBe('2026-12-01T21:42:15.327Z');
  });

  it('a command that exits non-zero is marked failed', () => {
    expect(
      chat(labFile('pi', 'fail'))
        .turns.flatMap((t) => t.tools)
        .map((t) => t.failed),
    ).toEqual([true]);
  });
});

if (HAVE_CORPUS) {
  // An extra case over `../shared/corpus`, registered only where it is present.
  describe('a Pi session from ../shared/corpus', () => {
    it('format 3, run against a fixture model: two prompts, two answers, two compactions with their summaries', () => {
      const c = chat(corpus('other-agents', 'pi', 'agent-sessions__pi-small.jsonl'));
      expect(c.turns.map((t) => [t.role, t.kind, t.text])).toEqual([
        ['user', 'message', 'Read hello.py and summarize what it prints without editing files.'],
        ['assistant', 'message', 'hello.py prints a fixture greeting.'],
        ['system', 'compaction', 'hello.py prints a fixture greeting.'],
        ['user', 'message', 'Add one concise follow-up sentence.'],
        ['assistant', 'message', 'hello.py prints a fixture greeting.'],
        ['system', 'compaction', 'hello.py prints a fixture greeting.'],
      ]);
      expect(c.turns[0]!.ts).toBe('2026-05-12T01:02:27.673Z');
    });
  });
}

/** Entries shaped as Pi writes them (`session-manager.ts`, format 3), trimmed. */
let n = 0;
const entry = (parentId: string | null, more: Record<string, unknown>, id = `e${++n}`) => ({
  type: 'message',
  id,
  parentId,
  timestamp: `2026-05-12T01:02:${String(n % 60).padStart(2, '0')}.000Z`,
  ...more,
});
const header = {
  type: 'session',
  version: 3,
  id: '019e19b4-eb48-746a-aa6b-8dfcfa37954b',
  timestamp: 't',
  cwd: '/w',
};
const user = (id: string, parent: string | null, text: string) =>
  entry(parent, { message: { role: 'user', content: [{ type: 'text', text }], timestamp: 1 } }, id);
const assistant = (
  id: string,
  parent: string | null,
  content: unknown[],
  more: Record<string, unknown> = {},
) =>
  entry(
    parent,
    { message: { role: 'assistant', content, model: 'm', stopReason: 'stop', timestamp: 2, ...more } },
    id,
  );
const result = (id: string, parent: string, callId: string, text: string, isError = false) =>
  entry(
    parent,
    {
      message: {
        role: 'toolResult',
        toolCallId: callId,
        toolName: 'bash',
        content: [{ type: 'text', text }],
        isError,
        timestamp: 3,
      },
    },
    id,
  );

describe('a Pi session (written for these tests)', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());
  const write = (...lines: unknown[]): string => {
    const path = join(dir, '2026-05-12T01-02-27-657Z_019e19b4.jsonl');
    writeFileSync(path, jsonl(...lines));
    return path;
  };

  it('a compaction is a seam that keeps its summary, and the session goes on after it', () => {
    // As Pi 0.73 writes a compaction entry: on the branch, with the summary the model wrote.
    const compaction = (id: string, parent: string, summary: string) => ({
      type: 'compaction',
      id,
      parentId: parent,
      timestamp: '2026-05-12T01:03:00.000Z',
      summary,
      firstKeptEntryId: 'u1',
      tokensBefore: 19,
      details: { readFiles: [], modifiedFiles: [] },
      fromHook: false,
    });
    const c = chat(
      write(
        header,
        user('u1', null, 'what does hello.py print?'),
        assistant('a1', 'u1', [{ type: 'text', text: 'A greeting.' }]),
        compaction('c1', 'a1', 'The user asked what hello.py prints: a greeting.'),
        user('u2', 'c1', 'and in French?'),
        assistant('a2', 'u2', [{ type: 'text', text: 'Bonjour.' }]),
      ),
    );
    expect(c.turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['user', 'message', 'what does hello.py print?'],
      ['assistant', 'message', 'A greeting.'],
      ['system', 'compaction', 'The user asked what hello.py prints: a greeting.'],
      ['user', 'message', 'and in French?'],
      ['assistant', 'message', 'Bonjour.'],
    ]);
  });

  it('a response keeps its blocks in order: thinking apart, text and calls together, results by id', () => {
    const path = write(
      header,
      user('a1', null, 'run the tests'),
      assistant('a2', 'a1', [
        { type: 'thinking', thinking: 'npm test is the script' },
        { type: 'text', text: 'Running them.' },
        { type: 'toolCall', id: 'call_1', name: 'bash', arguments: { command: 'npm test' } },
        { type: 'toolCall', id: 'call_2', name: 'read', arguments: { path: 'missing.ts' } },
      ]),
      result('a3', 'a2', 'call_1', '12 passed'),
      result('a4', 'a3', 'call_2', 'ENOENT: missing.ts', true),
      assistant('a5', 'a4', [{ type: 'text', text: 'All green; missing.ts does not exist.' }]),
    );
    const turns = chat(path).turns;
    expect(turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['user', 'message', 'run the tests'],
      ['assistant', 'reasoning', 'npm test is the script'],
      ['assistant', 'message', 'Running them.'],
      ['assistant', 'message', 'All green; missing.ts does not exist.'],
    ]);
    expect(turns[2]!.tools.map((t) => [t.name, t.detail, t.result, t.failed])).toEqual([
      ['bash', 'npm test', '12 passed', false],
      ['read', 'missing.ts', 'ENOENT: missing.ts', true],
    ]);
  });

  it('only the branch the session is on is shown; the one left behind speaks through its summary', () => {
    const path = write(
      header,
      user('b1', null, 'make it faster'),
      assistant('b2', 'b1', [{ type: 'text', text: 'Try caching.' }]),
      user('b3', 'b2', 'cache in redis'),
      assistant('b4', 'b3', [{ type: 'text', text: 'Redis it is.' }]),
      // `/tree` back to b2: a summary of the abandoned path, then the new branch.
      entry('b2', { type: 'branch_summary', fromId: 'b4', summary: 'Tried redis.' }, 'b5'),
      user('b6', 'b5', 'cache in memory instead'),
      assistant('b7', 'b6', [{ type: 'text', text: 'An LRU then.' }]),
    );
    expect(chat(path).turns.map((t) => t.text)).toEqual([
      'make it faster',
      'Try caching.',
      'from the branch left behind: Tried redis.',
      'cache in memory instead',
      'An LRU then.',
    ]);
  });

  it('a command the person ran with ! is theirs, with its output; a non-zero exit is marked', () => {
    const path = write(
      header,
      entry(null, {
        message: {
          role: 'bashExecution',
          command: 'make',
          output: 'make: *** No rule',
          exitCode: 2,
          cancelled: false,
        },
      }),
    );
    const [t] = chat(path).turns;
    expect(t).toMatchObject({ role: 'user', text: '!make' });
    expect(t!.tools[0]).toMatchObject({
      name: 'bash',
      detail: 'make',
      result: 'make: *** No rule',
      failed: true,
    });
  });

  it('an edit carries its change; a response that failed says why after what it managed', () => {
    const path = write(
      header,
      assistant(
        'c1',
        null,
        [
          { type: 'text', text: 'Editing.' },
          {
            type: 'toolCall',
            id: 'k1',
            name: 'edit',
            arguments: { path: 'a.ts', oldText: 'a\nb', newText: 'c' },
          },
        ],
        { stopReason: 'error', errorMessage: '429 rate limited' },
      ),
      assistant('c2', 'c1', [], { stopReason: 'aborted' }),
    );
    const turns = chat(path).turns;
    expect(turns[0]!.tools[0]).toMatchObject({
      detail: 'a.ts',
      added: 1,
      removed: 2,
      diff: ['-a', '-b', '+c'],
    });
    expect(turns.map((t) => [t.role, t.text])).toEqual([
      ['assistant', 'Editing.'],
      ['system', 'error: 429 rate limited'],
      ['system', 'interrupted'],
    ]);
  });

  it('pages back from a turn; a garbage line is skipped; subagents are not a thing Pi has', () => {
    const path = join(dir, 's.jsonl');
    writeFileSync(
      path,
      `${jsonl(header, user('d1', null, 'one'), user('d2', 'd1', 'two'))}{oops\n${jsonl(user('d3', 'd2', 'three'))}`,
    );
    expect(chat(path).turns.map((t) => t.text)).toEqual(['one', 'two', 'three']);
    expect(chat(path, { before: 2 }).turns.map((t) => t.text)).toEqual(['one', 'two']);
    expect(chat(path, { agent: 'x' }).supported).toBe(false);
  });

  it("an entry's id and parent are read from the head of its line as Pi writes it", () => {
    expect(entryHead('{"type":"message","id":"30c6a75f","parentId":"3a59c5dd","timestamp":"t"}')).toEqual({
      id: '30c6a75f',
      parent: '3a59c5dd',
    });
    expect(entryHead('{"type":"model_change","id":"f7c7091e","parentId":null}')).toEqual({
      id: 'f7c7091e',
      parent: null,
    });
    expect(entryHead('{"type":"session","version":3,"id":"x"}')).toBeNull();
  });
});
