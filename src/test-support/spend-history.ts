/**
 * Claude Code histories written request by request for the spend tests, so that every figure a
 * report shows is known in advance: each response is `output` tokens of a model at a given instant
 * (claude-sonnet-4-5 by default, $15 per million output tokens), optionally calling tools.
 *
 * Not here: real transcripts (`corpus.ts`), or Codex histories.
 */
import { type FakeHome, jsonl } from './corpus.js';

export const SONNET = 'claude-sonnet-4-5-20250929';

/** One response: when, how many output tokens, of which model (default SONNET), calling which tools. */
export type SpendResponse = [at: string, output: number, model?: string, tools?: string[]];

/** Response number `n` of `session`, as Claude Code 2.x writes it (a tool_use block for each tool). */
export const spendResponse = (
  session: string,
  n: number,
  at: string,
  output: number,
  model = SONNET,
  tools: string[] = [],
) => ({
  cwd: '/w/app',
  sessionId: session,
  type: 'assistant',
  uuid: `${session}-a${n}`,
  timestamp: at,
  requestId: `${session}-req-${n}`,
  message: {
    id: `${session}-msg-${n}`,
    role: 'assistant',
    model,
    content: [
      { type: 'text', text: 'ok' },
      ...tools.map((name, k) => ({ type: 'tool_use', id: `${session}-call-${n}-${k}`, name, input: {} })),
    ],
    usage: { input_tokens: 0, output_tokens: output },
  },
});

/** Session `id` in project `/w/app` of `home`, one line a response; `mtimeMs` sets the file's mtime. */
export function spendSession(home: FakeHome, id: string, responses: SpendResponse[], mtimeMs?: number): void {
  home.write(
    home.claudeFile('-w-app', `${id}.jsonl`),
    jsonl(
      ...responses.map(([at, output, model, tools], i) => spendResponse(id, i, at, output, model, tools)),
    ),
    mtimeMs,
  );
}
