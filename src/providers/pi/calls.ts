/**
 * Pi's calls, requests and compactions for the report (the shared rules are in `model/calls.ts`).
 *
 * An `assistant` message is one response: its usage (`input` uncached, `cacheRead`, `cacheWrite`)
 * sizes the prompt, and its `toolCall` blocks are the calls it made. A `toolResult` message answers a
 * call by `toolCallId`, failed when Pi says so (`isError`), as the scan counts it. The entries come
 * from the current branch only (the caller walks the tree), so a call on a branch the person left
 * is not charged the growth of the branch they went on with.
 *
 * A command the person ran with `!` (`bashExecution`) is the person acting, not a call of the
 * model's: like a prompt, it ends what the calls before it can be charged.
 */
import { noteChange } from '../../model/call-files.js';
import { CallCollector, type FileAccess } from '../../model/calls.js';
import { MAX_RESULT_CHARS, resultText } from '../../model/conversation.js';
import { arr, type JsonObject, obj, str, text } from '../../model/json.js';
import { contentText, piDelta } from './conversation.js';
import { lineFromJson } from './record.js';

/** Pi's tools that name one file they read or write. */
const FILE_TOOLS: ReadonlyMap<string, FileAccess> = new Map([
  ['read', 'read'],
  ['edit', 'write'],
  ['write', 'write'],
]);

export class PiCalls {
  readonly c = new CallCollector('before');

  entry(e: JsonObject): void {
    const l = lineFromJson(e);
    switch (l.kind) {
      case 'compaction':
        this.c.compaction(l.ms);
        return;
      case 'user':
        this.c.turn();
        return;
      case 'assistant': {
        const u = l.usage;
        if (u !== null) {
          const key = l.entry ?? (l.stamp === null ? null : `${l.ms ?? ''}#${l.stamp}`);
          this.c.measure(l.ms, u.input + u.cacheRead + u.cacheWrite, key);
        }
        for (const raw of arr(obj(e.message)?.content) ?? []) {
          const b = obj(raw);
          if (b?.type !== 'toolCall') continue;
          const name = text(b.name) ?? 'tool';
          const call = this.c.call({
            id: text(b.id),
            origin: 'main',
            name,
            input: b.arguments ?? null,
            ms: l.ms,
            access: FILE_TOOLS.get(name) ?? null,
          });
          const delta = piDelta(name, b.arguments);
          if (delta !== null) noteChange(call, delta);
        }
        return;
      }
      case 'result': {
        const m = obj(e.message);
        this.c.result(l.callId, l.ms, l.failed, resultText(contentText(m?.content, MAX_RESULT_CHARS)), null);
        return;
      }
      case 'other':
        if (str(obj(e.message)?.role) === 'bashExecution') this.c.turn();
        return;
      default:
        return;
    }
  }
}
