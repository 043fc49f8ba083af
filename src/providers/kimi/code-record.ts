/**
 * The part of a Kimi Code line that session facts need. Kimi Code (`@moonshot-ai/kimi-code`, the
 * TypeScript successor of Kimi CLI) keeps each agent of a session in its own
 * `sessions/<bucket>/session_<id>/agents/<agent>/wire.jsonl` under `$KIMI_CODE_HOME` or
 * `~/.kimi-code`: a `metadata` header, then one record per line, `{type, time (milliseconds), …}`.
 * The records read here: `usage.record` (one model request: `model`, and `usage` in camelCase,
 * `inputOther` uncached input, `output`, `inputCacheRead`, `inputCacheCreation`; `usageScope` says
 * whether a turn's step or a compaction made it, and both were paid for) and `turn.prompt` / `turn.steer`
 * (the person's `input`, content parts). Read into Kimi CLI's lines (`record.ts`), so one parser
 * bills both.
 *
 * Not read: the conversation (`context.append_message`), which cctop does not show for Kimi Code yet.
 */
import { count, type JsonObject, num, obj, str, text } from '../../model/json.js';
import { objectLine } from '../skim.js';
import { type KimiLine, promptWords } from './record.js';

/** A model Kimi Code names by a placeholder (`__kimi_env_model__`) says nothing of the model. */
const SYMBOLIC = /^__.+__$/;

/** The model a usage record names, without Kimi Code's own provider prefix; null for a placeholder. */
export function codeModel(v: unknown): string | null {
  const m =
    text(v)
      ?.replace(/^kimi-code\//, '')
      .trim() ?? null;
  return m === null || m.length === 0 || SYMBOLIC.test(m) ? null : m;
}

export function codeLineFromJson(o: JsonObject): KimiLine {
  const t = num(o.time);
  const ms = t !== null && t > 0 ? t : null;
  switch (str(o.type)) {
    case 'turn.prompt':
    case 'turn.steer':
      return { kind: 'turn', ms, text: promptWords(o.input) };
    case 'usage.record': {
      const u = obj(o.usage);
      if (u === null) return { kind: 'other', ms };
      const usage = {
        input: count(u.inputOther) ?? 0,
        output: count(u.output) ?? 0,
        cacheRead: count(u.inputCacheRead) ?? 0,
        cacheWrite: count(u.inputCacheCreation) ?? 0,
        totalOnly: false,
      };
      if (usage.input + usage.output + usage.cacheRead + usage.cacheWrite === 0) return { kind: 'other', ms };
      return { kind: 'usage', ms, messageId: null, model: codeModel(o.model), usage };
    }
    default:
      return { kind: 'other', ms };
  }
}

/** A line from its bytes: parsed whole. */
export function codeLineFromBytes(b: Buffer, s: number, e: number): KimiLine {
  return codeLineFromJson(objectLine(b, s, e));
}
