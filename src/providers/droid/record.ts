/**
 * The parts of a Droid session that facts need: its settings file and the records of the
 * conversation beside it.
 *
 * `<id>.settings.json` holds the session's `model` (Droid's own spelling: a bring-your-own model is
 * `custom:<Name>-[<Provider>]-<n>`), `providerLock` and `providerLockTimestamp` (the provider the
 * session is bound to, and since when), `reasoningEffort`, `autonomyLevel`, and `tokenUsage`: the
 * session's running totals (`inputTokens`, `outputTokens`, `cacheCreationTokens`,
 * `cacheReadTokens`, `thinkingTokens`), not one figure per request. `<id>.jsonl` opens with a
 * `session_start` record (`id`, `title`, `sessionTitle`, `cwd`), then `message` records (`id`,
 * `timestamp`, and an Anthropic-style `message`: `role` and `content` blocks of `text`, `thinking`,
 * `tool_use` with `id` and `name`, and in a user message `tool_result` with `tool_use_id` and
 * `is_error`).
 */
import { arr, count, isoMs, type JsonObject, obj, str, text } from '../../model/json.js';

/** A prompt is kept to its first characters: it names the session, nothing more. */
export const MAX_PROMPT_CHARS = 4096;

export interface DroidUsage {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
  thinking: number;
  /** `totalTokens`, where the settings give one. */
  total: number | null;
}

export interface DroidSettings {
  model: string | null;
  provider: string | null;
  lockedMs: number | null;
  reasoningEffort: string | null;
  autonomy: string | null;
  usage: DroidUsage | null;
}

/**
 * A model as Droid names it, in the spelling price catalogues use: `custom:` and bracketed provider
 * names dropped, lower case, dots and spaces as dashes (`custom:Claude-Opus-4.5-[Anthropic]` is
 * `claude-opus-4-5`).
 */
export function modelName(raw: string): string {
  let s = raw.startsWith('custom:') ? raw.slice('custom:'.length) : raw;
  let depth = 0;
  let kept = '';
  for (const ch of s) {
    if (ch === '[') depth++;
    else if (ch === ']') depth = Math.max(0, depth - 1);
    else if (depth === 0) kept += ch;
  }
  s = kept
    .trim()
    .toLowerCase()
    .replace(/[.\s-]+/g, '-');
  return s.replace(/^-+|-+$/g, '');
}

export function settingsFrom(o: JsonObject): DroidSettings {
  const u = obj(o.tokenUsage);
  const model = text(str(o.model)?.trim());
  return {
    model: model === null ? null : modelName(model) || null,
    provider: text(str(o.providerLock)?.trim()),
    lockedMs: isoMs(o.providerLockTimestamp),
    reasoningEffort: text(o.reasoningEffort),
    autonomy: text(o.autonomyLevel),
    usage:
      u === null
        ? null
        : {
            input: count(u.inputTokens) ?? 0,
            output: count(u.outputTokens) ?? 0,
            cacheWrite: count(u.cacheCreationTokens) ?? 0,
            cacheRead: count(u.cacheReadTokens) ?? 0,
            thinking: count(u.thinkingTokens) ?? 0,
            total: count(u.totalTokens),
          },
  };
}

export type DroidBlock =
  | { kind: 'text'; text: string }
  | { kind: 'call'; id: string | null; name: string }
  | { kind: 'result'; callId: string | null; failed: boolean }
  | { kind: 'other' };

export type DroidRecord =
  | { kind: 'start'; id: string | null; title: string | null; cwd: string | null }
  | { kind: 'message'; role: string | null; ms: number | null; blocks: DroidBlock[] }
  | { kind: 'other' };

function blockOf(v: unknown): DroidBlock {
  const b = obj(v);
  switch (str(b?.type)) {
    case 'text':
      return { kind: 'text', text: str(b?.text) ?? '' };
    case 'tool_use': {
      const name = text(b?.name);
      return name === null ? { kind: 'other' } : { kind: 'call', id: text(b?.id), name };
    }
    case 'tool_result':
      return { kind: 'result', callId: text(b?.tool_use_id), failed: b?.is_error === true };
    default:
      return { kind: 'other' };
  }
}

export function recordFrom(o: JsonObject): DroidRecord {
  switch (str(o.type)) {
    case 'session_start':
      return {
        kind: 'start',
        id: text(o.id),
        title: text(o.sessionTitle) ?? text(o.title),
        cwd: text(o.cwd),
      };
    case 'message': {
      const m = obj(o.message);
      const content = m?.content;
      const blocks: DroidBlock[] =
        typeof content === 'string' ? [{ kind: 'text', text: content }] : (arr(content) ?? []).map(blockOf);
      return { kind: 'message', role: str(m?.role), ms: isoMs(o.timestamp), blocks };
    }
    default:
      return { kind: 'other' };
  }
}
