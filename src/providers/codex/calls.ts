/**
 * Codex's calls, requests and compactions for the report (the shared rules are in `model/calls.ts`).
 *
 * A request's size is its `token_count` event: `last_token_usage.input_tokens`, which holds the
 * cached part (else the growth of the cumulative total, for builds that write no per-request usage).
 * A token_count repeated with an unchanged total is the same request again, as the scan reads it.
 *
 * Which response a token_count measures depends on the version, and nothing in the event says:
 * - Codex 0.40 (September 2025) wrote it first, then the response's items (reasoning, calls and
 *   their outputs), then a `turn_context` before the next request;
 * - later builds (0.146, 0.169) write the items as they stream and the token_count when the response
 *   ends: after its calls, often after their outputs too.
 * So the order is `either`, settled per turn by what follows the person's message: a token_count, or
 * an item the model wrote. The event copies of a response (`agent_reasoning`, `agent_message`) do
 * not count as items: 0.40 wrote them before the token_count. The person speaking is a `user`
 * message item or a `user_message` event (a resumed rollout has both for every turn).
 *
 * Calls are `function_call` and `custom_tool_call` items; their outputs say whether they failed the
 * way the scan reads them (`outputFailed`). An `apply_patch` names every file it changes, with each
 * file's lines added and removed; so does a shell call that runs `apply_patch` (a model may send the
 * patch that way: as the command list `["apply_patch", patch]`, or a heredoc in a command line), which
 * Codex intercepts and applies itself, so that a file written that way is a written file too.
 */
import { patchedFiles } from '../../model/call-files.js';
import { CallCollector, type CallLog, type FileAccess } from '../../model/calls.js';
import { type JsonObject, obj, readJson, str } from '../../model/json.js';
import { applyPatch } from '../../model/tools.js';
import { eachObject } from '../conversation-util.js';
import { outputText } from './conversation.js';
import { type CodexTokenUsage, lineFromJson, outputFailed, sameUsage } from './record.js';

/** Codex's tools that name a file they read. */
const FILE_TOOLS: ReadonlyMap<string, FileAccess> = new Map([
  ['view_image', 'read'],
  ['read_file', 'read'],
]);

/** Items the model writes besides its calls (Codex's own items, such as `ghost_snapshot`, are not). */
const MODEL_ITEMS: ReadonlySet<string> = new Set([
  'message',
  'reasoning',
  'local_shell_call',
  'web_search_call',
  'tool_search_call',
  'image_generation_call',
]);

/** A call's argument: the JSON Codex wrote as text, parsed; a freeform tool's text as it is. */
function argumentOf(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  const r = readJson(raw);
  return r.kind === 'read' ? r.value : raw;
}

class CodexCalls {
  readonly c = new CallCollector('either');
  private previousTotal: CodexTokenUsage | null = null;
  /** A `compacted` record was seen and its `context_compacted` event has not come yet. */
  private boundaryOpen = false;

  record(r: JsonObject): void {
    const l = lineFromJson(r);
    const p = obj(r.payload) ?? {};
    switch (l.kind) {
      case 'tokens':
        this.tokens(l.ms, l.last, l.total);
        return;
      case 'prompt':
        this.c.turn();
        return;
      case 'compaction':
        // One compaction is written both ways: the record, then its event.
        if (l.marker === 'compacted') {
          this.boundaryOpen = true;
          this.c.compaction(l.ms);
        } else if (this.boundaryOpen) this.boundaryOpen = false;
        else this.c.compaction(l.ms);
        return;
      case 'call':
        this.call(l.id, l.name, l.ms, p);
        return;
      case 'output':
        this.c.result(l.id, l.ms, outputFailed(p.output), outputText(p.output), null);
        return;
      default:
        break;
    }
    if (r.type !== 'response_item') return;
    if (p.type === 'message' && p.role === 'user') this.c.turn();
    else if (MODEL_ITEMS.has(str(p.type) ?? '') && (p.type !== 'message' || p.role === 'assistant'))
      this.c.said();
  }

  private tokens(ms: number | null, last: CodexTokenUsage | null, total: CodexTokenUsage | null): void {
    const prev = this.previousTotal;
    if (total !== null) {
      if (prev !== null && sameUsage(total, prev)) return; // the same event again
      this.previousTotal = total;
    }
    let prompt = last?.input ?? null;
    if (prompt === null && total !== null)
      prompt = prev !== null && total.total >= prev.total ? total.input - prev.input : total.input;
    if (prompt === null || prompt <= 0) return;
    this.c.measure(ms, prompt, null);
  }

  private call(id: string | null, name: string, ms: number | null, p: JsonObject): void {
    const raw = p.arguments ?? p.input;
    const input = argumentOf(raw);
    const call = this.c.call({ id, origin: 'main', name, input, ms, access: FILE_TOOLS.get(name) ?? null });
    if (name !== 'apply_patch') {
      const patch = shellPatch(input ?? obj(p.action));
      if (patch !== null) call.files = patchedFiles(patch);
      return;
    }
    // A freeform apply_patch is the patch itself; a function one wraps it in `{"input": …}`.
    const patch = typeof raw === 'string' && typeof input === 'string' ? raw : str(obj(input)?.input);
    if (patch === null) return;
    const counted = applyPatch(patch);
    call.detail = counted.summary;
    call.added = counted.added;
    call.removed = counted.removed;
    call.files = patchedFiles(patch);
  }
}

/**
 * The patch a shell call hands to `apply_patch`, or null when it runs something else. The command is
 * a list of words (`shell`, a `local_shell_call`'s action) or one line (`exec_command`'s `cmd`,
 * `shell_command`'s `command`); the patch is the text from `*** Begin Patch` to `*** End Patch`.
 */
function shellPatch(input: unknown): string | null {
  const o = obj(input);
  if (o === null) return null;
  const words = Array.isArray(o.command) ? o.command.filter((w): w is string => typeof w === 'string') : null;
  const line = words?.join('\n') ?? str(o.command) ?? str(o.cmd);
  if (line === null || !/\bapply_?patch\b/.test(line)) return null;
  const begin = line.indexOf('*** Begin Patch');
  if (begin < 0) return null;
  const end = line.indexOf('*** End Patch', begin);
  return line.slice(begin, end < 0 ? undefined : end + '*** End Patch'.length);
}

/** The calls of a Codex rollout. */
export function codexCalls(path: string): CallLog {
  const reader = new CodexCalls();
  eachObject(path, (r) => reader.record(r));
  return reader.c.log;
}
