/**
 * Devin's calls and context series, over steps of an ATIF v1.7 trajectory written for these tests
 * from the documented format (the corpus has no Devin data), and call outcomes as Devin's
 * `tool_call_state` table keeps them.
 */
import { describe, expect, it } from 'vitest';
import { devinCalls } from './calls.js';

let stepId = 0;
const user = (message: string, timestamp: string) => ({
  step_id: ++stepId,
  source: 'user',
  timestamp,
  message,
});
const agent = (
  timestamp: string,
  prompt: number,
  calls: { id: string; name: string; args: object }[] = [],
  results: { id: string; content: string }[] = [],
) => ({
  step_id: ++stepId,
  source: 'agent',
  timestamp,
  model_name: 'SWE-1.5',
  message: 'working on it',
  tool_calls: calls.map((c) => ({ tool_call_id: c.id, function_name: c.name, arguments: c.args })),
  observation: { results: results.map((r) => ({ source_call_id: r.id, content: r.content })) },
  metrics: { prompt_tokens: prompt, completion_tokens: 80, cached_tokens: Math.floor(prompt * 0.9) },
});

describe('Devin calls', () => {
  it('each agent step is one point sized by its whole prompt; a call the database says errored is a failure', () => {
    const log = devinCalls(
      [
        user('make the tests pass', '2026-11-29T10:00:10Z'),
        agent(
          '2026-11-29T10:00:20Z',
          12_000,
          [
            { id: 'c1', name: 'exec', args: { command: 'npm test' } },
            { id: 'c2', name: 'edit', args: { file_path: '/w/a.ts', old_string: 'x', new_string: 'y\nz' } },
          ],
          [
            { id: 'c1', content: 'exit 2' },
            { id: 'c2', content: 'edited' },
          ],
        ),
        agent('2026-11-29T10:00:40Z', 12_900),
      ],
      new Map([
        ['c1', 'error'],
        ['c2', 'completed'],
      ]),
    );
    // The cached tokens are inside the prompt: not added again.
    expect(log.requests.map((r) => r.prompt)).toEqual([12_000, 12_900]);
    expect(log.calls.map((c) => [c.name, c.failed, c.result, c.growth, c.shared])).toEqual([
      ['exec', true, 'exit 2', 900, true],
      ['edit', false, 'edited', 900, true],
    ]);
    expect(log.calls[1]!.files).toEqual([{ path: '/w/a.ts', write: true, added: 2, removed: 1 }]);
  });
});
