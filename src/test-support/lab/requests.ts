/**
 * The four model APIs the agent CLIs speak, read as far as the lab needs: a request's conversation as
 * turns, the tools it offers, and the agent's shell tool with arguments shaped by its own schema.
 * Writing the answers back is `replies.ts`.
 *
 * It does not validate requests: an agent that sends something odd gets the script's answer anyway,
 * and the conformance tests judge what it wrote down.
 */
import type { Turn } from './scripts.js';

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

export type Json = Record<string, unknown>;
export const rec = (v: unknown): Json | null =>
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

/** The shell tools the agents offer, by the names they give them, most specific first (OpenClaw's is `exec`). */
const SHELL_TOOLS = ['Bash', 'exec_command', 'shell', 'run_shell_command', 'bash', 'shell_command', 'exec'];

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
