/**
 * The four model APIs the agent CLIs speak, as far as the lab needs them: read a request into the
 * turns of its conversation and the tools it offers, and write a scripted step back in the API's own
 * wire format (SSE or one JSON body), with usage figures in the API's own terms.
 *
 * It does not validate requests: an agent that sends something odd gets the script's answer anyway,
 * and the conformance tests judge what it wrote down.
 */
import type { Step, Turn } from './scripts.js';

export type Api = 'anthropic' | 'responses' | 'chat' | 'gemini';

/** A tool the agent offers: its name and JSON schema (whatever the API calls it). */
export interface OfferedTool {
  name: string;
  schema: Record<string, unknown> | null;
}

export interface Parsed {
  model: string;
  stream: boolean;
  turns: Turn[];
  tools: OfferedTool[];
}

/**
 * The figures of one response, in cctop's terms: `input` uncached, the cache parts apart, `output`
 * everything billed as output, `reasoning` the part of output that was reasoning. Null where the API
 * has no such figure (OpenAI and Gemini report no cache writes; Anthropic no reasoning count).
 */
export interface Figures {
  input: number;
  cacheRead: number;
  cacheWrite: number | null;
  output: number;
  reasoning: number | null;
}

/** A tool call as sent, with the id the agent must answer to. */
export interface SentCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

type Json = Record<string, unknown>;
const rec = (v: unknown): Json | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));

function blocksText(content: unknown): string {
  if (typeof content === 'string') return content;
  return list(content)
    .map((b) => {
      const o = rec(b);
      return typeof o?.text === 'string' ? o.text : '';
    })
    .join('\n');
}

function anthropicTurns(body: Json): Turn[] {
  const turns: Turn[] = [];
  for (const m of list(body.messages)) {
    const o = rec(m);
    if (!o) continue;
    if (o.role === 'assistant') {
      turns.push({ role: 'assistant' });
      continue;
    }
    const blocks = typeof o.content === 'string' ? [{ type: 'text', text: o.content }] : list(o.content);
    const words: string[] = [];
    for (const b of blocks) {
      const block = rec(b);
      if (block?.type === 'tool_result') turns.push({ role: 'tool', text: blocksText(block.content) });
      else if (block?.type === 'text' && typeof block.text === 'string') words.push(block.text);
    }
    if (words.length) turns.push({ role: 'user', text: words.join('\n') });
  }
  return turns;
}

function responsesTurns(body: Json): Turn[] {
  const turns: Turn[] = [];
  let inAssistant = false;
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : list(body.input);
  for (const item of input) {
    const o = rec(item);
    if (!o) continue;
    const type = o.type ?? 'message';
    const assistantSide =
      type === 'function_call' ||
      type === 'custom_tool_call' ||
      type === 'local_shell_call' ||
      type === 'reasoning' ||
      (type === 'message' && o.role === 'assistant');
    if (assistantSide) {
      if (!inAssistant) turns.push({ role: 'assistant' });
      inAssistant = true;
      continue;
    }
    inAssistant = false;
    if (type === 'function_call_output' || type === 'custom_tool_call_output')
      turns.push({ role: 'tool', text: text(o.output) });
    else if (type === 'message' && o.role === 'user')
      turns.push({ role: 'user', text: blocksText(o.content) });
  }
  return turns;
}

function chatTurns(body: Json): Turn[] {
  const turns: Turn[] = [];
  for (const m of list(body.messages)) {
    const o = rec(m);
    if (!o) continue;
    if (o.role === 'assistant') turns.push({ role: 'assistant' });
    else if (o.role === 'tool') turns.push({ role: 'tool', text: blocksText(o.content) });
    else if (o.role === 'user') turns.push({ role: 'user', text: blocksText(o.content) });
  }
  return turns;
}

function geminiTurns(body: Json): Turn[] {
  const turns: Turn[] = [];
  for (const c of list(body.contents)) {
    const o = rec(c);
    if (!o) continue;
    if (o.role === 'model') {
      turns.push({ role: 'assistant' });
      continue;
    }
    const words: string[] = [];
    for (const p of list(o.parts)) {
      const part = rec(p);
      const response = rec(part?.functionResponse);
      if (response) turns.push({ role: 'tool', text: text(response.response) });
      else if (typeof part?.text === 'string') words.push(part.text);
    }
    if (words.length) turns.push({ role: 'user', text: words.join('\n') });
  }
  return turns;
}

function offered(api: Api, body: Json): OfferedTool[] {
  const out: OfferedTool[] = [];
  for (const t of list(body.tools)) {
    const o = rec(t);
    if (!o) continue;
    if (api === 'anthropic' && typeof o.name === 'string')
      out.push({ name: o.name, schema: rec(o.input_schema) });
    else if (api === 'responses' && typeof o.name === 'string')
      out.push({ name: o.name, schema: rec(o.parameters) });
    else if (api === 'chat') {
      const f = rec(o.function);
      if (typeof f?.name === 'string') out.push({ name: f.name, schema: rec(f.parameters) });
    } else if (api === 'gemini') {
      for (const d of list(o.functionDeclarations)) {
        const fd = rec(d);
        if (typeof fd?.name === 'string')
          out.push({ name: fd.name, schema: rec(fd.parametersJsonSchema) ?? rec(fd.parameters) });
      }
    }
  }
  return out;
}

export function parseRequest(api: Api, body: Json, pathModel: string | null, pathStream: boolean): Parsed {
  const turns =
    api === 'anthropic'
      ? anthropicTurns(body)
      : api === 'responses'
        ? responsesTurns(body)
        : api === 'chat'
          ? chatTurns(body)
          : geminiTurns(body);
  return {
    model: pathModel ?? (typeof body.model === 'string' ? body.model : 'unknown'),
    stream: api === 'gemini' ? pathStream : body.stream === true || api === 'responses',
    turns,
    tools: offered(api, body),
  };
}

/** The shell tools the agents offer, by the names they give them, most specific first. */
const SHELL_TOOLS = ['Bash', 'exec_command', 'shell', 'run_shell_command', 'bash', 'shell_command'];

/** The agent's shell tool, and its arguments for a command, shaped by the tool's own schema. */
export function shellCall(tools: readonly OfferedTool[], command: string): Omit<SentCall, 'id'> | null {
  const tool = SHELL_TOOLS.map((n) => tools.find((t) => t.name === n)).find((t) => t !== undefined);
  if (!tool) return null;
  const props = rec(tool.schema?.properties) ?? {};
  const args: Record<string, unknown> = {};
  if ('cmd' in props) args.cmd = command;
  else if (rec(props.command)?.type === 'array') args.command = ['bash', '-lc', command];
  else args.command = command;
  for (const name of list(tool.schema?.required)) {
    if (typeof name !== 'string' || name in args) continue;
    const type = rec(props[name])?.type;
    args[name] = type === 'boolean' ? false : type === 'number' || type === 'integer' ? 30 : `lab ${name}`;
  }
  if ('description' in props && !('description' in args)) args.description = 'Run a lab command';
  return { name: tool.name, args };
}

// --- writing responses -----------------------------------------------------------------------

export interface Reply {
  status: number;
  contentType: string;
  /** Chunks written in order; SSE replies flush each. */
  chunks: string[];
}

const sse = (event: string | null, data: unknown): string =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

export function anthropicReply(
  p: Parsed,
  id: string,
  answer: string | null,
  calls: SentCall[],
  f: Figures,
): Reply {
  const usage = {
    input_tokens: f.input,
    cache_creation_input_tokens: f.cacheWrite ?? 0,
    cache_read_input_tokens: f.cacheRead,
    output_tokens: f.output,
  };
  const content: Json[] = [];
  if (answer !== null) content.push({ type: 'text', text: answer });
  for (const c of calls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.args });
  const stop = calls.length ? 'tool_use' : 'end_turn';
  if (!p.stream) {
    const message = { id, type: 'message', role: 'assistant', model: p.model, content, stop_reason: stop };
    return {
      status: 200,
      contentType: 'application/json',
      chunks: [JSON.stringify({ ...message, stop_sequence: null, usage })],
    };
  }
  const chunks = [
    sse('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: p.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
  ];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      chunks.push(
        sse('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'text', text: '' },
        }),
      );
      chunks.push(
        sse('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text: block.text },
        }),
      );
    } else {
      const start = { ...block, input: {} };
      chunks.push(sse('content_block_start', { type: 'content_block_start', index, content_block: start }));
      const partial = JSON.stringify(block.input);
      chunks.push(
        sse('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: partial },
        }),
      );
    }
    chunks.push(sse('content_block_stop', { type: 'content_block_stop', index }));
  });
  chunks.push(
    sse('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage }),
    sse('message_stop', { type: 'message_stop' }),
  );
  return { status: 200, contentType: 'text/event-stream', chunks };
}

export function responsesReply(
  p: Parsed,
  id: string,
  answer: string | null,
  calls: SentCall[],
  f: Figures,
): Reply {
  const output: Json[] = [];
  if (answer !== null)
    output.push({
      type: 'message',
      id: `msg_${id}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: answer, annotations: [] }],
    });
  for (const c of calls)
    output.push({
      type: 'function_call',
      id: `fc_${c.id}`,
      call_id: c.id,
      name: c.name,
      arguments: JSON.stringify(c.args),
      status: 'completed',
    });
  const usage = {
    input_tokens: f.input + f.cacheRead,
    input_tokens_details: { cached_tokens: f.cacheRead },
    output_tokens: f.output,
    output_tokens_details: { reasoning_tokens: f.reasoning ?? 0 },
    total_tokens: f.input + f.cacheRead + f.output,
  };
  const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: p.model };
  const chunks = [
    sse('response.created', {
      type: 'response.created',
      response: { ...response, status: 'in_progress', output: [] },
    }),
  ];
  output.forEach((item, output_index) => {
    chunks.push(
      sse('response.output_item.added', { type: 'response.output_item.added', output_index, item }),
    );
    if (item.type === 'message')
      chunks.push(
        sse('response.output_text.delta', {
          type: 'response.output_text.delta',
          item_id: item.id,
          output_index,
          content_index: 0,
          delta: answer,
        }),
      );
    chunks.push(sse('response.output_item.done', { type: 'response.output_item.done', output_index, item }));
  });
  chunks.push(
    sse('response.completed', {
      type: 'response.completed',
      response: { ...response, status: 'completed', output, usage },
    }),
  );
  return { status: 200, contentType: 'text/event-stream', chunks };
}

export function chatReply(
  p: Parsed,
  id: string,
  answer: string | null,
  calls: SentCall[],
  f: Figures,
): Reply {
  const usage = {
    prompt_tokens: f.input + f.cacheRead,
    completion_tokens: f.output,
    total_tokens: f.input + f.cacheRead + f.output,
    prompt_tokens_details: { cached_tokens: f.cacheRead },
    completion_tokens_details: { reasoning_tokens: f.reasoning ?? 0 },
  };
  const created = Math.floor(Date.now() / 1000);
  const toolCalls = calls.map((c, index) => ({
    index,
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: JSON.stringify(c.args) },
  }));
  const finish = calls.length ? 'tool_calls' : 'stop';
  if (!p.stream) {
    const message: Json = { role: 'assistant', content: answer };
    if (calls.length) message.tool_calls = toolCalls.map(({ index: _i, ...t }) => t);
    const body = {
      id,
      object: 'chat.completion',
      created,
      model: p.model,
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    };
    return { status: 200, contentType: 'application/json', chunks: [JSON.stringify(body)] };
  }
  const chunk = (delta: Json, finish_reason: string | null) =>
    sse(null, {
      id,
      object: 'chat.completion.chunk',
      created,
      model: p.model,
      choices: [{ index: 0, delta, finish_reason }],
    });
  const chunks = [chunk({ role: 'assistant', content: '' }, null)];
  if (answer !== null) chunks.push(chunk({ content: answer }, null));
  for (const t of toolCalls) {
    const { arguments: args, name } = t.function;
    chunks.push(
      chunk(
        { tool_calls: [{ index: t.index, id: t.id, type: 'function', function: { name, arguments: '' } }] },
        null,
      ),
    );
    chunks.push(chunk({ tool_calls: [{ index: t.index, function: { arguments: args } }] }, null));
  }
  chunks.push(chunk({}, finish));
  chunks.push(
    sse(null, { id, object: 'chat.completion.chunk', created, model: p.model, choices: [], usage }),
  );
  chunks.push('data: [DONE]\n\n');
  return { status: 200, contentType: 'text/event-stream', chunks };
}

export function geminiReply(p: Parsed, answer: string | null, calls: SentCall[], f: Figures): Reply {
  const parts: Json[] = [];
  if (answer !== null) parts.push({ text: answer });
  for (const c of calls) parts.push({ functionCall: { id: c.id, name: c.name, args: c.args } });
  const thoughts = f.reasoning ?? 0;
  const body = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: f.input + f.cacheRead,
      cachedContentTokenCount: f.cacheRead,
      candidatesTokenCount: f.output - thoughts,
      thoughtsTokenCount: thoughts,
      totalTokenCount: f.input + f.cacheRead + f.output,
    },
    modelVersion: p.model,
  };
  if (!p.stream) return { status: 200, contentType: 'application/json', chunks: [JSON.stringify(body)] };
  return { status: 200, contentType: 'text/event-stream', chunks: [sse(null, body)] };
}

/** What a step says and calls, with the server's ids for the calls. */
export function stepContent(
  step: Step,
  tools: readonly OfferedTool[],
  nextId: () => string,
): { answer: string | null; calls: SentCall[] } {
  switch (step.kind) {
    case 'answer':
    case 'held':
      return { answer: step.text, calls: [] };
    case 'calls': {
      const calls: SentCall[] = [];
      for (const c of step.calls) {
        const call = shellCall(tools, c.command);
        if (call) calls.push({ id: nextId(), ...call });
      }
      // An agent that offers no shell tool gets an answer saying so, not an empty response.
      if (!calls.length) return { answer: 'The lab found no shell tool to call.', calls };
      return { answer: step.text ?? null, calls };
    }
  }
}
