/**
 * Gemini CLI's calls and requests for the report (the shared rules are in `model/calls.ts`).
 *
 * A `gemini` message is one request and carries its calls, each with the result it got and the
 * status the scheduler gave it, so a call is answered where it is made. The request's prompt is
 * `tokens.input`, which already holds the cached part, plus `tokens.tool` (a built-in tool's own
 * prompt), as the scan sizes the context. Messages arrive here as the chat stands (the newest copy
 * of each, rewound ones left out: `GeminiReplay`).
 *
 * A call failed when its status is `error`, as the scan counts it; a call the person refused
 * (`cancelled`) did not run and did not fail. Gemini CLI records when a call was asked for, not when
 * it ended: its calls have no duration.
 */
import type { CallCollector, FileAccess } from '../../model/calls.js';
import { arr, isoMs, type JsonObject, obj, str, text } from '../../model/json.js';
import { callDelta, IN_FLIGHT, resultOf } from './conversation.js';
import { callFailed, personWords, shellExitCode, tokensFrom } from './record.js';

/** Gemini CLI's tools that name one file they read or write. */
const FILE_TOOLS: ReadonlyMap<string, FileAccess> = new Map([
  ['read_file', 'read'],
  ['write_file', 'write'],
  ['replace', 'write'],
  ['edit', 'write'],
]);

export class GeminiCalls {
  /** @param origin `main`, or the subagent whose chat this is. */
  constructor(
    readonly c: CallCollector,
    private readonly origin = 'main',
  ) {}

  message(m: JsonObject): void {
    const main = this.origin === 'main';
    const type = str(m.type);
    if (type === 'user') {
      // Gemini writes each tool result back as a user message: only the person's words start a turn.
      if (main && personWords(m) !== null) this.c.turn();
      return;
    }
    if (type !== 'gemini') return;
    const ms = isoMs(m.timestamp);
    const tokens = tokensFrom(m.tokens);
    if (main && tokens !== null) this.c.measure(ms, tokens.input + tokens.tool, text(m.id));
    for (const raw of arr(m.toolCalls) ?? []) {
      const call = obj(raw);
      if (call === null) continue;
      const name = text(call.name) ?? 'tool';
      const made = this.c.call({
        id: null,
        origin: this.origin,
        name,
        input: call.args ?? null,
        ms: isoMs(call.timestamp) ?? ms,
        access: FILE_TOOLS.get(name) ?? null,
      });
      const status = str(call.status);
      if (status !== null && IN_FLIGHT.has(status)) continue;
      const failed = callFailed(status, shellExitCode(call));
      this.c.answered(made, null, failed, resultOf(call), callDelta(name, call));
    }
  }
}
