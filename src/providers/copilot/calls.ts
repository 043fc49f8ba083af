/**
 * GitHub Copilot CLI's calls, requests and compactions for the report (the shared rules are in
 * `model/calls.ts`).
 *
 * An `assistant.message` is one response, with the calls it asked for (`toolRequests`); a call runs
 * from its `tool.execution_start` to its `tool.execution_complete`, which says whether it worked
 * (`success`, as the scan counts a failure). An older build writes only the execution start: the
 * call is made there. A request is sized only where the build writes `assistant.usage` (uncached
 * input, cache reads and writes: together the prompt); most builds write none, and their sessions
 * have calls but no context series. Where the usage event falls against the message it measures is
 * not documented, so the order is `either`, settled per turn.
 *
 * A subagent's events share the file and carry `parentToolCallId`: its calls are listed under that
 * id, and its requests are not the session's context.
 */
import { noteChange } from '../../model/call-files.js';
import { CallCollector, type FileAccess } from '../../model/calls.js';
import { arr, type JsonObject, obj, str, text } from '../../model/json.js';
import { appliedDiff, argsDelta, argsOf, EDIT_TOOLS, outcomeText } from './conversation.js';
import { lineFromJson } from './record.js';

/** Copilot CLI's tools that name one file they read or write. */
const FILE_TOOLS: ReadonlyMap<string, FileAccess> = new Map([
  ['view', 'read'],
  ['edit', 'write'],
  ['str_replace', 'write'],
  ['create', 'write'],
  ['write', 'write'],
]);

/** `str_replace_editor` is one tool for viewing and editing: its `command` says which. */
function accessOf(name: string, args: unknown): FileAccess | null {
  if (name === 'str_replace_editor') return str(obj(args)?.command) === 'view' ? 'read' : 'write';
  return FILE_TOOLS.get(name) ?? null;
}

export class CopilotCalls {
  readonly c = new CallCollector('either');

  event(e: JsonObject): void {
    const l = lineFromJson(e);
    const d = obj(e.data) ?? {};
    const origin = text(d.parentToolCallId) ?? 'main';
    const main = origin === 'main';
    switch (l.kind) {
      case 'prompt':
        if (main) this.c.turn();
        return;
      case 'message':
        if (main && l.hasText) this.c.said();
        for (const r of arr(d.toolRequests) ?? []) {
          const request = obj(r);
          if (request === null) continue;
          this.call(text(request.toolCallId), origin, text(request.name) ?? 'tool', request.arguments, l.ms);
        }
        return;
      case 'call':
        if (l.id !== null && this.c.has(l.id)) this.c.started(l.id, l.ms);
        else this.call(l.id, origin, l.name, d.arguments, l.ms);
        return;
      case 'done':
        this.c.result(l.id, l.ms, l.failed, outcomeText(d), appliedDiff(d));
        return;
      case 'usage':
        if (main) {
          const t = l.tokens;
          this.c.measure(l.ms, t.input + t.cacheRead + t.cacheWrite, l.key);
        }
        return;
      case 'compaction':
        this.c.compaction(l.ms);
        return;
      default:
        return;
    }
  }

  private call(id: string | null, origin: string, name: string, rawArgs: unknown, ms: number | null): void {
    const args = argsOf(rawArgs);
    const call = this.c.call({ id, origin, name, input: args, ms, access: accessOf(name, args) });
    // The edit's own old and new text, until its result brings the diff it applied.
    const own = EDIT_TOOLS.has(name) ? argsDelta(args) : null;
    if (own !== null) noteChange(call, own);
  }
}
