/**
 * Copilot CLI's OpenTelemetry file export: with `COPILOT_OTEL_ENABLED=true`,
 * `COPILOT_OTEL_EXPORTER_TYPE=file` and `COPILOT_OTEL_FILE_EXPORTER_PATH=<file>`, Copilot CLI (1.0.102
 * recorded in the lab) appends one JSON record a line: spans (`invoke_agent`, `chat <model>`,
 * `execute_tool <name>`), each with `traceId`, `spanId`, `startTime`/`endTime` as `[seconds, nanos]`
 * and `attributes` in the GenAI conventions' names, and metrics. A `chat` span is one model request:
 * `gen_ai.conversation.id` is the session's id (the same as its `session-state` folder),
 * `gen_ai.response.id` the request's (the `apiCallId` of its `session.usage_record`), and
 * `gen_ai.usage.*` its tokens. Read from `<root>/otel/*.jsonl` (where ccusage looks) and the file
 * `$COPILOT_OTEL_FILE_EXPORTER_PATH` names.
 *
 * One export holds any number of sessions, so each is a member, `<export>#<conversation id>`, found by
 * a skim of the export at discovery (`otel-names.ts`) and read by `readOtelSession`. A member is a
 * `part` of its session: counted with the session's `events.jsonl` where there is one, its requests
 * the same ledger records as the usage records there (same key: the response id), so each counts
 * once; a session whose `session-state` is gone is counted from its exports alone.
 *
 * Which records count, where one request shows in several: a `chat` span; else (a trace without
 * one) a `gen_ai.client.inference.operation.details` log; else the `invoke_agent` span that sums its
 * trace. Not read: the conversation (an export holds no words unless content capture is on), tool
 * calls (`events.jsonl` has them), metrics (sums of the spans).
 *
 * known limit: a session whose `session-state` has only `session.shutdown` totals (builds that wrote
 * no per-request usage) and an export as well counts the export's requests on top of those totals:
 * the two share no key. No build that writes an export and no per-request usage is known.
 */
import { statSync } from 'node:fs';
import { emptyFacts, type FileFacts, noteModel, noteTime } from '../../model/facts.js';
import { count, type JsonObject, num, obj, parseObjectAt, str, text } from '../../model/json.js';
import { hashString, type Ledger, LedgerBuilder } from '../../model/ledger.js';
import { scanLines } from '../jsonl.js';

/**
 * Traces remembered while reading an export, to give a record without a conversation id the one its
 * trace names. A trace is one prompt's turn; past this many, records of later traces that do not
 * name their conversation are left out.
 */
export const MAX_TRACES = 100_000;

const ATTRIBUTES = Buffer.from('"attributes"');

type Source = 'chat' | 'inference' | 'agent';

/** One record of an export that carries a request's tokens. */
interface Candidate {
  source: Source;
  trace: string | null;
  span: string | null;
  response: string | null;
  conversation: string | null;
  ms: number | null;
  model: string | null;
  /** The whole prompt, as the conventions count it (cached tokens inside). */
  prompt: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number | null;
  sub: boolean;
}

const attr = (a: JsonObject, k: string): string | null => text(a[k]);

/** A count written as a number or a numeric string; absent is 0 (the record names no such tokens). */
function tokens(a: JsonObject, ...keys: string[]): number | null {
  for (const k of keys) {
    const v = a[k];
    const n = count(v) ?? (typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : null);
    if (n !== null) return n;
  }
  return null;
}

/** `[seconds, nanos]` as milliseconds. */
function hrMs(v: unknown): number | null {
  if (!Array.isArray(v) || v.length < 2) return null;
  const s = num(v[0]);
  const n = num(v[1]);
  return s === null || n === null || s <= 0 ? null : s * 1000 + Math.floor(n / 1e6);
}

function sourceOf(r: JsonObject, a: JsonObject): Source | null {
  const isSpan = str(r.type) === 'span' || (str(r.type) === null && text(r.spanId) !== null);
  const op = attr(a, 'gen_ai.operation.name');
  const name = str(r.name) ?? '';
  if (isSpan) {
    if (op === 'chat' || name.startsWith('chat ')) return 'chat';
    if (op === 'invoke_agent' || name.startsWith('invoke_agent')) return 'agent';
    return null;
  }
  const body = str(r.body) ?? str(r._body) ?? '';
  if (
    attr(a, 'event.name') === 'gen_ai.client.inference.operation.details' ||
    body.startsWith('GenAI inference:')
  )
    return 'inference';
  return null;
}

function candidateOf(r: JsonObject, a: JsonObject, source: Source): Candidate | null {
  const prompt = tokens(a, 'gen_ai.usage.input_tokens') ?? 0;
  const output = tokens(a, 'gen_ai.usage.output_tokens') ?? 0;
  const cacheRead = tokens(a, 'gen_ai.usage.cache_read.input_tokens') ?? 0;
  const cacheWrite =
    tokens(a, 'gen_ai.usage.cache_creation.input_tokens', 'gen_ai.usage.cache_write.input_tokens') ?? 0;
  if (prompt + output + cacheRead + cacheWrite === 0) return null;
  const ctx = obj(r.spanContext);
  return {
    source,
    trace: text(r.traceId) ?? text(ctx?.traceId),
    span: text(r.spanId) ?? text(ctx?.spanId),
    response: attr(a, 'gen_ai.response.id'),
    conversation: attr(a, 'gen_ai.conversation.id'),
    ms: hrMs(r.endTime) ?? hrMs(r.startTime) ?? hrMs(r.hrTime),
    model: attr(a, 'gen_ai.response.model') ?? attr(a, 'gen_ai.request.model'),
    prompt,
    output,
    cacheRead,
    cacheWrite,
    reasoning: tokens(a, 'gen_ai.usage.reasoning.output_tokens'),
    sub: attr(a, 'github.copilot.initiator') === 'sub-agent',
  };
}

/** What one pass over an export found: each session's records, and the lines read. */
interface ExportReading {
  sessions: Map<string, Candidate[]>;
  lines: number;
  badLines: number;
}

/**
 * Exports whose reading is kept, so that the sessions of one export (each a member the index reads
 * on its own) cost one pass over it, not one each. A reading is a few dozen bytes a request; four
 * exports is the few a run of the index reads side by side.
 */
export const MAX_CACHED_EXPORTS = 4;

const cached: { key: string; reading: ExportReading }[] = [];

/** A line worth parsing: it carries tokens, or names a session (for its trace). Metrics do neither. */
const USAGE = Buffer.from('"gen_ai.usage.');
const CONVERSATION = Buffer.from('"gen_ai.conversation.id"');

function readExport(path: string): ExportReading {
  const st = statSync(path);
  const key = `${path}\u0000${st.size}\u0000${st.mtimeMs}\u0000${st.ino}`;
  const hit = cached.find((c) => c.key === key);
  if (hit !== undefined) return hit.reading;
  const traces = new Map<string, string>();
  const found: Candidate[] = [];
  const reading: ExportReading = { sessions: new Map(), lines: 0, badLines: 0 };
  scanLines(path, 0, (buf, start, end) => {
    reading.lines++;
    const line = buf.subarray(start, end);
    if (line.indexOf(ATTRIBUTES) === -1) return true;
    if (line.indexOf(USAGE) === -1 && line.indexOf(CONVERSATION) === -1) return true;
    const r = parseObjectAt(buf, start, end);
    if (r === null) {
      reading.badLines++;
      return true;
    }
    const a = obj(r.attributes);
    if (a === null) return true;
    const trace = text(r.traceId) ?? text(obj(r.spanContext)?.traceId);
    const conv = attr(a, 'gen_ai.conversation.id');
    if (trace !== null && conv !== null && !traces.has(trace) && traces.size < MAX_TRACES)
      traces.set(trace, conv);
    const source = sourceOf(r, a);
    const c = source === null ? null : candidateOf(r, a, source);
    if (c !== null) found.push(c);
    return true;
  });
  for (const c of found) {
    const conv = c.conversation ?? (c.trace === null ? undefined : traces.get(c.trace));
    if (conv === undefined) continue;
    const list = reading.sessions.get(conv);
    if (list === undefined) reading.sessions.set(conv, [c]);
    else list.push(c);
  }
  cached.push({ key, reading });
  if (cached.length > MAX_CACHED_EXPORTS) cached.shift();
  return reading;
}

/**
 * One session's requests from an export, as facts and ledger records keyed as the session-state
 * reader keys them (`copilot`, the session id, the response id), so the two count each request once.
 */
export function readOtelSession(path: string, conversation: string): { facts: FileFacts; ledger: Ledger } {
  const facts = emptyFacts();
  facts.sessionId = conversation;
  // The export says nothing of tool outcomes this reader keeps: failures are unknown, not none.
  facts.recordsOutcomes = false;
  const reading = readExport(path);
  facts.lines = reading.lines;
  facts.badLines = reading.badLines;
  const mine = reading.sessions.get(conversation) ?? [];
  const ledger = new LedgerBuilder();
  for (const c of counted(mine)) {
    const model = c.model ?? 'unknown';
    noteTime(facts, c.ms);
    noteModel(facts, model);
    if (!c.sub && c.source !== 'agent') {
      facts.mainModel = model;
      facts.context = { prompt: c.prompt, model, atMs: c.ms };
    }
    const key = c.response ?? (c.trace !== null && c.span !== null ? `${c.trace}:${c.span}` : null);
    ledger.push({
      key: key === null ? null : hashString(`copilot\u0000${conversation}\u0000${key}`),
      request: 0,
      tsMs: c.ms ?? 0,
      model,
      sidechain: c.sub,
      tokens: {
        input: Math.max(0, c.prompt - c.cacheRead - c.cacheWrite),
        output: c.output,
        cacheRead: c.cacheRead,
        cacheWrite5m: c.cacheWrite,
        cacheWrite1h: null,
        reasoning: c.reasoning,
      },
      tools: null,
    });
  }
  return { facts, ledger: ledger.build() };
}

/** The records that count: a lower source only for a trace or response no higher source covers. */
function counted(all: Candidate[]): Candidate[] {
  const covered = (source: Source) => {
    const traces = new Set<string>();
    const responses = new Set<string>();
    for (const c of all) {
      if (c.source !== source) continue;
      if (c.trace !== null) traces.add(c.trace);
      if (c.response !== null) responses.add(c.response);
    }
    return (c: Candidate) =>
      (c.trace !== null && traces.has(c.trace)) || (c.response !== null && responses.has(c.response));
  };
  const byChat = covered('chat');
  const byInference = covered('inference');
  const counts = (c: Candidate): boolean => {
    switch (c.source) {
      case 'chat':
        return true;
      case 'inference':
        return !byChat(c);
      case 'agent':
        return !byChat(c) && !byInference(c);
    }
  };
  return all.filter(counts);
}
