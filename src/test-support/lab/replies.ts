/**
 * The lab's answers in each model API's own wire format (SSE events or one JSON body), with usage
 * figures in that API's own terms (`Figures` are cctop's; each writer turns them into what its API
 * reports, e.g. OpenAI and Gemini count the cached part inside the prompt).
 */
import {
  type Figures,
  type Json,
  type OfferedTool,
  type Parsed,
  type SentCall,
  shellCall,
} from './requests.js';
import type { Step } from './scripts.js';

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
    case 'tool': {
      const { name, args } = step.call;
      // An agent that does not offer the tool (its server did not start) gets an answer saying so.
      if (!tools.some((t) => t.name === name))
        return { answer: `The lab found no tool named ${name}.`, calls: [] };
      return { answer: step.text ?? null, calls: [{ id: nextId(), name, args }] };
    }
  }
}
