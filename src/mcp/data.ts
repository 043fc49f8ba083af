/**
 * What a tool of cctop's MCP server hands back to the agent that called it: JSON data, bounded in
 * size, with every string made safe. Titles, paths, prompts and tool arguments come from transcripts
 * that other agents wrote while reading untrusted pages and repositories; the calling agent reads the
 * result into its context, so it gets them as values inside a JSON document (and as structured
 * content), never as prose of cctop's, and each tool's description says they are data, not
 * instructions. Control characters, escape sequences and invisible formatting characters (bidi
 * overrides, tag characters) become one visible mark (`MARK`), as on a terminal.
 *
 * Not here: deciding what goes into a result (each tool's module).
 */
import { safeText } from '../views/terminal-text.js';

/**
 * The most one tool result may hold, as JSON bytes. Claude Code warns past 10,000 tokens of tool
 * output (about 40 KB) and cuts at 25,000; a list of sessions or a report in brief needs a few KB, so
 * 32 KiB (about 8,000 tokens) keeps a long answer under the warning and a small share of the calling
 * agent's context. Past it, a result's list is cut and says how many it left out.
 */
export const MAX_RESULT_BYTES = 32 * 1024;

/**
 * The longest one string in a result (a title, a path, a failure's detail), in UTF-16 units. A title
 * is a prompt's first line; a path is a few hundred characters at most. A longer string is cut and
 * ends in `…`.
 */
export const MAX_FIELD_CHARS = 500;

/** A string as a result holds it: made safe, and cut at `max`. */
export function safeString(s: string, max = MAX_FIELD_CHARS): string {
  const safe = safeText(s);
  return safe.length > max ? `${safe.slice(0, max - 1)}…` : safe;
}

/** `value` with every string (keys included) made safe and cut; `value` is cctop's own, acyclic. */
export function asData(value: unknown): unknown {
  if (typeof value === 'string') return safeString(value);
  if (Array.isArray(value)) return value.map(asData);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[safeString(k)] = asData(v);
    return out;
  }
  return value;
}

const bytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v), 'utf8');

/**
 * `head` with `items` under `key`, as many of them as fit in `MAX_RESULT_BYTES` (in order: callers
 * put the most useful first), and `omitted`: how many did not fit, or were past `limit`.
 */
export function fitList<T>(
  head: Record<string, unknown>,
  key: string,
  items: readonly T[],
  limit = items.length,
): Record<string, unknown> {
  const safe = items.map(asData);
  const at = (n: number) => ({ ...head, [key]: safe.slice(0, n), omitted: items.length - n });
  let lo = 0;
  let hi = Math.min(limit, items.length);
  if (bytes(at(hi)) <= MAX_RESULT_BYTES) return at(hi);
  // The largest count that fits: sizes grow with the count, so a binary search finds it.
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (bytes(at(mid)) <= MAX_RESULT_BYTES) lo = mid;
    else hi = mid - 1;
  }
  return at(lo);
}

/** An MCP tool result: the data as JSON text and as structured content. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A successful result holding `data` (made safe here). */
export function dataResult(data: Record<string, unknown>): ToolResult {
  const safe = asData(data) as Record<string, unknown>;
  return { content: [{ type: 'text', text: JSON.stringify(safe) }], structuredContent: safe };
}

/** A result that says the call could not be answered, and what to do about it. */
export function errorResult(message: string): ToolResult {
  return { content: [{ type: 'text', text: safeString(message, MAX_RESULT_BYTES) }], isError: true };
}
