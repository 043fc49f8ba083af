/**
 * Claude Code 2.1.328 transcript records as the conformance lab recorded them (trimmed), for tests
 * that write a session turn by turn: a prompt, an assistant turn that calls a tool and waits for its
 * result, with the usage it reported.
 *
 * Not here: whole transcripts (`corpus.ts`), or the request-by-request histories of the spend tests
 * (`spend-history.ts`).
 */

export type Rec = Record<string, unknown>;

/**
 * One line of session `id` in `cwd` at `atMs`: `body` over the fields every record carries, with
 * `extra` fields (`gitBranch`, `userType`, …) where a test wants them.
 */
export function claudeRecord(
  id: string,
  cwd: string,
  atMs: number,
  uuid: string,
  body: Rec,
  extra: Rec = {},
): string {
  return `${JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    type: 'user',
    ...extra,
    cwd,
    sessionId: id,
    version: '2.1.328',
    uuid,
    timestamp: new Date(atMs).toISOString(),
    ...body,
  })}\n`;
}

/** The user's prompt `text`. */
export const prompt = (text: string): Rec => ({ type: 'user', message: { role: 'user', content: text } });

/** Assistant turn `n` on `model`: `content`, ending as `stop` says, with the usage it reported. */
function assistantTurn(
  n: number,
  model: string,
  content: Rec[],
  stop: string,
  tokensIn: number,
  tokensOut: number,
): Rec {
  return {
    type: 'assistant',
    requestId: `req_${n}`,
    message: {
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: {
        input_tokens: tokensIn,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: tokensOut,
      },
    },
  };
}

/** Assistant turn `n`: a call of `name` with `input` on `model`, waiting for its result. */
export const toolCall = (
  n: number,
  name: string,
  input: Rec,
  model: string,
  tokensIn: number,
  tokensOut: number,
): Rec =>
  assistantTurn(
    n,
    model,
    [{ type: 'tool_use', id: `toolu_${n}`, name, input }],
    'tool_use',
    tokensIn,
    tokensOut,
  );

/** Assistant turn `n`: `text` on `model`, the end of its turn. */
export const textAnswer = (
  n: number,
  text: string,
  model: string,
  tokensIn: number,
  tokensOut: number,
): Rec => assistantTurn(n, model, [{ type: 'text', text }], 'end_turn', tokensIn, tokensOut);
