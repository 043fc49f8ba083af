/**
 * A real CommonMark renderer with raw HTML passed through (markdown-it, `html: true`, as commonmark.js
 * and many editors' previews do), and a check of what it made: the only elements in the HTML are the
 * ones Markdown's own syntax makes, with no attribute a transcript could have chosen. A link, an
 * image or any element written by the transcript is reported.
 *
 * It does not judge text: an `&lt;img>` shown as characters is the point.
 */
import MarkdownIt from 'markdown-it';

const renderer = new MarkdownIt({ html: true });

export const renderHtml = (md: string): string => renderer.render(md);

/** Elements Markdown's own syntax makes and that can neither run, fetch nor link anywhere. */
const PLAIN_ELEMENTS = new Set([
  'p',
  'code',
  'pre',
  'strong',
  'em',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'blockquote',
  'hr',
  'br',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  's',
]);

/** The attributes markdown-it itself writes: a code block's language, a list's start, a cell's alignment. */
const PLAIN_ATTRIBUTES =
  /^(?:\s+class="language-[^"<>]*"|\s+start="\d+"|\s+style="text-align:(?:left|right|center)")?\s*\/?$/;

/** Every element or attribute in the HTML that Markdown's syntax would not make by itself. */
export function markupProblems(md: string): string[] {
  const html = renderHtml(md);
  const problems: string[] = [];
  // Comments, declarations and processing instructions are raw HTML too.
  for (const m of html.matchAll(/<[!?][^>]*>/g)) problems.push(m[0]);
  for (const m of html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>/g)) {
    const [all, name = '', attrs = ''] = m;
    if (!PLAIN_ELEMENTS.has(name.toLowerCase()) || (!all.startsWith('</') && !PLAIN_ATTRIBUTES.test(attrs)))
      problems.push(all);
  }
  return problems;
}
