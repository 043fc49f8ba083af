/**
 * The part of a Qwen Code chat record that session facts need, and how to read it from a parsed line.
 *
 * Qwen Code forked Gemini CLI but records chats its own way (0.18 and later): Claude-like lines with
 * `uuid`/`parentUuid`, `sessionId`, `timestamp`, `cwd` and a `type` of `user`, `assistant`,
 * `tool_result` or `system`; messages carry Gemini-style `parts` (`text`, `functionCall`,
 * `functionResponse`); an assistant line carries the request's `usageMetadata`; a tool result says
 * how the call ended in `toolCallResult.status`. `system` lines are bookkeeping (`ui_telemetry`
 * repeats each request's usage and must not be counted again, `attribution_snapshot`, …).
 */
import { arr, count, isoMs, type JsonObject, obj, str, text } from '../../model/json.js';
import { objectLine } from '../skim.js';

/** A prompt is kept to its first characters: it names the session, nothing more. */
export const MAX_PROMPT_CHARS = 4096;

export interface QwenUsage {
  /** The whole prompt, cached part included (`promptTokenCount`). */
  prompt: number;
  candidates: number;
  thoughts: number;
  cached: number;
  total: number | null;
}

export interface QwenLine {
  type: string | null;
  subtype: string | null;
  uuid: string | null;
  sessionId: string | null;
  ms: number | null;
  cwd: string | null;
  model: string | null;
  usage: QwenUsage | null;
  /** `functionCall` parts of an assistant message: `[call id, tool name]`. */
  calls: [string | null, string][];
  /**
   * How a tool call ended (`tool_result` lines): failed, or cancelled (the person refused it, or
   * stopped the turn while it waited or ran).
   */
  result: { callId: string | null; failed: boolean; cancelled: boolean } | null;
  /** The user's words (a `user` line). */
  prompt: string | null;
  /** Whether an assistant message says anything besides calling tools. */
  hasText: boolean;
}

function usageFrom(v: unknown): QwenUsage | null {
  const u = obj(v);
  if (!u) return null;
  const prompt = count(u.promptTokenCount);
  const candidates = count(u.candidatesTokenCount);
  if (prompt === null && candidates === null) return null;
  return {
    prompt: prompt ?? 0,
    candidates: candidates ?? 0,
    thoughts: count(u.thoughtsTokenCount) ?? 0,
    cached: count(u.cachedContentTokenCount) ?? 0,
    total: count(u.totalTokenCount),
  };
}

export function lineFromJson(o: JsonObject): QwenLine {
  const type = str(o.type);
  const message = obj(o.message);
  const parts = (arr(message?.parts) ?? []).map(obj).filter((p): p is JsonObject => p !== null);
  const line: QwenLine = {
    type,
    subtype: str(o.subtype),
    uuid: text(o.uuid),
    sessionId: text(o.sessionId),
    ms: isoMs(o.timestamp),
    cwd: text(o.cwd),
    model: text(o.model),
    usage: null,
    calls: [],
    result: null,
    prompt: null,
    hasText: false,
  };
  switch (type) {
    case 'assistant':
      line.usage = usageFrom(o.usageMetadata);
      for (const p of parts) {
        const call = obj(p.functionCall);
        const name = call ? text(call.name) : null;
        if (call && name) line.calls.push([text(call.id), name]);
        else if (p.thought !== true && typeof p.text === 'string' && p.text.trim().length > 0) {
          line.hasText = true;
        }
      }
      break;
    case 'user': {
      let words = '';
      for (const p of parts) {
        if (typeof p.text === 'string') words += p.text;
        if (words.length >= MAX_PROMPT_CHARS) break;
      }
      line.prompt = words.length > 0 ? words.slice(0, MAX_PROMPT_CHARS) : null;
      break;
    }
    case 'tool_result': {
      const r = obj(o.toolCallResult);
      const status = str(r?.status);
      const response = parts.map((p) => obj(p.functionResponse)).find((x) => x !== null);
      line.result = {
        callId: text(r?.callId) ?? text(response?.id),
        failed: status === 'error' || (status === null && obj(response?.response)?.error !== undefined),
        cancelled: status === 'cancelled',
      };
      break;
    }
    default:
      break;
  }
  return line;
}

/** A line from its bytes: parsed whole (there is no byte-level extractor for Qwen Code). */
export function lineFromBytes(b: Buffer, s: number, e: number): QwenLine {
  return lineFromJson(objectLine(b, s, e));
}
