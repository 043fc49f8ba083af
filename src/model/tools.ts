/**
 * How a tool call reads in one line, across harnesses: the path a Read opened, the command a shell
 * ran, the pattern a search looked for, an MCP tool's name without its plumbing.
 */
import { cutOutside } from '../secrets/cut.js';
import { obj, str } from './json.js';
import { isPlanTool, planOf } from './tool-kinds.js';

/** The one-line form of an argument. */
export const MAX_DETAIL_CHARS = 200;

/** The full argument kept beside the one-liner (a Write's whole file is not worth a page). */
export const MAX_FULL_CHARS = 20_000;

/** `mcp__linear__list_issues` → `linear: list issues`; other names as they are. */
export function prettyToolName(name: string): string {
  const m = /^mcp__([^_]+(?:_[^_]+)*?)__(.+)$/.exec(name);
  if (!m) return name;
  return `${m[1]}: ${m[2]!.replace(/_/g, ' ')}`;
}

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  if (flat.length <= MAX_DETAIL_CHARS) return flat;
  // Past a secret the bound falls inside, so that the whole key is recognised and redacted (`secrets/cut.ts`).
  return `${flat.slice(0, cutOutside(flat, MAX_DETAIL_CHARS - 1))}…`;
}

function bounded(s: string): string {
  return s.length <= MAX_FULL_CHARS ? s : `${s.slice(0, cutOutside(s, MAX_FULL_CHARS))}…(clipped)`;
}

/** A shell command as the agent meant it: `["bash","-lc","ls"]` reads as `ls`. */
export function commandText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) {
    const parts = v as string[];
    if (parts.length === 3 && /(^|\/)(ba|z|)sh$/.test(parts[0]!) && /^-l?c$/.test(parts[1]!))
      return parts[2]!;
    return parts.join(' ');
  }
  return null;
}

const PATH_KEYS = ['file_path', 'path', 'notebook_path', 'filePath', 'absolute_path', 'target_file'];
const COMMAND_KEYS = ['command', 'cmd'];

/**
 * The one-line detail of a call and, when the argument says more than that line, the argument in
 * full (pretty JSON, or the raw text of a multi-line command).
 */
export function toolDetail(name: string, input: unknown): { detail: string; full: string | null } {
  const o = obj(input);
  if (o === null) {
    const raw =
      input === null || input === undefined ? '' : typeof input === 'string' ? input : JSON.stringify(input);
    const detail = oneLine(raw);
    return { detail, full: raw.length > 0 && detail !== raw ? bounded(raw) : null };
  }
  const lower = name.toLowerCase();
  let pick: string | null = null;
  if (lower === 'todowrite' && Array.isArray(o.todos)) pick = `${o.todos.length} todos`;
  else if (lower === 'update_plan' && Array.isArray(o.plan)) pick = `${o.plan.length} steps`;
  if (pick === null) for (const k of COMMAND_KEYS) pick ??= commandText(o[k]);
  if (pick === null) {
    const pattern = str(o.pattern) ?? str(o.query) ?? str(o.regex);
    if (pattern !== null) {
      const where = str(o.path) ?? str(o.glob) ?? str(o.include);
      pick = where ? `${pattern} in ${where}` : pattern;
    }
  }
  if (pick === null) for (const k of PATH_KEYS) pick ??= str(o[k]);
  pick ??= str(o.url) ?? str(o.description) ?? str(o.prompt);
  if (pick === null) {
    const first = Object.values(o).find((v) => typeof v === 'string');
    pick = typeof first === 'string' ? first : JSON.stringify(o);
  }
  const detail = oneLine(pick);
  const keys = Object.keys(o).filter((k) => o[k] !== undefined && o[k] !== null && o[k] !== '');
  // A plan's steps are what "3 todos" leaves out, and what a handoff brief reads back (`tool-kinds.ts`).
  const plan = isPlanTool(name) && planOf(o) !== null;
  const saysMore = keys.length > 1 || detail !== pick || plan;
  return {
    detail,
    full: saysMore ? bounded(keys.length > 1 || plan ? JSON.stringify(o, null, 2) : pick) : null,
  };
}

/** Lines added and removed, and the diff itself, from a Codex `apply_patch` body. */
export function applyPatch(patch: string): {
  summary: string;
  added: number;
  removed: number;
  lines: string[];
} {
  const files: string[] = [];
  let added = 0;
  let removed = 0;
  const lines: string[] = [];
  for (const line of patch.split('\n')) {
    const header = /^\*\*\* (Update|Add|Delete) File: (.+)$/.exec(line);
    if (header) {
      files.push(header[2]!.trim());
      lines.push(line);
      continue;
    }
    if (line.startsWith('*** ')) continue; // Begin / End Patch, Move to
    if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
    lines.push(line);
  }
  const summary =
    files.length === 0 ? 'patch' : files.length === 1 ? files[0]! : `${files[0]} (+${files.length - 1} more)`;
  return { summary, added, removed, lines };
}

/** The change an edit made, from its own old and new text (harnesses that record no patch). */
/** The lines of a text; the newline that ends the last one does not start another. */
function linesOf(text: string | null): string[] {
  if (text === null || text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

export function editDelta(input: unknown): { added: number; removed: number; lines: string[] } | null {
  const o = obj(input);
  if (o === null) return null;
  const before = str(o.old_string) ?? str(o.oldString);
  const after = str(o.new_string) ?? str(o.newString) ?? str(o.content);
  if (before === null && after === null) return null;
  const minus = linesOf(before).map((l) => `-${l}`);
  const plus = linesOf(after).map((l) => `+${l}`);
  return { added: plus.length, removed: minus.length, lines: [...minus, ...plus] };
}
