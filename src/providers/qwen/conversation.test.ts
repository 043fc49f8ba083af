import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { corpus, HAVE_CORPUS, jsonl, tempDir } from '../../test-support/corpus.js';
import { labFile } from '../../test-support/lines.js';
import type { ConversationOptions } from '../types.js';
import { qwen } from './index.js';

const main: ConversationOptions = { before: null, agent: null };
const chat = (path: string, o: Partial<ConversationOptions> = {}) =>
  qwen.conversation!(path, { ...main, ...o });

describe('a Qwen Code 0.24.4 chat recorded in the conformance lab', () => {
  // The lab's `call` script, with Qwen Code's system and telemetry records between: the prompt, a reply
  // calling `echo lab-call-ok`, then the answer.
  it('the prompt, the call with its output, the answer; telemetry and system records are not turns', () => {
    const c = chat(labFile('qwen', 'call'));
    expect(c.turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['user', 'message', '[lab:call] Follow the lab script call.'],
      ['assistant', 'message', ''],
      ['assistant', 'message', 'The command printed lab-call-ok.'],
    ]);
    expect(c.turns[1]!.tools).toEqual([
      expect.objectContaining({ name: 'run_shell_command', failed: false }),
    ]);
    expect(c.turns[1]!.tools[0]!.result).toContain('lab-call-ok');
    expect(c.turns.map((t) => t.ts)).toEqual([
      '2026-12-01T21:38:49.894Z',
      '2026-12-01T21:38:52.967Z',
      '2026-12-01T21:38:55.218Z',
    ]);
  });

  it('a command that exits non-zero is marked failed', () => {
    expect(
      chat(labFile('qwen', 'fail'))
        .turns.flatMap((t) => t.tools)
        .map((t) => t.failed),
    ).toEqual([true]);
  });
});

if (HAVE_CORPUS) {
  // An extra case over `../shared/corpus`, registered only where it is present.
  describe('a Qwen Code chat from ../shared/corpus', () => {
    it('0.18.1: a prompt, a refused call with its error, the answer; telemetry is not a turn', () => {
      const c = chat(corpus('other-agents', 'qwen-code', 'splitrail__qwen_code.jsonl'));
      // 8 records: 1 user, 2 assistant, 1 tool_result, 4 system.
      expect(c.turns.map((t) => [t.role, t.kind, t.text])).toEqual([
        ['user', 'message', 'List the files here.'],
        ['assistant', 'message', ''],
        ['assistant', 'message', 'Done.'],
      ]);
      expect(c.turns[1]!.tools).toEqual([
        expect.objectContaining({
          name: 'list_directory',
          detail: '.',
          result: 'Path must be absolute: .',
          failed: true,
        }),
      ]);
      expect(c.turns.map((t) => t.ts)).toEqual([
        '2026-06-15T14:40:22.832Z',
        '2026-06-15T14:40:22.909Z',
        '2026-06-15T14:40:22.976Z',
      ]);
    });
  });
}

/** Records shaped as Qwen Code writes them (`chatRecordingService.ts`, 0.18 to 0.24), trimmed. */
let n = 0;
const rec = (type: string, more: Record<string, unknown>) => ({
  uuid: `u${++n}`,
  parentUuid: n > 1 ? `u${n - 1}` : null,
  sessionId: 's1',
  timestamp: `2026-06-15T14:40:${String(n % 60).padStart(2, '0')}.000Z`,
  type,
  cwd: '/w',
  version: '0.24.7',
  ...more,
});
const prompt = (text: string, more: Record<string, unknown> = {}) =>
  rec('user', { message: { role: 'user', parts: [{ text }] }, ...more });
const model = (parts: unknown[], more: Record<string, unknown> = {}) =>
  rec('assistant', { model: 'coder-model', message: { role: 'model', parts }, ...more });
const answer = (id: string, status: string, response: unknown, more: Record<string, unknown> = {}) =>
  rec('tool_result', {
    message: { role: 'user', parts: [{ functionResponse: { id, name: 't', response } }] },
    toolCallResult: { callId: id, status, ...more },
  });

describe('a Qwen Code chat (written for these tests)', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());
  const write = (...records: unknown[]): string => {
    const path = join(dir, 's1.jsonl');
    writeFileSync(path, jsonl(...records));
    return path;
  };

  it('thought parts are thinking; the words typed are shown rather than the prompt sent', () => {
    const path = write(
      prompt('fix it\n\n--- a.ts ---\nconst a = 1;', { systemPayload: { displayText: 'fix @a.ts' } }),
      model([{ text: 'the constant is wrong', thought: true }, { text: 'Changing it.' }]),
    );
    expect(chat(path).turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['user', 'message', 'fix @a.ts'],
      ['assistant', 'reasoning', 'the constant is wrong'],
      ['assistant', 'message', 'Changing it.'],
    ]);
  });

  it('an edit shows the diff Qwen Code recorded; a cancelled call is marked failed', () => {
    const path = write(
      model([
        {
          functionCall: {
            id: 'c1',
            name: 'edit',
            args: { file_path: '/w/a.ts', old_string: 'a', new_string: 'b' },
          },
        },
        { functionCall: { id: 'c2', name: 'run_shell_command', args: { command: 'rm -rf build' } } },
      ]),
      answer(
        'c1',
        'success',
        { output: 'Successfully modified file: /w/a.ts (1 replacements).' },
        {
          resultDisplay: {
            fileDiff: '--- a.ts\n+++ a.ts\n@@ -1,3 +1,3 @@\n x\n-const a = 1;\n+const a = 2;\n y',
            fileName: 'a.ts',
          },
        },
      ),
      answer('c2', 'cancelled', { error: '[Operation Cancelled] Reason: User did not allow tool call' }),
    );
    const [edit, shell] = chat(path).turns[0]!.tools;
    expect(edit).toMatchObject({
      detail: '/w/a.ts',
      added: 1,
      removed: 1,
      diff: ['@@ -1,3 +1,3 @@', ' x', '-const a = 1;', '+const a = 2;', ' y'],
      failed: false,
      result: 'Successfully modified file: /w/a.ts (1 replacements).',
    });
    expect(shell).toMatchObject({
      detail: 'rm -rf build',
      failed: true,
      result: '[Operation Cancelled] Reason: User did not allow tool call',
    });
  });

  it('a call with no result yet is still running; the reply after a result is a new turn', () => {
    const path = write(
      model([
        { text: 'Listing.' },
        { functionCall: { id: 'c1', name: 'list_directory', args: { path: '/w' } } },
      ]),
      answer('c1', 'success', { output: 'a.ts' }),
      model([{ functionCall: { id: 'c2', name: 'read_file', args: { absolute_path: '/w/a.ts' } } }]),
    );
    const turns = chat(path).turns;
    expect(turns).toHaveLength(2);
    expect(turns[0]!.tools[0]!.result).toBe('a.ts');
    expect(turns[1]!.tools[0]).toMatchObject({ detail: '/w/a.ts', result: null });
  });

  it("a background subagent's records are its own conversation, not the main thread's", () => {
    const path = write(
      prompt('explore the repo'),
      prompt('map the modules', { isSidechain: true, agentId: 'explore-7f3c', agentName: 'Explore' }),
      model([{ text: 'src/ has three modules.' }], { isSidechain: true, agentId: 'explore-7f3c' }),
      model([{ text: 'The explorer is on it.' }]),
    );
    expect(chat(path).turns.map((t) => t.text)).toEqual(['explore the repo', 'The explorer is on it.']);
    expect(chat(path, { agent: 'explore-7f3c' }).turns.map((t) => t.text)).toEqual([
      'map the modules',
      'src/ has three modules.',
    ]);
    expect(chat(path, { agent: '../x' }).supported).toBe(false);
  });

  it('a compression is a seam with its summary; a slash command is what the person typed; telemetry is nothing', () => {
    const path = write(
      rec('system', {
        subtype: 'ui_telemetry',
        systemPayload: { uiEvent: { 'event.name': 'qwen-code.api_response' } },
      }),
      rec('system', {
        subtype: 'slash_command',
        systemPayload: { phase: 'invocation', rawCommand: '/compress' },
      }),
      rec('system', {
        subtype: 'slash_command',
        systemPayload: { phase: 'result', rawCommand: '/compress' },
      }),
      rec('system', {
        subtype: 'chat_compression',
        systemPayload: {
          info: { originalTokenCount: 9000, newTokenCount: 800 },
          compressedHistory: [{ role: 'user', parts: [{ text: 'So far: the parser is fixed.' }] }],
        },
      }),
      rec('system', {
        subtype: 'chat_compression',
        systemPayload: { info: { originalTokenCount: 10, newTokenCount: 5 } },
      }),
    );
    expect(chat(path).turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['user', 'message', '/compress'],
      ['system', 'compaction', 'So far: the parser is fixed.'],
      ['system', 'compaction', 'compressed 10 → 5 tokens'],
    ]);
  });

  it('pages back from a turn; a garbage line is skipped', () => {
    const path = join(dir, 's1.jsonl');
    writeFileSync(path, `${jsonl(prompt('one'), prompt('two'))}garbage\n${jsonl(prompt('three'))}`);
    expect(chat(path).turns.map((t) => t.text)).toEqual(['one', 'two', 'three']);
    expect(chat(path, { before: 1 }).turns.map((t) => t.text)).toEqual(['one']);
  });
});
