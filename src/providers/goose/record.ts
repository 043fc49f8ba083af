/**
 * The parts of a Goose session that facts need: its `sessions` row and its `messages` rows.
 *
 * A session row holds `name` (its title), `working_dir`, `created_at` and `updated_at`,
 * `provider_name`, `model_config_json` (the model in `model_name`), the newest request's
 * `input_tokens`, `output_tokens` and `total_tokens`, and the session's running sums of the same,
 * `accumulated_*`. Goose keeps no split of cached input. A message row has a `role`, a
 * `created_timestamp` (epoch seconds) and `content_json`: a list of `text`, `toolRequest` (`id`,
 * `toolCall.value.name` and `.arguments`) and `toolResponse` (`id`, `toolResult.status`: `success`
 * or `error`, and its `value`) items.
 */
import { arr, count, type JsonObject, obj, parseJson, str, text } from '../../model/json.js';
import { gooseMs } from './place.js';

export interface GooseSession {
  id: string;
  title: string | null;
  cwd: string | null;
  model: string | null;
  createdMs: number | null;
  updatedMs: number | null;
  /** The session's sums; the newest request's figures stand in where Goose kept no sums. */
  input: number;
  output: number;
  total: number;
  /** The newest request's prompt, for the context reading. */
  lastInput: number | null;
}

export type GooseItem =
  | { kind: 'text'; text: string }
  | { kind: 'call'; id: string | null; name: string; args: unknown }
  | { kind: 'result'; id: string | null; failed: boolean; text: string }
  | { kind: 'other' };

export interface GooseMessage {
  role: string | null;
  ms: number | null;
  items: GooseItem[];
}

const positive = (v: unknown): number | null => {
  const c = count(v);
  return c !== null && c > 0 ? Math.floor(c) : null;
};

export function sessionFrom(row: JsonObject): GooseSession | null {
  const id = text(row.id);
  if (id === null) return null;
  const config = typeof row.model_config_json === 'string' ? obj(parseJson(row.model_config_json)) : null;
  const input = positive(row.accumulated_input_tokens) ?? positive(row.input_tokens) ?? 0;
  const output = positive(row.accumulated_output_tokens) ?? positive(row.output_tokens) ?? 0;
  return {
    id,
    title: text(str(row.name)?.trim()) ?? text(str(row.description)?.trim()),
    cwd: text(row.working_dir),
    model: text(str(config?.model_name)?.trim()),
    createdMs: gooseMs(row.created_at),
    updatedMs: gooseMs(row.updated_at),
    input,
    output,
    total: positive(row.accumulated_total_tokens) ?? positive(row.total_tokens) ?? input + output,
    lastInput: positive(row.input_tokens),
  };
}

/** A tool's answer as text: its content items' text, joined. */
function resultText(value: unknown): string {
  if (typeof value === 'string') return value;
  let out = '';
  for (const v of arr(value) ?? []) {
    const t = obj(v)?.text;
    if (typeof t === 'string') out += (out.length > 0 ? '\n' : '') + t;
  }
  return out;
}

function itemOf(v: unknown): GooseItem {
  const i = obj(v);
  switch (str(i?.type)) {
    case 'text':
      return { kind: 'text', text: str(i?.text) ?? '' };
    case 'toolRequest': {
      const value = obj(obj(i?.toolCall)?.value);
      const name = text(value?.name);
      return name === null
        ? { kind: 'other' }
        : { kind: 'call', id: text(i?.id), name, args: value?.arguments ?? null };
    }
    case 'toolResponse': {
      const r = obj(i?.toolResult);
      return {
        kind: 'result',
        id: text(i?.id),
        failed: str(r?.status) === 'error',
        text: resultText(r?.value ?? r?.error),
      };
    }
    default:
      return { kind: 'other' };
  }
}

export function messageFrom(row: JsonObject): GooseMessage {
  const content = typeof row.content_json === 'string' ? parseJson(row.content_json) : null;
  return { role: str(row.role), ms: gooseMs(row.created_timestamp), items: (arr(content) ?? []).map(itemOf) };
}
