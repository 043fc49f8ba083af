/**
 * Pi's calls and context series, over entries shaped as Pi writes them (format 3,
 * `session-manager.ts`; the corpus's `agent-sessions__pi-small.jsonl`), trimmed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonl, tempDir } from '../../test-support/corpus.js';
import { pi } from './index.js';

let cleanup: (() => void) | null = null;
afterEach(() => {
  cleanup?.();
  cleanup = null;
});

function session(...records: unknown[]): string {
  const t = tempDir();
  cleanup = t.cleanup;
  const path = join(t.dir, '2026-05-12T01-02-27-657Z_019e19b4-eb48-746a-aa6b-8dfcfa37954b.jsonl');
  writeFileSync(path, jsonl(header, ...records));
  return path;
}

const header = {
  type: 'session',
  version: 3,
  id: '019e19b4-eb48-746a-aa6b-8dfcfa37954b',
  timestamp: '2026-05-12T01:02:27.657Z',
  cwd: '/tmp/project',
};
const entry = (id: string, parentId: string | null, s: number, message: object) => ({
  type: 'message',
  id,
  parentId,
  timestamp: new Date(Date.parse('2026-05-12T01:02:27.000Z') + s * 1000).toISOString(),
  message,
});
const user = (id: string, parent: string | null, s: number, text: string) =>
  entry(id, parent, s, { role: 'user', content: [{ type: 'text', text }], timestamp: s });
const assistant = (id: string, parent: string, s: number, content: unknown[], cacheRead: number) =>
  entry(id, parent, s, {
    role: 'assistant',
    content,
    api: 'anthropic-messages',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    usage: {
      input: 40,
      output: 120,
      cacheRead,
      cacheWrite: 300,
      totalTokens: 460 + cacheRead,
      cost: { total: 0.01 },
    },
    stopReason: content.some((b) => (b as { type: string }).type === 'toolCall') ? 'toolUse' : 'stop',
    timestamp: s,
  });
const result = (
  id: string,
  parent: string,
  s: number,
  callId: string,
  name: string,
  text: string,
  isError = false,
) =>
  entry(id, parent, s, {
    role: 'toolResult',
    toolCallId: callId,
    toolName: name,
    content: [{ type: 'text', text }],
    isError,
    timestamp: s,
  });
const call = (id: string, name: string, args: object) => ({ type: 'toolCall', id, name, arguments: args });

describe('Pi calls', () => {
  it('one point per response sized by its whole prompt; a failed call with its answer, charged what came next', () => {
    const path = session(
      user('u1', null, 0, 'run the tests and read the missing file'),
      assistant(
        'a1',
        'u1',
        2,
        [call('call_1', 'bash', { command: 'npm test' }), call('call_2', 'read', { path: 'missing.ts' })],
        9_000,
      ),
      result('r1', 'a1', 5, 'call_1', 'bash', '12 passed'),
      result('r2', 'r1', 5, 'call_2', 'read', 'ENOENT: no such file or directory', true),
      assistant('a2', 'r2', 8, [{ type: 'text', text: 'Tests pass; the file is missing.' }], 9_700),
    );
    const log = pi.calls!(path);
    expect(log.requests.map((r) => r.prompt)).toEqual([9_340, 10_040]);
    expect(
      log.calls.map((c) => [c.detail, c.failed, c.result, c.growth, c.shared, c.endMs! - c.startMs!]),
    ).toEqual([
      ['npm test', false, '12 passed', 700, true, 3000],
      ['missing.ts', true, 'ENOENT: no such file or directory', 700, true, 3000],
    ]);
    expect(log.calls[1]!.files).toEqual([{ path: 'missing.ts', write: false, added: 0, removed: 0 }]);
  });

  it('a call on a branch the person left is not read: the calls are those of the branch Pi is on', () => {
    const path = session(
      user('u1', null, 0, 'fix it'),
      assistant('a1', 'u1', 2, [call('call_x', 'edit', { path: 'a.ts', oldText: 'x', newText: 'y' })], 9_000),
      result('r1', 'a1', 3, 'call_x', 'edit', 'Edited a.ts'),
      // `/tree` back to the prompt: a new branch from it.
      assistant('a2', 'u1', 10, [call('call_y', 'write', { path: 'b.ts', content: 'one\ntwo\n' })], 9_000),
      result('r2', 'a2', 11, 'call_y', 'write', 'Wrote b.ts'),
      assistant('a3', 'r2', 14, [{ type: 'text', text: 'Done.' }], 9_200),
    );
    const log = pi.calls!(path);
    expect(log.calls.map((c) => [c.detail, c.growth, c.files])).toEqual([
      ['b.ts', 200, [{ path: 'b.ts', write: true, added: 2, removed: 0 }]],
    ]);
  });
});
