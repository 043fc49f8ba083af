/**
 * Reading and writing the text of an agent's JSON settings file, for the installer. Some agents
 * accept comments and trailing commas in their settings (JSON with comments); Claude Code reads plain
 * JSON. Either way a file that does not read is refused with the line and column where it stops, so
 * the user can fix it; nothing here guesses what a broken file meant.
 *
 * What this does not do: keep comments when a file is written again. The installer writes JSON (what
 * every such agent reads), laid out as the file was (its indent, its line ends, its final newline);
 * a comment survives only in the backup the installer keeps beside the file. Nor does it bound how
 * deep a value nests: a settings file is the user's own, and the caller bounds its size.
 */

export type Syntax = 'json' | 'jsonc';

export type TextRead =
  | { kind: 'read'; value: unknown; layout: Layout }
  | { kind: 'bad'; reason: string; line: number; column: number };

/** How a file is laid out, to write it back the same way. */
export interface Layout {
  /** What one level of nesting is indented by: spaces or a tab. */
  indent: string;
  eol: '\n' | '\r\n';
  finalNewline: boolean;
  /** A byte-order mark at the start (kept, since whatever wrote it may expect it). */
  bom: boolean;
}

/** How a new file is laid out: as Claude Code writes its own settings. */
export const NEW_LAYOUT: Layout = { indent: '  ', eol: '\n', finalNewline: true, bom: false };

const BOM = '\ufeff';

/** Read settings text as `syntax` allows; never throws. */
export function readSettingsText(text: string, syntax: Syntax): TextRead {
  const bom = text.startsWith(BOM);
  const body = bom ? text.slice(BOM.length) : text;
  let cleaned = body;
  if (syntax === 'jsonc') {
    const blanked = blankComments(body);
    if (typeof blanked !== 'string')
      return { kind: 'bad', ...blanked, ...lineColumn(text, blanked.at + (bom ? 1 : 0)) };
    cleaned = blankTrailingCommas(blanked);
  }
  try {
    return { kind: 'read', value: JSON.parse(cleaned), layout: { ...layoutOf(body), bom } };
  } catch (err) {
    const message = (err as Error).message;
    // V8 names the offset ("… in JSON at position 41"), or says the text ended early.
    const at = /position (\d+)/.exec(message);
    const offset = at ? Number(at[1]) : cleaned.length;
    const reason = message
      .replace(/ in JSON at position \d+.*$/s, '')
      .replace(/^Unexpected end of JSON input$/, 'the text ends early');
    return { kind: 'bad', reason, ...lineColumn(text, offset + (bom ? 1 : 0)) };
  }
}

/** 1-based line and column of `offset` in `text`. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.min(offset, text.length));
  const lines = before.split('\n');
  return { line: lines.length, column: lines.at(-1)!.length + 1 };
}

/**
 * The text with every comment replaced by spaces (newlines kept), so that offsets in it are offsets
 * in the file: an error found after this points at the right place. An unclosed block comment is
 * refused where it opens.
 */
function blankComments(s: string): string | { reason: string; at: number } {
  let out = '';
  let i = 0;
  let from = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '"') {
      i = stringEnd(s, i);
      continue;
    }
    if (c === '/' && s[i + 1] === '/') {
      const end = s.indexOf('\n', i);
      const stop = end === -1 ? s.length : end;
      out += s.slice(from, i) + ' '.repeat(stop - i);
      i = from = stop;
      continue;
    }
    if (c === '/' && s[i + 1] === '*') {
      const end = s.indexOf('*/', i + 2);
      if (end === -1) return { reason: 'a comment is never closed', at: i };
      out += s.slice(from, i) + s.slice(i, end + 2).replace(/[^\r\n]/g, ' ');
      i = from = end + 2;
      continue;
    }
    i++;
  }
  return out + s.slice(from);
}

/** Just past the string opening at `i` (or the end of the text, for JSON.parse to refuse). */
function stringEnd(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === '"') return j + 1;
  }
  return s.length;
}

/** A comma before a closing brace or bracket (comments already blank) becomes a space. */
function blankTrailingCommas(s: string): string {
  const chars = s.split('');
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '"') {
      i = stringEnd(s, i) - 1;
      continue;
    }
    if (s[i] !== ',') continue;
    let j = i + 1;
    while (j < s.length && /\s/.test(s[j]!)) j++;
    if (s[j] === '}' || s[j] === ']') chars[i] = ' ';
  }
  return chars.join('');
}

/** The file's indent (its first indented line's), line ends and final newline. */
function layoutOf(body: string): Omit<Layout, 'bom'> {
  const indented = /\n([ \t]+)\S/.exec(body);
  return {
    // A file on one line gets the usual indent: it is written again at most once per install.
    indent: indented ? (indented[1]!.startsWith('\t') ? '\t' : indented[1]!) : NEW_LAYOUT.indent,
    eol: body.includes('\r\n') ? '\r\n' : '\n',
    finalNewline: /\r?\n$/.test(body) || body.length === 0,
  };
}

/** `value` as JSON text laid out as `layout` says. */
export function settingsText(value: unknown, layout: Layout): string {
  let text = JSON.stringify(value, null, layout.indent);
  if (layout.eol === '\r\n') text = text.replace(/\n/g, '\r\n');
  return `${layout.bom ? BOM : ''}${text}${layout.finalNewline ? layout.eol : ''}`;
}
