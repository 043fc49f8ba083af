/**
 * The part of a Codebuff chat that session facts need. A chat is one JSON array of messages,
 * rewritten as it grows. A message has a `variant` (or `role`): `user`, or `ai` / `agent` /
 * `assistant` for a response; its text in `content` (or `text`); a time in `timestamp` or
 * `createdAt` (ISO, or epoch seconds or milliseconds); an `id`; and on a response the request's
 * figures in `metadata`: `model`, and `usage` either in Anthropic's words (`inputTokens`,
 * `outputTokens`, `cacheCreationInputTokens`, `cacheReadInputTokens`) or in OpenAI's
 * (`prompt_tokens`, which includes `prompt_tokens_details.cached_tokens`, and
 * `completion_tokens`), or the same under `metadata.codebuff.usage`. A response whose metadata has
 * no usage may carry it in the agent's run state (`runState.sessionState.mainAgentState
 * .messageHistory[].providerOptions.codebuff`). These are the shapes ccusage reads; Codebuff does
 * not document its chat files.
 */
import { arr, count, isoMs, type JsonObject, num, obj, str, text } from '../../model/json.js';

/** A prompt is kept to its first characters: it names the session, nothing more. */
export const MAX_PROMPT_CHARS = 4096;

export interface CodebuffUsage {
  /** Uncached input. */
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
  /** Tokens of the total that none of the parts name. */
  unnamed: number;
}

export interface CodebuffMessage {
  role: 'user' | 'assistant' | 'other';
  id: string | null;
  ms: number | null;
  text: string;
  model: string | null;
  usage: CodebuffUsage | null;
}

/** The first of `keys` holding a count above zero. */
function pick(o: JsonObject, keys: readonly string[]): number {
  for (const k of keys) {
    const n = count(o[k]);
    if (n !== null && n > 0) return n;
  }
  return 0;
}

const ZERO: CodebuffUsage = { input: 0, output: 0, cacheWrite: 0, cacheRead: 0, unnamed: 0 };

/** A usage object in either vendor's words; all zero when it is not one. */
export function usageOf(v: unknown): CodebuffUsage {
  const u = obj(v);
  if (u === null) return ZERO;
  const anthropicInput = pick(u, ['inputTokens', 'input_tokens']);
  const openaiInput = pick(u, ['promptTokens', 'prompt_tokens']);
  const cached = Math.max(
    pick(u, ['cacheReadInputTokens', 'cache_read_input_tokens']),
    pick(obj(u.promptTokensDetails) ?? {}, ['cachedTokens']),
    pick(obj(u.prompt_tokens_details) ?? {}, ['cached_tokens']),
  );
  // OpenAI's prompt count includes what was read from the cache; Anthropic's input does not.
  const input = anthropicInput > 0 ? anthropicInput : Math.max(0, openaiInput - cached);
  const output = pick(u, ['outputTokens', 'output_tokens', 'completionTokens', 'completion_tokens']);
  const cacheWrite = pick(u, [
    'cacheCreationInputTokens',
    'cache_creation_input_tokens',
    'cacheCreationTokens',
    'cache_creation_tokens',
    'cachedTokensCreated',
    'cached_tokens_created',
  ]);
  const total = pick(u, ['totalTokens', 'total_tokens', 'total']);
  const named = input + output + cacheWrite + cached;
  const rest = total > named ? total - named : 0;
  // A total with no parts is all output (what else it was is unknown).
  return named === 0
    ? { input: 0, output: rest, cacheWrite: 0, cacheRead: 0, unnamed: 0 }
    : { input, output, cacheWrite, cacheRead: cached, unnamed: rest };
}

const said = (u: CodebuffUsage): boolean =>
  u.input > 0 || u.output > 0 || u.cacheWrite > 0 || u.cacheRead > 0 || u.unnamed > 0;

/** Each field from the first usage (in the order given) that has it. */
function firstOfEach(list: readonly CodebuffUsage[]): CodebuffUsage {
  const first = (f: keyof CodebuffUsage) => list.find((u) => u[f] > 0)?.[f] ?? 0;
  return {
    input: first('input'),
    output: first('output'),
    cacheWrite: first('cacheWrite'),
    cacheRead: first('cacheRead'),
    unnamed: first('unnamed'),
  };
}

/** The run state's usage and model, the newest assistant entry first. */
function runStateUsage(metadata: JsonObject): { usage: CodebuffUsage; model: string | null } | null {
  const history = arr(obj(obj(obj(metadata.runState)?.sessionState)?.mainAgentState)?.messageHistory);
  if (history === null) return null;
  const usages: CodebuffUsage[] = [];
  let model: string | null = null;
  let found = false;
  for (let i = history.length - 1; i >= 0; i--) {
    const e = obj(history[i]);
    const options = obj(e?.providerOptions);
    if (e === null || str(e.role) !== 'assistant' || options === null) continue;
    const codebuff = obj(options.codebuff);
    const u = firstOfEach([usageOf(options.usage), usageOf(codebuff?.usage)]);
    const m = text(codebuff?.model);
    if (said(u) || m !== null) found = true;
    usages.push(u);
    model ??= m;
  }
  return found ? { usage: firstOfEach(usages), model } : null;
}

/** An ISO time, or epoch seconds or milliseconds. */
function timeOf(v: unknown): number | null {
  const n = num(v);
  if (n !== null) return n <= 0 ? null : n < 10_000_000_000 ? n * 1000 : n;
  return isoMs(v);
}

function textOf(m: JsonObject): string {
  const c = m.content ?? m.text;
  if (typeof c === 'string') return c;
  let out = '';
  for (const b of arr(c) ?? []) {
    const t = obj(b)?.text;
    if (typeof t === 'string') out += t;
    if (out.length >= MAX_PROMPT_CHARS) break;
  }
  return out;
}

export function messageFrom(v: unknown): CodebuffMessage | null {
  const m = obj(v);
  if (m === null) return null;
  const kind = str(m.variant) ?? str(m.role);
  const role =
    kind === 'user'
      ? 'user'
      : kind === 'ai' || kind === 'agent' || kind === 'assistant'
        ? 'assistant'
        : 'other';
  const metadata = obj(m.metadata);
  let usage: CodebuffUsage | null = null;
  let model = text(str(metadata?.model)?.trim());
  if (role === 'assistant' && metadata !== null) {
    const fromRun = runStateUsage(metadata);
    const u = firstOfEach([
      usageOf(metadata.usage),
      usageOf(obj(metadata.codebuff)?.usage),
      fromRun?.usage ?? ZERO,
    ]);
    model ??=
      text(obj(metadata.usage)?.model) ??
      text(obj(obj(metadata.codebuff)?.usage)?.model) ??
      fromRun?.model ??
      null;
    if (said(u)) usage = u;
  }
  return {
    role,
    id: text(str(m.id)?.trim()),
    ms: timeOf(m.timestamp) ?? timeOf(m.createdAt) ?? timeOf(metadata?.timestamp),
    text: textOf(m).slice(0, MAX_PROMPT_CHARS),
    model,
    usage,
  };
}

/** A chat id is the time it began, with the time's colons as dashes (`2026-01-02T03-04-05.000Z`). */
export function chatIdMs(chatId: string): number | null {
  const at = chatId.indexOf('T');
  if (at < 0) return null;
  const time = chatId
    .slice(at + 1)
    .replace('-', ':')
    .replace('-', ':');
  return isoMs(`${chatId.slice(0, at)}T${time}`);
}
