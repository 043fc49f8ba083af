/**
 * Devin's calls and requests for the report (the shared rules are in `model/calls.ts`).
 *
 * An `agent` step of the ATIF trajectory is one model response: its `metrics.prompt_tokens` is the
 * whole prompt (the cached tokens are part of it), its `tool_calls` the calls it made, and its
 * `observation.results` what they got back. How a call ended is not in the trajectory: Devin's
 * database keeps it, and the caller passes that map in. A call failed when the database says it
 * ended otherwise than `completed`, as the scan counts it. The trajectory keeps no call times.
 */
import { noteChange } from '../../model/call-files.js';
import { CallCollector, type CallLog, type FileAccess } from '../../model/calls.js';
import { arr, type JsonObject, obj, str } from '../../model/json.js';
import { editDelta } from '../../model/tools.js';
import { flattenContent } from '../conversation-util.js';
import { stepFrom } from './record.js';

/** How the database says a call ended well. */
const COMPLETED = 'completed';

/** Devin's tools that name one file they read or write. */
const FILE_TOOLS: ReadonlyMap<string, FileAccess> = new Map([
  ['read', 'read'],
  ['edit', 'write'],
  ['write', 'write'],
]);

/** The calls of a trajectory's steps; `statuses` maps call ids to how the database says they ended. */
export function devinCalls(steps: readonly JsonObject[], statuses: ReadonlyMap<string, string>): CallLog {
  const c = new CallCollector('before');
  for (const raw of steps) {
    if (raw.source === 'user') {
      c.turn();
      continue;
    }
    if (raw.source !== 'agent') continue;
    const step = stepFrom(raw);
    if (step.metrics !== null) c.measure(step.ms, step.metrics.prompt, step.id);
    const results = new Map<string, JsonObject>();
    for (const r of arr(obj(raw.observation)?.results) ?? []) {
      const result = obj(r);
      const id = str(result?.source_call_id);
      if (result !== null && id !== null) results.set(id, result);
    }
    for (const tc of arr(raw.tool_calls) ?? []) {
      const t = obj(tc);
      if (t === null) continue;
      const name = str(t.function_name) ?? 'tool';
      const call = c.call({
        id: null,
        origin: 'main',
        name,
        input: t.arguments ?? null,
        ms: step.ms,
        access: FILE_TOOLS.get(name) ?? null,
      });
      const delta = FILE_TOOLS.get(name) === 'write' ? editDelta(t.arguments) : null;
      if (delta !== null) noteChange(call, delta);
      const id = str(t.tool_call_id);
      const result = id === null ? undefined : results.get(id);
      if (id === null || result === undefined) continue;
      const status = statuses.get(id);
      c.answered(
        call,
        null,
        status !== undefined && status !== COMPLETED,
        flattenContent(result.content),
        null,
      );
    }
  }
  return c.log;
}
