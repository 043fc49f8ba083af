/**
 * Text from transcripts placed in a Markdown document that people share: an export is opened in
 * editors, pasted into issues and rendered by whatever Markdown renderer the reader has, and many
 * renderers pass raw HTML through. A message that holds `<img src=x onerror=…>` must render as
 * those characters, not run.
 *
 * The rule: outside code, `<` and `&` are written as entities, so no tag, comment or entity of the
 * transcript's reaches the renderer as markup (the renderer shows them as the characters they were).
 * Inside a fenced code block nothing is markup, so it is left as written. A fence is taken as one
 * only when it starts at the left edge (as every renderer reads it); a fence left open is closed at
 * the end of the message, so it cannot swallow what the document says next.
 *
 * ponytail: inline code (`` `a<b` ``) outside a fence is escaped too and shows `&lt;`: telling a code
 * span apart exactly as each renderer does (backslashes, runs of backquotes across lines) is where a
 * mistake would let markup through, and a visible entity is the safe side of that mistake.
 *
 * What it does not do: make text safe for a terminal. Callers pass text through `safeText` first
 * (`terminal-text.ts`); this escapes only what Markdown would read as HTML.
 */

/** The entities that keep `<` and `&` as characters. */
const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** One line of transcript text for a heading, a list item or a table cell: nothing in it is markup. */
export const markdownLine = escapeHtml;

/** A fence opener at the left edge: three or more backquotes (no backquote after) or tildes. */
const OPENER = /^(`{3,})[^`]*$|^(~{3,}).*$/;

/**
 * A body of transcript text (a message, which is Markdown already): its own formatting kept, HTML
 * escaped outside its fenced code blocks, and any fence it leaves open closed.
 */
export function markdownBody(text: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    if (fence === null) {
      const m = OPENER.exec(line);
      if (m) fence = m[1] ?? m[2]!;
      // The info string after a fence is text a renderer prints too (as a class, a label).
      out.push(m ? fence + escapeHtml(line.slice(fence!.length)) : escapeHtml(line));
      continue;
    }
    out.push(line);
    // A closer: the same character, at least as many, up to three spaces in, nothing after.
    const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
    if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) fence = null;
  }
  if (fence !== null) out.push(fence);
  return out.join('\n');
}

/** A fenced block around `text` that nothing in it can close: one backquote longer than its longest run. */
export function fenced(text: string, info = ''): string {
  const ticks = '`'.repeat(Math.max(3, ...(text.match(/`+/g) ?? []).map((m) => m.length + 1)));
  return `${ticks}${info}\n${text}\n${ticks}`;
}

/** Inline code: a backquote inside would end it early, so it becomes a quote. */
export const inlineCode = (text: string): string => `\`${text.replace(/`/g, "'")}\``;
