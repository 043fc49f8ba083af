/**
 * OpenCode's calls, requests and compactions for the report (the shared rules are in
 * `model/calls.ts`).
 *
 * An assistant message is one answer that may take several requests: each `step-start` …
 * `step-finish` run of parts is one, and the `step-finish` closes it with that request's tokens
 * (`input` uncached, `cache.read`, `cache.write`: together the prompt). So a request's size comes
 * after the calls it made: the order is `after`. An older build writes no step parts: the message's
 * own tokens are then its one request. A `tool` part holds its call whole: input, state, output or
 * error, and when it ran; it failed when OpenCode says `error`, as the scan counts it.
 *
 * Parts come from the database (1.2 and later) or the `storage/` tree, read into the same
 * `ChatMessage` and `ChatPart` the conversation reads.
 *
 * known limit: a task's child session is not read into its parent's calls; its `task` call is.
 */
import { noteChange, patchedFiles } from '../../model/call-files.js';
import { type Call, CallCollector, type FileAccess } from '../../model/calls.js';
import { resultText } from '../../model/conversation.js';
import { obj, str } from '../../model/json.js';
import { editDelta, applyPatch as patchDelta } from '../../model/tools.js';
import type { ChatMessage, ChatPart } from './conversation.js';
import type { OpenCodeTokens } from './record.js';

/** OpenCode's tools that name one file they read or write. */
const FILE_TOOLS: ReadonlyMap<string, FileAccess> = new Map([
  ['read', 'read'],
  ['edit', 'write'],
  ['multiedit', 'write'],
  ['write', 'write'],
]);

const prompt = (t: OpenCodeTokens | null): number | null => {
  if (t === null) return null;
  const whole = t.input + t.cacheRead + t.cacheWrite;
  return whole > 0 ? whole : null;
};

export class OpenCodeCalls {
  readonly c = new CallCollector('after');

  message(m: ChatMessage, parts: Iterable<ChatPart>): void {
    if (m.role === 'user') this.c.turn();
    // When the answer got to each part, as near as its parts say.
    let lastMs = m.ms;
    let steps = 0;
    for (const p of parts) {
      const ms = p.ranToMs ?? p.startMs;
      if (ms !== null) lastMs = Math.max(lastMs ?? ms, ms);
      switch (p.type) {
        case 'compaction':
          this.c.compaction(p.startMs ?? m.ms);
          break;
        case 'tool':
          if (m.role === 'assistant') this.call(p, lastMs);
          break;
        case 'step-finish': {
          steps++;
          const size = prompt(p.tokens);
          if (size !== null) this.c.measure(lastMs, size, null);
          break;
        }
        case 'text':
        case 'reasoning':
          if (m.role === 'assistant') this.c.said();
          break;
        default:
          break;
      }
    }
    const whole = m.role === 'assistant' && steps === 0 ? prompt(m.tokens) : null;
    if (whole !== null) this.c.measure(m.ms, whole, null);
  }

  private call(p: ChatPart, ms: number | null): void {
    const name = p.tool ?? 'tool';
    const call: Call = this.c.call({
      id: null,
      origin: 'main',
      name,
      input: p.input,
      ms: p.ranFromMs ?? ms,
      access: FILE_TOOLS.get(name) ?? null,
    });
    const input = obj(p.input);
    const patch = str(input?.patchText);
    if (patch !== null) call.files = patchedFiles(patch);
    const delta =
      patch !== null ? patchDelta(patch) : FILE_TOOLS.get(name) === 'write' ? editDelta(input) : null;
    if (delta !== null) noteChange(call, delta);
    // A completed shell call whose command exited non-zero has failed all the same (`failed`).
    if (p.status === 'completed')
      this.c.answered(call, p.ranToMs, p.failed, resultText(p.output ?? ''), null);
    else if (p.status === 'error')
      this.c.answered(call, p.ranToMs, true, resultText(p.error ?? p.output ?? 'failed'), null);
  }
}
