/**
 * Text from transcripts placed in a Markdown document that people share: an export is opened in
 * editors, pasted into issues and rendered by whatever Markdown renderer the reader has, and many
 * renderers pass raw HTML through. A message that holds `<img src=x onerror=…>` must render as
 * those characters, not run; a tool named ``a`b`` must not end the code span after it early; a
 * title holding `[x](https://…)` or `![x](…)` must not become a link or fetch an image.
 *
 * Every piece of transcript text that `export --format markdown`, `chat --markdown` (and the
 * dashboard's download, which is the same text) and `handoff` place into Markdown goes through one
 * of the four functions here, one per kind of place, and each takes the raw text: it makes the text
 * safe for a terminal (`terminal-text.ts`) and then inert for Markdown, so a caller cannot do half.
 *
 * - `markdownLine`: a name, a path, a title in running text (a heading, a list item, bold). Every
 *   character Markdown reads as syntax where it stands is escaped: `<` and `&` as entities, the rest
 *   with a backslash.
 * - `inlineCode`: a code span whose fence is one backquote longer than any run inside it, so nothing
 *   inside can close it.
 * - `fenced`: a code block whose fence is longer than any run inside it.
 * - `markdownBody`: a message, which is Markdown already. Its own formatting is kept, but outside
 *   its fenced code blocks `<`, `&` and `[` are written as entities, so no tag, comment, entity, link
 *   or image of the transcript's reaches the renderer as markup. A fence is taken as one only when
 *   it starts at the left edge (as every renderer reads it); a fence left open is closed at the end
 *   of the message, so it cannot swallow what the document says next.
 *
 * Known limit: inline code in a message outside a fence (`` `a<b` ``) shows `&lt;` (and `&#91;`
 * for `[`): telling a code span apart exactly as each renderer does (backslashes, runs of backquotes
 * across lines) is where a mistake would let markup through, and a visible entity is the safe side.
 *
 * What it does not do: sanitise Markdown written by cctop itself (callers' fixed words), or make
 * URLs in plain text (`https://…`) inert for renderers that link bare URLs (GitHub's): those links
 * are the renderer's own and go through its sanitiser.
 */

import { safeLine, safeText } from './terminal-text.js';

/** Line ends as a renderer reads them: CR LF, a lone CR and LF all end a line. */
const lines = (s: string): string => s.replace(/\r\n?/g, '\n');

/** The entities that keep `<` and `&` as characters. */
const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/**
 * The ASCII punctuation Markdown reads as syntax anywhere in a line: emphasis, code, links and
 * images (`!` needs a `[` after it, and `(` a `]` before it, so escaping `[` and `]` is enough),
 * tables, strikethrough, backslash escapes, and a heading's closing `#`s.
 */
const INLINE_SYNTAX = /[\\`*_[\]|~#]/g;

/**
 * What Markdown reads as syntax only where a line starts: a block quote, a list item (`-`, `+`, and
 * `1.` or `1)`), a thematic break or a setext underline (`-`, `=`). Escaped there only, so a title
 * reads `general-purpose`, not `general\-purpose`.
 */
const LINE_START_SYNTAX = /^(\s*)([-+=>]|\d+[.)])/;

/**
 * One line of transcript text for a heading, a list item, bold or a table cell: nothing in it is
 * markup, wherever on the line it lands. CommonMark lets a backslash escape any ASCII punctuation,
 * so escaping one that needed none would only cost a backslash in the source.
 */
export function markdownLine(text: string): string {
  return escapeHtml(lines(safeLine(text)).replace(/\n/g, ' '))
    .replace(INLINE_SYNTAX, (c) => `\\${c}`)
    .replace(
      LINE_START_SYNTAX,
      (_, space: string, mark: string) => `${space}${mark.slice(0, -1)}\\${mark.slice(-1)}`,
    );
}

/** The longest run of backquotes in `s` (0 when there is none). */
const longestTicks = (s: string): number => Math.max(0, ...(s.match(/`+/g) ?? []).map((m) => m.length));

/**
 * Inline code around one line of transcript text: the fence is one backquote longer than any run in
 * the text, so nothing inside can end it, and a space pads a text that starts or ends with a
 * backquote or a space (CommonMark strips exactly one each side, so the text shows as it was).
 */
export function inlineCode(text: string): string {
  const t = lines(safeLine(text)).replace(/\n/g, ' ');
  const ticks = '`'.repeat(longestTicks(t) + 1);
  const pad = /^[` ]|[` ]$/.test(t) ? ' ' : '';
  return `${ticks}${pad}${t}${pad}${ticks}`;
}

/**
 * A fenced block around transcript text that nothing in it can close: one backquote longer than its
 * longest run, and at least three. `info` is cctop's own word (`diff`, `text`), never the transcript's.
 */
export function fenced(text: string, info = ''): string {
  const t = lines(safeText(text));
  const ticks = '`'.repeat(Math.max(3, longestTicks(t) + 1));
  return `${ticks}${info}\n${t}\n${ticks}`;
}

/** A fence opener at the left edge: three or more backquotes (no backquote after) or tildes. */
const OPENER = /^(`{3,})[^`]*$|^(~{3,}).*$/;

/** Outside code, a message keeps its Markdown but no HTML, entity, link or image. */
const inertProse = (s: string): string => escapeHtml(s).replace(/\[/g, '&#91;');

/**
 * A body of transcript text (a message, which is Markdown already): its own formatting kept, HTML,
 * links and images made inert outside its fenced code blocks, and any fence it leaves open closed.
 */
export function markdownBody(text: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of lines(safeText(text)).split('\n')) {
    if (fence === null) {
      const m = OPENER.exec(line);
      const opened = m ? (m[1] ?? m[2] ?? null) : null;
      // The info string after a fence is text a renderer prints too (as a class, a label).
      out.push(opened ? opened + inertProse(line.slice(opened.length)) : inertProse(line));
      fence = opened;
      continue;
    }
    out.push(line);
    // A closer: the same character, at least as many, up to three spaces in, nothing after.
    const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
    if (close?.[1] && close[1][0] === fence[0] && close[1].length >= fence.length) fence = null;
  }
  if (fence !== null) out.push(fence);
  return out.join('\n');
}
