/**
 * GitHub Copilot CLI's calls and context series, over events shaped as Copilot CLI 1.0.11 writes
 * them (the corpus's `session-state/aaaabbbb-…/events.jsonl`, trimmed), with the `assistant.usage`
 * events the builds that write per-request usage add.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonl, tempDir } from '../../test-support/corpus.js';
import { copilot } from './index.js';

let cleanup: (() => void) | null = null;
afterEach(() => {
  cleanup?.();
  cleanup = null;
});

function session(...events: unknown[]): string {
  const t = tempDir();
  cleanup = t.cleanup;
  const dir = join(t.dir, 'session-state', 'aaaabbbb-1111-2222-3333-ccccddddeeee');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'events.jsonl');
  writeFileSync(path, jsonl(...events));
  return path;
}

let n = 0;
const ev = (type: string, at: string, data: Record<string, unknown>) => ({
  type,
  data,
  id: `e${++n}`,
  timestamp: `2026-03-26T17:50:${at}Z`,
  parentId: n > 1 ? `e${n - 1}` : null,
});
const start = ev('session.start', '34.302', {
  sessionId: 'aaaabbbb-1111-2222-3333-ccccddddeeee',
  copilotVersion: '1.0.11',
  context: { cwd: '/tmp/project', branch: 'main' },
});
const message = (at: string, id: string, content: string, requests: unknown[] = [], more = {}) =>
  ev('assistant.message', at, {
    messageId: id,
    content,
    toolRequests: requests,
    interactionId: 'int-0001',
    ...more,
  });
const request = (id: string, name: string, args: object) => ({
  toolCallId: id,
  name,
  arguments: args,
  type: 'function',
});
const usage = (at: string, apiCallId: string, input: number, cacheRead: number) =>
  ev('assistant.usage', at, {
    model: 'claude-sonnet-4.5',
    inputTokens: input,
    outputTokens: 40,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: 0,
    apiCallId,
  });

describe('Copilot CLI calls', () => {
  it('a call runs from its execution start to its completion; a failed one is listed with its error', () => {
    const path = session(
      start,
      ev('user.message', '35.000', { content: 'List the files', interactionId: 'int-0001' }),
      message('36.000', 'msg-0001', '', [
        request('call_1', 'bash', { command: 'ls', description: 'List files' }),
      ]),
      ev('tool.execution_start', '36.100', {
        toolCallId: 'call_1',
        toolName: 'bash',
        arguments: { command: 'ls' },
      }),
      ev('tool.execution_complete', '36.600', {
        toolCallId: 'call_1',
        success: false,
        error: { message: 'ls: cannot access: Permission denied' },
      }),
      message('37.100', 'msg-0002', 'The directory is not readable.'),
    );
    const log = copilot.calls!(path);
    // This build writes no per-request usage: no series, and no growth to charge.
    expect(log.requests).toEqual([]);
    expect(log.calls).toEqual([
      expect.objectContaining({
        name: 'bash',
        detail: 'ls',
        failed: true,
        result: 'ls: cannot access: Permission denied',
        growth: null,
        startMs: Date.parse('2026-03-26T17:50:36.100Z'),
        endMs: Date.parse('2026-03-26T17:50:36.600Z'),
      }),
    ]);
  });

  it('where the build writes assistant.usage, each is a point, and a call is charged what the next request grew', () => {
    const path = session(
      start,
      ev('user.message', '35.000', { content: 'List the files', interactionId: 'int-0001' }),
      message('36.000', 'msg-0001', '', [request('call_1', 'view', { path: '/tmp/project/README.md' })]),
      usage('36.010', 'api-1', 300, 11_000),
      ev('tool.execution_start', '36.100', {
        toolCallId: 'call_1',
        toolName: 'view',
        arguments: { path: '/tmp/project/README.md' },
      }),
      ev('tool.execution_complete', '36.200', {
        toolCallId: 'call_1',
        success: true,
        result: { content: '# project' },
      }),
      message('37.100', 'msg-0002', 'It is a README.'),
      usage('37.110', 'api-2', 100, 11_900),
    );
    const log = copilot.calls!(path);
    expect(log.requests.map((r) => r.prompt)).toEqual([11_300, 12_000]);
    expect(log.calls.map((c) => [c.name, c.growth, c.files])).toEqual([
      ['view', 700, [{ path: '/tmp/project/README.md', write: false, added: 0, removed: 0 }]],
    ]);
  });
});
