/**
 * Claude Code's calls, requests and compactions for the report (the shared rules are in
 * `model/calls.ts`), and the breakdown of what fills its context now.
 *
 * Claude Code writes one API response as several `assistant` records, one per content block, each
 * repeating the response's usage under the same `message.id` and `requestId`: they are one request,
 * keyed by those two as the scan keys a response (`model/dedupe.ts`), so the context series has one
 * point per request and the calls of one response, parallel calls written in records of their own,
 * share its growth. A record holds its usage and its calls together: the measure comes first.
 *
 * A subagent's transcript adds its calls under its agent id, and an older Task sidechain inside the
 * main file adds them as `sidechain`: they grow the subagent's context, not the session's, so they
 * carry no growth and add no point to the series.
 *
 * Not read here: the money (the scan's ledger has it) and the words (the conversation reader).
 */
import { CallCollector, type CallLog, type FileAccess } from '../../model/calls.js';
import { arr, isoMs, type JsonObject, obj, str } from '../../model/json.js';
import { eachObject, flattenContent } from '../conversation-util.js';
import { isHarnessText } from './harness-text.js';
import { isVirtualRow, patchCounts } from './record.js';

/**
 * Characters per token for text cctop cannot have the model count: fitted on real Claude sessions
 * (the Rust cctop measured 2.75 on 167 of them).
 */
export const CHARS_PER_TOKEN = 2.75;

/**
 * A compaction is marked twice, a `compact_boundary` then the summary record: a summary this soon
 * after a boundary is the same seam. The two are written within a second of each other; a minute
 * leaves room for a slow write without joining two real compactions (each takes a model request).
 */
const SEAM_MS = 60_000;

/** Claude Code's file tools, by lowercased name. */
const FILE_TOOLS: ReadonlyMap<string, FileAccess> = new Map([
  ['read', 'read'],
  ['notebookread', 'read'],
  ['edit', 'write'],
  ['multiedit', 'write'],
  ['write', 'write'],
  ['notebookedit', 'write'],
]);

/** Characters seen in the live segment (since the last compaction), by kind, and its first prompt. */
interface Segment {
  startup: number | null;
  toolOutput: number;
  toolInput: number;
  attachments: number;
  user: number;
  assistant: number;
}

const emptySegment = (): Segment => ({
  startup: null,
  toolOutput: 0,
  toolInput: 0,
  attachments: 0,
  user: 0,
  assistant: 0,
});

const textLength = (v: unknown): number =>
  typeof v === 'string' ? v.length : v === undefined || v === null ? 0 : JSON.stringify(v).length;

/** Add a main-thread record's text to the live segment's tally, by what kind of thing it is. */
function countSegment(seg: Segment, r: JsonObject, message: JsonObject | null): void {
  if (r.type === 'attachment') {
    seg.attachments += textLength(obj(r.attachment)?.content);
    return;
  }
  if (!message || r.isCompactSummary === true) return;
  const content = message.content;
  if (r.type === 'user') {
    if (typeof content === 'string') seg.user += content.length;
    for (const b of arr(content) ?? []) {
      const block = obj(b);
      if (block?.type === 'tool_result') seg.toolOutput += textLength(block.content);
      else if (block?.type === 'text') seg.user += textLength(block.text);
    }
  } else if (r.type === 'assistant') {
    for (const b of arr(content) ?? []) {
      const block = obj(b);
      if (block?.type === 'text') seg.assistant += textLength(block.text);
      else if (block?.type === 'tool_use') seg.toolInput += textLength(block.input) + textLength(block.name);
    }
  }
}

/** Whether a user record is words the person typed (not a tool result, not the harness speaking). */
function typedPrompt(r: JsonObject, message: JsonObject): boolean {
  if (r.isMeta === true || r.isCompactSummary === true) return false;
  const content = message.content;
  if (typeof content === 'string') return content.trim().length > 0 && !isHarnessText(content);
  let said: string | null = null;
  for (const b of arr(content) ?? []) {
    const block = obj(b);
    if (block?.type === 'tool_result') return false;
    if (block?.type === 'text') said ??= str(block.text);
  }
  return said !== null && said.trim().length > 0 && !isHarnessText(said);
}

class ClaudeCalls {
  readonly c = new CallCollector('before');
  segment = emptySegment();

  record(r: JsonObject, origin: string): void {
    const c = this.c;
    const ms = isoMs(r.timestamp);
    const side = r.isSidechain === true;
    const main = origin === 'main' && !side;
    const message = obj(r.message);
    if (main && (r.subtype === 'compact_boundary' || r.isCompactSummary === true)) {
      const last = c.log.compactions.at(-1);
      const sameSeam =
        r.isCompactSummary === true &&
        last !== undefined &&
        last !== null &&
        ms !== null &&
        ms - last < SEAM_MS;
      if (!sameSeam) c.compaction(ms);
      this.segment = emptySegment();
    }
    if (main) countSegment(this.segment, r, message);
    // A script's or REPL's own calls (Claude Code 2.1.332) are the harness's, not the model's.
    if (isVirtualRow(r)) return;
    if (r.type === 'assistant' && message) {
      const u = obj(message.usage);
      if (main && u && message.model !== '<synthetic>') {
        const n = (v: unknown) => (typeof v === 'number' ? v : 0);
        const prompt = n(u.input_tokens) + n(u.cache_read_input_tokens) + n(u.cache_creation_input_tokens);
        const id = str(message.id);
        c.measure(ms, prompt, id === null ? null : `${id}\u0000${str(r.requestId) ?? ''}`);
        this.segment.startup ??= prompt;
      }
      for (const b of arr(message.content) ?? []) {
        const block = obj(b);
        if (block?.type !== 'tool_use') continue;
        const name = str(block.name) ?? 'tool';
        c.call({
          id: str(block.id),
          origin: side && origin === 'main' ? 'sidechain' : origin,
          name,
          input: block.input,
          ms,
          access: FILE_TOOLS.get(name.toLowerCase()) ?? null,
        });
      }
    } else if (r.type === 'user' && message) {
      if (main && typedPrompt(r, message)) c.turn();
      // One record's patch belongs to its first result: Claude Code writes one result per record.
      let delta = patchCounts(r.toolUseResult);
      for (const b of arr(message.content) ?? []) {
        const block = obj(b);
        if (block?.type !== 'tool_result') continue;
        c.result(str(block.tool_use_id), ms, block.is_error === true, flattenContent(block.content), delta);
        delta = null;
      }
    }
  }

  /** The breakdown of the live segment against the newest request's prompt. */
  breakdown(): CallLog['breakdown'] {
    const window = this.c.log.requests.at(-1)?.prompt ?? null;
    const seg = this.segment;
    if (window === null || seg.startup === null) return null;
    const est = (chars: number) => Math.round(chars / CHARS_PER_TOKEN);
    const parts = {
      toolOutput: est(seg.toolOutput),
      toolInput: est(seg.toolInput),
      attachments: est(seg.attachments),
      user: est(seg.user),
      assistant: est(seg.assistant),
    };
    const estimated = parts.toolOutput + parts.toolInput + parts.attachments + parts.user + parts.assistant;
    return { window, startup: seg.startup, ...parts, unaccounted: window - seg.startup - estimated };
  }
}

/** The calls of a session from its main transcript and its subagents' (`agent`, `path`). */
export function claudeCalls(main: string, subagents: readonly { agent: string; path: string }[]): CallLog {
  const reader = new ClaudeCalls();
  eachObject(main, (r) => reader.record(r, 'main'));
  reader.c.log.breakdown = reader.breakdown();
  for (const s of subagents) eachObject(s.path, (r) => reader.record(r, s.agent));
  return reader.c.log;
}
