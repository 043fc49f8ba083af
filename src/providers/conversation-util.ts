/**
 * Pieces every conversation reader shares: reading a transcript's objects one by one in bounded
 * memory, turning a tool result of any shape into bounded text, cutting long text before the sink
 * does, and counting a unified diff.
 */

import { type Delta, joinText, MAX_DIFF_LINES, resultText } from '../model/conversation.js';
import { arr, type JsonObject, obj, parseObjectAt, str } from '../model/json.js';
import { CUT_REACH } from '../secrets/cut.js';
import { scanLines } from './jsonl.js';

/**
 * Feed every JSON object of a JSONL file from byte `from` to `each`, with the offset of its line;
 * returns how many lines were not objects.
 */
export function eachObject(path: string, each: (o: JsonObject, at: number) => void, from = 0): number {
  let bad = 0;
  scanLines(path, from, (buf, s, e, unterminated, _index, at) => {
    const o = parseObjectAt(buf, s, e);
    if (o === null) {
      if (!unterminated) bad++;
      return false;
    }
    each(o, at);
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

/**
 * The head of a long text: enough UTF-16 units that the sink's own cut (in characters) still sees
 * it was long, and that a secret its bound falls inside can be kept whole (`CUT_REACH`), without
 * handing it megabytes to split into characters.
 */
export function head(s: string, maxChars: number): string {
  const room = 2 * maxChars + 2 + CUT_REACH;
  return s.length > room ? s.slice(0, room) : s;
}

const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

/**
 * Lines added and removed by a unified diff (the `fileDiff` Gemini CLI and its forks record, the
 * diff Copilot CLI shows for an edit). Each hunk header says how many old and new lines follow, so a
 * removed line that itself starts with `--` is not taken for a file header.
 */
export function unifiedDelta(diff: string): Delta | null {
  const delta: Delta = { added: 0, removed: 0, lines: [] };
  let oldLeft = 0;
  let newLeft = 0;
  const keep = (line: string) => {
    if (delta.lines.length < MAX_DIFF_LINES) delta.lines.push(line);
  };
  for (const line of diff.split('\n')) {
    if (oldLeft <= 0 && newLeft <= 0) {
      // Between hunks: file headers and prose, until the next hunk.
      const h = HUNK.exec(line);
      if (h === null) continue;
      oldLeft = h[1] === undefined ? 1 : Number(h[1]);
      newLeft = h[2] === undefined ? 1 : Number(h[2]);
      keep(line);
      continue;
    }
    if (line.startsWith('+')) {
      delta.added++;
      newLeft--;
    } else if (line.startsWith('-')) {
      delta.removed++;
      oldLeft--;
    } else if (line.startsWith(' ') || line.length === 0) {
      oldLeft--;
      newLeft--;
    } else continue; // `\ No newline at end of file`
    keep(line);
  }
  return delta.added > 0 || delta.removed > 0 ? delta : null;
}
