/**
 * Claude Code's calls and context series, over records shaped as Claude Code 2.1.80 writes them
 * (trimmed): one API response as several `assistant` records, one per content block, each
 * repeating the response's usage under one `message.id` and `requestId`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonl, tempDir } from '../../test-support/corpus.js';
import { claude } from './index.js';

let cleanup: (() => void) | null = null;
afterEach(() => {
  cleanup?.();
  cleanup = null;
});

const SESSION = '5c7d2f0e-1b3a-4c5d-8e9f-0a1b2c3d4e5f';

function session(records: unknown[], subagents: Record<string, unknown[]> = {}): string {
  const t = tempDir();
  cleanup = t.cleanup;
  const path = join(t.dir, `${SESSION}.jsonl`);
  writeFileSync(path, jsonl(...records));
  for (const [agent, lines] of Object.entries(subagents)) {
    mkdirSync(join(t.dir, SESSION, 'subagents'), { recursive: true });
    writeFileSync(join(t.dir, SESSION, 'subagents', `agent-${agent}.jsonl`), jsonl(...lines));
  }
  return path;
}

const base = {
  cwd: '/w/app',
  sessionId: SESSION,
  version: '2.1.80',
  gitBranch: 'main',
  userType: 'external',
};
let n = 0;
const at = (s: number) => new Date(Date.parse('2026-02-10T09:00:00Z') + s * 1000).toISOString();

/** One record of a response: one content block, the response's usage repeated. */
const block = (response: string, s: number, content: object, cacheRead: number, sidechain = false) => ({
  ...base,
  isSidechain: sidechain,
  type: 'assistant',
  uuid: `a-${n++}`,
  timestamp: at(s),
  requestId: `req_${response}`,
  message: {
    model: 'claude-opus-4-6',
    id: `msg_${response}`,
    type: 'message',
    role: 'assistant',
    content: [content],
    stop_reason: null,
    usage: {
      input_tokens: 3,
      cache_creation_input_tokens: 500,
      cache_read_input_tokens: cacheRead,
      output_tokens: 90,
    },
  },
});
const result = (s: number, id: string, content: string, isError = false, sidechain = false) => ({
  ...base,
  isSidechain: sidechain,
  type: 'user',
  uuid: `u-${n++}`,
  timestamp: at(s),
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }] },
});
const prompt = (s: number, words: string) => ({
  ...base,
  isSidechain: false,
  type: 'user',
  uuid: `u-${n++}`,
  timestamp: at(s),
  message: { role: 'user', content: words },
});
const read = (id: string, file: string) => ({
  type: 'tool_use',
  id,
  name: 'Read',
  input: { file_path: file },
});

describe('Claude Code calls: one point per request', () => {
  it('a response written as one record per content block is one request in the context series', () => {
    const path = session([
      prompt(0, 'compare the two parsers'),
      block('01', 4, { type: 'thinking', thinking: '', signature: 'x' }, 20_000),
      block('01', 5, { type: 'text', text: 'Reading both.' }, 20_000),
      block('01', 5, read('toolu_a', '/w/app/src/a.ts'), 20_000),
      block('01', 6, read('toolu_b', '/w/app/src/b.ts'), 20_000),
      result(7, 'toolu_a', 'export const a = 1;'),
      result(7, 'toolu_b', 'export const b = 2;'),
      block('02', 12, { type: 'text', text: 'They differ in one line.' }, 25_500),
    ]);
    const log = claude.calls!(path);
    expect(log.requests.map((r) => r.prompt)).toEqual([20_503, 26_003]);
  });

  it('parallel calls of one response, in records of their own, share its growth and are marked shared', () => {
    const path = session([
      prompt(0, 'compare the two parsers'),
      block('01', 5, read('toolu_a', '/w/app/src/a.ts'), 20_000),
      block('01', 6, read('toolu_b', '/w/app/src/b.ts'), 20_000),
      result(7, 'toolu_a', 'export const a = 1;'),
      result(7, 'toolu_b', 'export const b = 2;'),
      block('02', 12, { type: 'text', text: 'They differ in one line.' }, 25_500),
    ]);
    const log = claude.calls!(path);
    expect(log.calls.map((c) => [c.detail, c.growth, c.shared])).toEqual([
      ['/w/app/src/a.ts', 5_500, true],
      ['/w/app/src/b.ts', 5_500, true],
    ]);
  });

  it('a call answered before the person speaks again grows nothing measurable in that turn', () => {
    const path = session([
      prompt(0, 'run the tests'),
      block(
        '01',
        5,
        { type: 'tool_use', id: 'toolu_t', name: 'Bash', input: { command: 'npm test' } },
        20_000,
      ),
      result(60, 'toolu_t', '[Request interrupted by user for tool use]', true),
      prompt(70, 'skip the slow ones and paste me the whole log of the last run instead'),
      block('02', 75, { type: 'text', text: 'Here it is.' }, 48_000),
    ]);
    const [call] = claude.calls!(path).calls;
    expect(call).toMatchObject({ name: 'Bash', failed: true, growth: null });
  });

  it("a subagent's calls are listed under its agent id and add no point to the session's series", () => {
    const path = session(
      [
        prompt(0, 'find the TODOs'),
        block(
          '01',
          5,
          { type: 'tool_use', id: 'toolu_task', name: 'Task', input: { prompt: 'Search for TODO' } },
          20_000,
        ),
        result(40, 'toolu_task', 'Found 3.'),
        block('02', 45, { type: 'text', text: 'There are three.' }, 21_000),
      ],
      {
        a0ad4f44468bdf20d: [
          block(
            's1',
            10,
            { type: 'tool_use', id: 'toolu_g', name: 'Grep', input: { pattern: 'TODO' } },
            9_000,
            true,
          ),
          result(11, 'toolu_g', 'src/a.ts:3: TODO', false, true),
          block('s2', 20, { type: 'text', text: 'Found 3.' }, 9_800, true),
        ],
      },
    );
    const log = claude.calls!(path);
    expect(log.requests.map((r) => r.prompt)).toEqual([20_503, 21_503]);
    expect(log.calls.map((c) => [c.origin, c.name, c.growth])).toEqual([
      ['main', 'Task', 1_000],
      ['a0ad4f44468bdf20d', 'Grep', null],
    ]);
  });
});
