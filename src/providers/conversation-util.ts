/**
 * Pieces every conversation reader shares: reading a transcript's objects one by one in bounded
 * memory, and turning a tool result of any shape into bounded text.
 */

import { joinText, resultText } from '../model/conversation.js';
import { arr, type JsonObject, obj, parseObject, str } from '../model/json.js';
import { scanLines } from './jsonl.js';

/** Feed every JSON object of a JSONL file to `each`; returns how many lines were not objects. */
export function eachObject(path: string, each: (o: JsonObject) => void): number {
  let bad = 0;
  scanLines(path, 0, (buf, s, e, unterminated) => {
    const o = parseObject(buf.toString('utf8', s, e));
    if (o === null) {
      if (!unterminated) bad++;
      return false;
    }
    each(o);
    return true;
  });
  return bad;
}

/** A tool result's content, whatever shape it arrived in, as bounded text. */
export function flattenContent(content: unknown): string {
  let out = '';
  if (typeof content === 'string') out = content;
  else if (Array.isArray(content)) {
    for (const block of content) {
      if (typeof block === 'string') out = joinText(out, block);
      else {
        const b = obj(block);
        const t = str(b?.text);
        if (t !== null) out = joinText(out, t);
        // An image is megabytes of base64 nobody reads here, but it is not an empty result either.
        else if (b?.type === 'image' || b?.type === 'input_image') out = joinText(out, '[image]');
      }
    }
  } else if (obj(content)) {
    const o = obj(content)!;
    for (const key of ['content', 'output', 'stdout', 'text']) {
      const t = str(o[key]);
      if (t !== null) out = joinText(out, t);
    }
    if (out.length === 0) out = JSON.stringify(o);
  } else if (content !== undefined && content !== null) out = JSON.stringify(content);
  return resultText(out);
}

export const blocksOf = (content: unknown): JsonObject[] =>
  (arr(content) ?? []).map(obj).filter((b): b is JsonObject => b !== null);
