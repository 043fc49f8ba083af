/**
 * The tool activity of one session, read from its transcripts: every call with its argument, when
 * it started and ended, whether it failed, what came back, how much the context grew after it, and
 * the files it touched. The report's tool, file and context sections are built from this.
 *
 * A full read of the session's files, like the conversation and unlike the scan: it keeps what a
 * reviewer wants and nothing else, within `MAX_CALLS`.
 */
import type { ProviderId } from '../model/facts.js';
import { arr, isoMs, type JsonObject, obj, str } from '../model/json.js';
import { applyPatch, prettyToolName, toolDetail } from '../model/tools.js';
import { outputFailed } from '../providers/codex/record.js';
import { eachObject, flattenContent } from '../providers/conversation-util.js';

/** Calls kept per session; a longer session keeps its newest and counts the rest. */
export const MAX_CALLS = 20_000;

export interface Call {
  /** `main`, or the agent id of the subagent that made it. */
  origin: string;
  name: string;
  detail: string;
  /** The argument in full, the key failures are grouped by. */
  argument: string;
  startMs: number | null;
  endMs: number | null;
  /** Null while running. */
  result: string | null;
  failed: boolean;
  added: number;
  removed: number;
  /** Files read or written, with what each write changed. */
  files: { path: string; write: boolean; added: number; removed: number }[];
  /** Context growth from the request that made the call to the next one; shared by parallel calls. */
  growth: number | null;
  shared: boolean;
}

export interface CallLog {
  calls: Call[];
  dropped: number;
  /** Prompt size of every main-thread request, in order. */
  requests: { ms: number | null; prompt: number }[];
  compactions: (number | null)[];
  /** What the context holds now, where it can be told (Claude). */
  breakdown: Breakdown | null;
}

/**
 * Characters per token for text cctop cannot have the model count: fitted on real Claude sessions
 * (the Rust cctop measured 2.75 on 167 of them).
 */
export const CHARS_PER_TOKEN = 2.75;

/**
 * What fills the context window, over the live segment (since the last compaction). The window and
 * the startup (the first request of the segment: system prompt, tools, memory files, the summary)
 * are measured; the rest are estimates from the text the transcript keeps. `unaccounted` is what is
 * left, signed and never clamped: thinking is stored without its text and system reminders are not
 * stored at all, so it can be large, or negative when an estimate ran high.
 */
export interface Breakdown {
  window: number;
  startup: number;
  toolOutput: number;
  toolInput: number;
  attachments: number;
  user: number;
  assistant: number;
  unaccounted: number;
}

const READS = new Set(['read', 'notebookread', 'view_image', 'read_file', 'read_many_files']);
const WRITES = new Set(['edit', 'multiedit', 'write', 'notebookedit', 'write_file', 'replace', 'edit_file']);

function fileOf(input: unknown): string | null {
  const o = obj(input);
  return o ? (str(o.file_path) ?? str(o.notebook_path) ?? str(o.path) ?? str(o.absolute_path)) : null;
}

/** Per-file counts of an apply_patch body (every file it touches, not just the first). */
function patchFiles(patch: string): Call['files'] {
  const files: Call['files'] = [];
  let current: Call['files'][number] | null = null;
  for (const line of patch.split('\n')) {
    const h = /^\*\*\* (Update|Add|Delete) File: (.+)$/.exec(line);
    if (h) {
      current = { path: h[2]!.trim(), write: true, added: 0, removed: 0 };
      files.push(current);
    } else if (current && !line.startsWith('***')) {
      if (line.startsWith('+')) current.added++;
      else if (line.startsWith('-')) current.removed++;
    }
  }
  return files;
}

class Collector {
  readonly log: CallLog = { calls: [], dropped: 0, requests: [], compactions: [], breakdown: null };
  /** Characters seen in the live segment, by kind, and its first request's prompt. */
  segment = {
    startup: null as number | null,
    toolOutput: 0,
    toolInput: 0,
    attachments: 0,
    user: 0,
    assistant: 0,
  };

  resetSegment(): void {
    this.segment = { startup: null, toolOutput: 0, toolInput: 0, attachments: 0, user: 0, assistant: 0 };
  }
  private byId = new Map<string, Call>();
  /** Calls waiting for the next request to learn how much they grew the context. */
  private awaiting: { call: Call; prompt: number }[] = [];
  private lastPrompt: number | null = null;

  request(ms: number | null, prompt: number, main: boolean): void {
    if (!main) return;
    this.log.requests.push({ ms, prompt });
    this.segment.startup ??= prompt;
    const shared = this.awaiting.length > 1;
    for (const a of this.awaiting) {
      a.call.growth = prompt - a.prompt;
      a.call.shared = shared;
    }
    this.awaiting = [];
    this.lastPrompt = prompt;
  }

  call(id: string | null, origin: string, name: string, input: unknown, ms: number | null): Call {
    const { detail, full } = toolDetail(name, input);
    const lower = name.toLowerCase();
    const path = fileOf(input);
    const call: Call = {
      origin,
      name: prettyToolName(name),
      detail,
      argument: full ?? detail,
      startMs: ms,
      endMs: null,
      result: null,
      failed: false,
      added: 0,
      removed: 0,
      files:
        path && (READS.has(lower) || WRITES.has(lower))
          ? [{ path, write: WRITES.has(lower), added: 0, removed: 0 }]
          : [],
      growth: null,
      shared: false,
    };
    if (this.log.calls.length >= MAX_CALLS) {
      this.log.calls.shift();
      this.log.dropped++;
    }
    this.log.calls.push(call);
    if (id !== null) this.byId.set(id, call);
    if (origin === 'main' && this.lastPrompt !== null) this.awaiting.push({ call, prompt: this.lastPrompt });
    return call;
  }

  result(
    id: string | null,
    ms: number | null,
    failed: boolean,
    text: string,
    delta: { added: number; removed: number } | null,
  ): void {
    if (id === null) return;
    const call = this.byId.get(id);
    if (!call) return;
    this.byId.delete(id);
    call.endMs = ms;
    call.failed = failed;
    call.result = text;
    if (delta) {
      call.added = delta.added;
      call.removed = delta.removed;
      for (const f of call.files) {
        if (f.write) {
          f.added = delta.added;
          f.removed = delta.removed;
        }
      }
    }
  }
}

const textLength = (v: unknown): number =>
  typeof v === 'string' ? v.length : v === undefined || v === null ? 0 : JSON.stringify(v).length;

/** Add a main-thread record's text to the live segment's tally, by what kind of thing it is. */
function countSegment(c: Collector, r: JsonObject, message: JsonObject | null): void {
  const seg = c.segment;
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

function claudeRecord(c: Collector, r: JsonObject, origin: string): void {
  const ms = isoMs(r.timestamp);
  const side = r.isSidechain === true;
  const main = origin === 'main' && !side;
  const message = obj(r.message);
  if (main && (r.subtype === 'compact_boundary' || r.isCompactSummary === true)) {
    // One compaction marked both ways is one seam: a summary right after a boundary is the same one.
    const last = c.log.compactions.at(-1);
    if (
      !(
        r.isCompactSummary === true &&
        last !== undefined &&
        ms !== null &&
        last !== null &&
        ms - last < 60_000
      )
    )
      c.log.compactions.push(ms);
    c.resetSegment();
  }
  if (main) countSegment(c, r, message);
  if (r.type === 'assistant' && message) {
    const u = obj(message.usage);
    if (u && message.model !== '<synthetic>') {
      const n = (v: unknown) => (typeof v === 'number' ? v : 0);
      c.request(
        ms,
        n(u.input_tokens) + n(u.cache_read_input_tokens) + n(u.cache_creation_input_tokens),
        main,
      );
    }
    for (const b of arr(message.content) ?? []) {
      const block = obj(b);
      if (block?.type === 'tool_use')
        c.call(
          str(block.id),
          side && origin === 'main' ? 'sidechain' : origin,
          str(block.name) ?? 'tool',
          block.input,
          ms,
        );
    }
  } else if (r.type === 'user' && message) {
    const hunks = arr(obj(r.toolUseResult)?.structuredPatch);
    let delta: { added: number; removed: number } | null = null;
    if (hunks) {
      delta = { added: 0, removed: 0 };
      for (const h of hunks) {
        for (const l of arr(obj(h)?.lines) ?? []) {
          if (typeof l === 'string' && l.startsWith('+')) delta.added++;
          else if (typeof l === 'string' && l.startsWith('-')) delta.removed++;
        }
      }
    }
    for (const b of arr(message.content) ?? []) {
      const block = obj(b);
      if (block?.type !== 'tool_result') continue;
      c.result(str(block.tool_use_id), ms, block.is_error === true, flattenContent(block.content), delta);
      delta = null;
    }
  }
}

function codexRecord(c: Collector, r: JsonObject): void {
  const ms = isoMs(r.timestamp);
  const p = obj(r.payload) ?? {};
  const type = r.type === 'response_item' ? str(p.type) : str(r.type);
  if (type === 'compacted') c.log.compactions.push(ms);
  if (r.type === 'event_msg' && p.type === 'token_count') {
    const last = obj(obj(p.info)?.last_token_usage);
    if (last && typeof last.input_tokens === 'number') c.request(ms, last.input_tokens, true);
    return;
  }
  if (type === 'function_call' || type === 'custom_tool_call') {
    const name = str(p.name) ?? 'tool';
    const raw = p.arguments ?? p.input;
    let input: unknown = raw;
    if (typeof raw === 'string') {
      try {
        input = JSON.parse(raw);
      } catch {
        input = raw;
      }
    }
    const call = c.call(str(p.call_id), 'main', name, input, ms);
    if (name === 'apply_patch' && typeof raw === 'string') {
      const patch = applyPatch(raw);
      call.detail = patch.summary;
      call.added = patch.added;
      call.removed = patch.removed;
      call.files = patchFiles(raw);
    }
  } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
    c.result(str(p.call_id), ms, outputFailed(p.output), flattenContent(p.output), null);
  }
}

/** Read the calls of a session from its main transcript and its subagents' (`[agent, path]`). */
export function readCalls(
  provider: ProviderId,
  main: string,
  subagents: readonly { agent: string; path: string }[],
): CallLog {
  const c = new Collector();
  if (provider === 'claude') {
    eachObject(main, (r) => claudeRecord(c, r, 'main'));
    const window = c.log.requests.at(-1)?.prompt ?? null;
    const seg = c.segment;
    if (window !== null && seg.startup !== null) {
      const est = (chars: number) => Math.round(chars / CHARS_PER_TOKEN);
      const parts = {
        toolOutput: est(seg.toolOutput),
        toolInput: est(seg.toolInput),
        attachments: est(seg.attachments),
        user: est(seg.user),
        assistant: est(seg.assistant),
      };
      const estimated = parts.toolOutput + parts.toolInput + parts.attachments + parts.user + parts.assistant;
      c.log.breakdown = {
        window,
        startup: seg.startup,
        ...parts,
        unaccounted: window - seg.startup - estimated,
      };
    }
    for (const s of subagents) eachObject(s.path, (r) => claudeRecord(c, r, s.agent));
  } else if (provider === 'codex') {
    eachObject(main, (r) => codexRecord(c, r));
  }
  return c.log;
}
