/**
 * Qwen Code's calls and context series, over the records Qwen Code 0.18.1 wrote in the corpus's
 * `splitrail__qwen_code.jsonl` (trimmed), and a background subagent's records as 0.24 writes them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonl, tempDir } from '../../test-support/corpus.js';
import { qwen } from './index.js';

let cleanup: (() => void) | null = null;
afterEach(() => {
  cleanup?.();
  cleanup = null;
});

function chat(...records: unknown[]): string {
  const t = tempDir();
  cleanup = t.cleanup;
  const path = join(t.dir, '69f0814a-8bfc-4c8e-93d3-05757f17b96f.jsonl');
  writeFileSync(path, jsonl(...records));
  return path;
}

const base = { sessionId: '69f0814a-8bfc-4c8e-93d3-05757f17b96f', cwd: '/tmp/qwentest', version: '0.18.1' };
const user = (uuid: string, at: string, words: string) => ({
  ...base,
  uuid,
  timestamp: at,
  type: 'user',
  message: { role: 'user', parts: [{ text: words }] },
});
const model = (uuid: string, at: string, parts: unknown[], prompt: number, cached: number, more = {}) => ({
  ...base,
  uuid,
  timestamp: at,
  type: 'assistant',
  model: 'coder-model',
  message: { role: 'model', parts },
  usageMetadata: {
    promptTokenCount: prompt,
    candidatesTokenCount: 20,
    thoughtsTokenCount: 0,
    totalTokenCount: prompt + 20,
    cachedContentTokenCount: cached,
  },
  ...more,
});
const telemetry = (uuid: string, at: string, input: number) => ({
  ...base,
  uuid,
  timestamp: at,
  type: 'system',
  subtype: 'ui_telemetry',
  systemPayload: {
    uiEvent: { 'event.name': 'qwen-code.api_response', input_token_count: input, output_token_count: 20 },
  },
});
const answer = (uuid: string, at: string, id: string, status: string, response: object, more = {}) => ({
  ...base,
  uuid,
  timestamp: at,
  type: 'tool_result',
  message: { role: 'user', parts: [{ functionResponse: { id, name: 'list_directory', response } }] },
  toolCallResult: {
    callId: id,
    status,
    resultDisplay: 'Path must be absolute: .',
    errorType: 'invalid_tool_params',
  },
  ...more,
});

describe('Qwen Code calls', () => {
  it('two requests, not four: telemetry is no request; the failed call is listed with its error and growth', () => {
    const path = chat(
      user('e3ef', '2026-06-15T14:40:22.832Z', 'List the files here.'),
      telemetry('2af1', '2026-06-15T14:40:22.908Z', 500),
      model(
        'c5a4',
        '2026-06-15T14:40:22.909Z',
        [{ functionCall: { id: 'call_1', name: 'list_directory', args: { path: '.' } } }],
        500,
        0,
      ),
      answer('6f70', '2026-06-15T14:40:22.950Z', 'call_1', 'error', { error: 'Path must be absolute: .' }),
      telemetry('cc35', '2026-06-15T14:40:22.969Z', 600),
      model('f134', '2026-06-15T14:40:22.976Z', [{ text: 'Done.' }], 600, 50),
    );
    const log = qwen.calls!(path);
    expect(log.requests.map((r) => r.prompt)).toEqual([500, 600]);
    expect(log.calls).toEqual([
      expect.objectContaining({
        name: 'list_directory',
        detail: '.',
        failed: true,
        result: 'Path must be absolute: .',
        growth: 100,
        startMs: Date.parse('2026-06-15T14:40:22.909Z'),
        endMs: Date.parse('2026-06-15T14:40:22.950Z'),
      }),
    ]);
  });

  it("a background subagent's calls are listed under its agent id and are not the session's context", () => {
    const side = { isSidechain: true, agentId: 'explore-7f3c' };
    const path = chat(
      user('u1', '2026-06-15T14:40:00.000Z', 'explore the repo'),
      model('m1', '2026-06-15T14:40:01.000Z', [{ text: 'Starting.' }], 900, 0),
      model(
        's1',
        '2026-06-15T14:40:02.000Z',
        [
          {
            functionCall: { id: 'call_s', name: 'read_file', args: { absolute_path: '/tmp/qwentest/a.ts' } },
          },
        ],
        300,
        0,
        side,
      ),
      answer('s2', '2026-06-15T14:40:02.500Z', 'call_s', 'success', { output: 'const a = 1;' }, side),
    );
    const log = qwen.calls!(path);
    expect(log.requests.map((r) => r.prompt)).toEqual([900]);
    expect(log.calls.map((c) => [c.origin, c.name, c.files, c.failed])).toEqual([
      [
        'explore-7f3c',
        'read_file',
        [{ path: '/tmp/qwentest/a.ts', write: false, added: 0, removed: 0 }],
        false,
      ],
    ]);
  });
});
