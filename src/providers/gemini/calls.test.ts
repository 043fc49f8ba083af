/**
 * Gemini CLI's calls and context series, over chats in the JSONL form Gemini CLI 0.40 writes
 * (trimmed from `agent-sessions__gemini-jsonl_v040` and the 2026-01 whole-file chats of the corpus).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonl, tempDir } from '../../test-support/corpus.js';
import { gemini } from './index.js';

let cleanup: (() => void) | null = null;
afterEach(() => {
  cleanup?.();
  cleanup = null;
});

const SESSION = 'gemini_calls_0001';

function chat(records: unknown[], subagents: Record<string, unknown[]> = {}): string {
  const t = tempDir();
  cleanup = t.cleanup;
  const dir = join(t.dir, 'tmp', 'p1', 'chats');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'session-2026-04-29T21-39-gemini01.jsonl');
  writeFileSync(path, jsonl(header, ...records));
  for (const [agent, lines] of Object.entries(subagents)) {
    mkdirSync(join(dir, SESSION), { recursive: true });
    writeFileSync(join(dir, SESSION, `${agent}.jsonl`), jsonl({ ...header, kind: 'subagent' }, ...lines));
  }
  return path;
}

const header = {
  sessionId: SESSION,
  projectHash: '0b7dfb1274ee51b336813b17f2ddab1f56b6591f723e7314126bbd502c69e9c9',
  startTime: '2026-04-29T21:39:22.319Z',
  lastUpdated: '2026-04-29T21:39:22.319Z',
  kind: 'main',
};
const user = (id: string, at: string, words: string) => ({
  id,
  timestamp: at,
  type: 'user',
  content: [{ text: words }],
});
const reply = (id: string, at: string, input: number, cached: number, toolCalls: unknown[] = []) => ({
  id,
  timestamp: at,
  type: 'gemini',
  content: '',
  thoughts: [],
  tokens: { input, output: 81, cached, thoughts: 0, tool: 0, total: input + 81 },
  model: 'gemini-3-flash-preview',
  toolCalls,
});
const shell = (id: string, command: string, status: string, output: string, at: string) => ({
  id,
  name: 'run_shell_command',
  args: { command, description: command },
  result: [{ functionResponse: { id, name: 'run_shell_command', response: { output } } }],
  status,
  timestamp: at,
  displayName: 'Shell',
});

describe('Gemini CLI calls', () => {
  it('each request is one point sized by its whole prompt, and a call is charged what the next request grew', () => {
    const path = chat([
      user('u1', '2026-04-29T21:39:33.155Z', 'Say hello and list files.'),
      reply('g1', '2026-04-29T21:39:35.125Z', 11_855, 0, [
        shell('c1', 'ls -F', 'success', 'Output: AgentSessions/\nREADME.md', '2026-04-29T21:39:35.364Z'),
      ]),
      { $set: { lastUpdated: '2026-04-29T21:39:35.400Z' } },
      reply('g2', '2026-04-29T21:39:45.996Z', 12_069, 11_502),
    ]);
    const log = gemini.calls!(path);
    // `input` already holds the cached part: it is not added again.
    expect(log.requests.map((r) => r.prompt)).toEqual([11_855, 12_069]);
    expect(log.calls).toHaveLength(1);
    expect(log.calls[0]).toMatchObject({
      name: 'run_shell_command',
      detail: 'ls -F',
      growth: 214,
      failed: false,
    });
  });

  it('a call Gemini CLI marked error is a failure with its output; one the person cancelled is not', () => {
    const path = chat([
      user('u1', '2026-01-30T06:08:50.429Z', 'push the files'),
      reply('g1', '2026-01-30T06:15:59.936Z', 44_085, 43_499, [
        shell('c1', 'git push', 'error', 'error: failed to push some refs', '2026-01-30T06:15:59.932Z'),
        shell('c2', 'rm -rf build', 'cancelled', 'Tool call cancelled by user.', '2026-01-30T06:15:59.932Z'),
      ]),
      reply('g2', '2026-01-30T06:16:10.773Z', 58_008, 48_053),
    ]);
    const log = gemini.calls!(path);
    expect(log.calls.map((c) => [c.detail, c.failed, c.result, c.growth, c.shared])).toEqual([
      ['git push', true, 'error: failed to push some refs', 13_923, true],
      ['rm -rf build', false, 'Tool call cancelled by user.', 13_923, true],
    ]);
  });

  it('a message written again when its calls finish counts once, and a rewound one not at all', () => {
    const pending = {
      ...shell('c1', 'npm test', 'executing', '', '2026-04-29T21:40:00.000Z'),
      result: undefined,
    };
    const path = chat([
      user('u1', '2026-04-29T21:39:33.155Z', 'run the tests'),
      reply('g1', '2026-04-29T21:40:00.000Z', 12_000, 0, [pending]),
      reply('g1', '2026-04-29T21:40:00.000Z', 12_000, 0, [
        shell('c1', 'npm test', 'success', '12 passed', '2026-04-29T21:40:00.000Z'),
      ]),
      reply('g2', '2026-04-29T21:40:09.000Z', 12_400, 11_000),
      user('u2', '2026-04-29T21:41:00.000Z', 'also lint'),
      reply('g3', '2026-04-29T21:41:05.000Z', 12_900, 12_000, [
        shell('c2', 'npm run lint', 'success', 'clean', '2026-04-29T21:41:05.000Z'),
      ]),
      { $rewindTo: 'u2' },
    ]);
    const log = gemini.calls!(path);
    expect(log.requests.map((r) => r.prompt)).toEqual([12_000, 12_400]);
    expect(log.calls.map((c) => [c.detail, c.result, c.growth])).toEqual([['npm test', '12 passed', 400]]);
  });

  it('a write names its file with the lines its diff added and removed', () => {
    const edit = {
      id: 'replace-1761734228885-7a63ed9561c45',
      name: 'replace',
      args: {
        file_path: '/private/tmp/gemini-test/created.txt',
        instruction: 'Change "Hello" to "Goodbye"',
        new_string: 'Goodbye from Gemini CLI',
        old_string: 'Hello from Gemini CLI',
      },
      result: [
        {
          functionResponse: {
            id: 'replace-1761734228885-7a63ed9561c45',
            name: 'replace',
            response: {
              output: 'Successfully modified file: /private/tmp/gemini-test/created.txt (1 replacements).',
            },
          },
        },
      ],
      status: 'success',
      timestamp: '2025-10-29T10:37:08.914Z',
      displayName: 'Edit',
    };
    const path = chat([
      user('u1', '2025-10-29T10:36:24.689Z', 'edit it'),
      reply('g1', '2025-10-29T10:37:08.914Z', 5_393, 4_029, [edit]),
    ]);
    const [call] = gemini.calls!(path).calls;
    expect(call!.files).toEqual([
      { path: '/private/tmp/gemini-test/created.txt', write: true, added: 1, removed: 1 },
    ]);
  });

  it("a subagent's calls are listed under its id and add no point to the session's series", () => {
    const path = chat(
      [
        user('u1', '2026-04-29T21:39:33.155Z', 'investigate'),
        reply('g1', '2026-04-29T21:39:35.125Z', 11_855, 0),
      ],
      {
        'codebase_investigator-7f3c': [
          reply('s1', '2026-04-29T21:39:40.000Z', 3_000, 0, [
            shell('c9', 'grep -r TODO', 'success', 'a.ts:1', '2026-04-29T21:39:40.100Z'),
          ]),
        ],
      },
    );
    const log = gemini.calls!(path);
    expect(log.requests).toHaveLength(1);
    expect(log.calls.map((c) => [c.origin, c.detail, c.growth])).toEqual([
      ['codebase_investigator-7f3c', 'grep -r TODO', null],
    ]);
  });
});
