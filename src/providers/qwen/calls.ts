/**
 * Qwen Code's calls, requests and compactions for the report (the shared rules are in
 * `model/calls.ts`).
 *
 * An `assistant` record is one request: its `usageMetadata.promptTokenCount` is the whole prompt
 * (the cached part inside), and its `functionCall` parts are the calls it made. A `tool_result`
 * answers a call by id; it failed as the scan counts it (`toolCallResult.status` of `error`). A
 * `system` record of subtype `chat_compression` is a compaction; `ui_telemetry` repeats each
 * request's usage and is not another request.
 *
 * A background subagent's records share the file, marked `isSidechain` with its `agentId`: its
 * calls are listed under that id, and its requests are not the session's context.
 */
import { noteChange } from '../../model/call-files.js';
import { CallCollector, type CallLog, type FileAccess } from '../../model/calls.js';
import { arr, type JsonObject, obj, str, text } from '../../model/json.js';
import { editDelta } from '../../model/tools.js';
import { eachObject, unifiedDelta } from '../conversation-util.js';
import { answerText } from './conversation.js';
import { lineFromJson } from './record.js';

/** Qwen Code's tools that name one file they read or write (Gemini CLI's names). */
const FILE_TOOLS: ReadonlyMap<string, FileAccess> = new Map([
  ['read_file', 'read'],
  ['write_file', 'write'],
  ['replace', 'write'],
  ['edit', 'write'],
]);

class QwenCalls {
  readonly c = new CallCollector('before');

  record(r: JsonObject): void {
    const l = lineFromJson(r);
    const main = r.isSidechain !== true;
    const origin = main ? 'main' : (text(r.agentId) ?? 'sidechain');
    switch (l.type) {
      case 'user':
        if (main) this.c.turn();
        return;
      case 'assistant': {
        if (main && l.usage !== null) this.c.measure(l.ms, l.usage.prompt, l.uuid);
        for (const p of arr(obj(r.message)?.parts) ?? []) {
          const fc = obj(obj(p)?.functionCall);
          const name = fc === null ? null : text(fc.name);
          if (fc === null || name === null) continue;
          const call = this.c.call({
            id: text(fc.id),
            origin,
            name,
            input: fc.args ?? null,
            ms: l.ms,
            access: FILE_TOOLS.get(name) ?? null,
          });
          // The edit's own old and new text, until its result brings the diff Qwen Code made.
          const own = FILE_TOOLS.get(name) === 'write' ? editDelta(fc.args) : null;
          if (own !== null) noteChange(call, own);
        }
        return;
      }
      case 'tool_result': {
        if (l.result === null) return;
        const diff = str(obj(obj(r.toolCallResult)?.resultDisplay)?.fileDiff);
        this.c.result(
          l.result.callId,
          l.ms,
          l.result.failed,
          answerText(r),
          diff === null ? null : unifiedDelta(diff),
        );
        return;
      }
      case 'system':
        if (main && l.subtype === 'chat_compression') this.c.compaction(l.ms);
        return;
      default:
        return;
    }
  }
}

/** The calls of a Qwen Code chat, its subagents' included. */
export function qwenCalls(path: string): CallLog {
  const reader = new QwenCalls();
  eachObject(path, (r) => reader.record(r));
  return reader.c.log;
}
