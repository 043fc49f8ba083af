/**
 * The part of a Cursor agent transcript line that session facts need.
 *
 * Cursor's agent transcripts are lines of `{role, message: {content: [...]}}` with Claude-style
 * blocks (`text`, `tool_use {name, input}`), the user's words wrapped in `<user_query>`. They carry
 * no model, no tokens, no timestamps and no tool outcomes: what a line can tell is who spoke and
 * which tools were called.
 */
import { arr, type JsonObject, obj, str, text } from '../../model/json.js';
import { objectLine } from '../skim.js';

/** A prompt is kept to its first characters: it names the session, nothing more. */
export const MAX_PROMPT_CHARS = 4096;

export interface CursorLine {
  role: string | null;
  /** Tool names called by an assistant line. */
  calls: string[];
  /** The user's words, without the `<user_query>` wrapper. */
  prompt: string | null;
  hasText: boolean;
  /** A `turn_ended` marker line. */
  turnEnded: boolean;
}

const QUERY = /<user_query>\s*([\s\S]*?)\s*(?:<\/user_query>|$)/;

export function lineFromJson(o: JsonObject): CursorLine {
  const role = str(o.role) ?? str(o.type);
  const line: CursorLine = { role, calls: [], prompt: null, hasText: false, turnEnded: false };
  if (role === 'turn_ended' || o.type === 'turn_ended') {
    line.turnEnded = true;
    return line;
  }
  const content = obj(o.message)?.content ?? o.content;
  const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : (arr(content) ?? []);
  let words = '';
  for (const b of blocks) {
    const block = obj(b);
    if (!block) continue;
    if (block.type === 'tool_use') {
      const name = text(block.name);
      if (name) line.calls.push(name);
    } else if (block.type === 'text' && typeof block.text === 'string') {
      if (block.text.trim().length > 0) line.hasText = true;
      if (words.length < MAX_PROMPT_CHARS) words += block.text;
    }
  }
  if (role === 'user' && words.length > 0) {
    const q = QUERY.exec(words);
    line.prompt = (q ? q[1]! : words).slice(0, MAX_PROMPT_CHARS);
  }
  return line;
}

/** A line from its bytes: parsed whole (there is no byte-level extractor for Cursor). */
export function lineFromBytes(b: Buffer, s: number, e: number): CursorLine {
  return lineFromJson(objectLine(b, s, e));
}
