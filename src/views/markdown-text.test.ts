import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markupProblems, renderHtml } from '../test-support/markdown.js';
import { fenced, inlineCode, markdownBody, markdownLine } from './markdown-text.js';

/**
 * Text a hostile transcript can hold in any field: HTML that runs, links and images (inline,
 * reference, autolink), backquote runs that end code spans, fences that end code blocks, entities
 * that decode to markup, and line ends a renderer reads that a split on LF alone would not.
 */
const HOSTILE = [
  '<img src=x onerror=alert(1)>',
  'a`b<img src=x onerror=alert(1)>`',
  '`` <img src=x onerror=alert(2)> ``',
  '```\n<img src=x onerror=alert(3)>\n```',
  '~~~\n<script>alert(4)</script>',
  '[click](https://evil.example/)',
  '![pixel](https://evil.example/p.png)',
  '[ref]\n\n[ref]: https://evil.example/',
  '<https://evil.example/>',
  '&lt;img src=x onerror=alert(5)&gt;',
  '\\<img src=x onerror=alert(6)>',
  '\\[x](https://evil.example/)',
  '<!-- hidden -->',
  '</script><a href="https://evil.example/">x</a>',
  'x\r```\r<img src=x onerror=alert(7)>',
  '```\nok\r```\r<img src=x onerror=alert(8)>',
  '*<b>*_<i>_',
  'javascript:alert(9)',
  '- [x] <img src=x>\n1. [y](z)',
  'a | b\n--|--\n<img src=x> | [l](u)',
];

/** Each function in each place a caller puts it. */
const PLACES: Record<string, (t: string) => string> = {
  heading: (t) => `# ${markdownLine(t)}`,
  'bold name then code': (t) => `- ✓ **${markdownLine(t)}** ${inlineCode(t)}`,
  'line at the left edge': (t) => markdownLine(t),
  'table cell': (t) => `| a |\n|---|\n| ${markdownLine(t)} |`,
  'code span in text': (t) => `in ${inlineCode(t)} and ${inlineCode(t)}`,
  'fenced block': (t) => `${fenced(t)}\n\n${markdownLine(t)}`,
  'message body': (t) => markdownBody(t),
  'quoted body': (t) => `> ${markdownBody(t).replace(/\n/g, '\n> ')}`,
};

describe('transcript text in shared Markdown', () => {
  it('HTML in a message is written as entities, so no renderer runs it', () => {
    const out = markdownBody('see <img src=x onerror=alert(1)> and <!-- hidden --> &amp; done');
    expect(out).toBe('see &lt;img src=x onerror=alert(1)> and &lt;!-- hidden --> &amp;amp; done');
    expect(out).not.toMatch(/<[a-z!]/i);
  });

  it('a fenced code block keeps its text as written, and what follows it is escaped again', () => {
    const out = markdownBody('before <b>\n```ts\nconst a: Array<string> = [];\n```\nafter <b>');
    expect(out).toBe('before &lt;b>\n```ts\nconst a: Array<string> = [];\n```\nafter &lt;b>');
  });

  it('a fence left open is closed, so it cannot swallow what the document says next', () => {
    expect(markdownBody('```\n<script>')).toBe('```\n<script>\n```');
    expect(markdownBody('~~~~\nx')).toBe('~~~~\nx\n~~~~');
  });

  it('only a closer of the same character and at least the same length closes a fence', () => {
    expect(markdownBody('````\n```\n~~~~\n<i>\n````\n<i>')).toBe('````\n```\n~~~~\n<i>\n````\n&lt;i>');
  });

  it('an indented fence is not taken for one, so its text is escaped (the safe side)', () => {
    expect(markdownBody('    ```\n<b>')).toBe('    ```\n&lt;b>');
  });

  it('a backquote run in the info string means it is no fence', () => {
    expect(markdownBody('```a`b\n<b>')).toBe('```a`b\n&lt;b>');
  });

  it('the info string of a fence is escaped like text', () => {
    expect(markdownBody('```<img>\nx\n```')).toBe('```&lt;img>\nx\n```');
  });

  it('a one-line field and inline code keep nothing that ends them early', () => {
    expect(markdownLine('a <b> & c')).toBe('a &lt;b> &amp; c');
    expect(inlineCode('rm `x`')).toBe('`` rm `x` ``');
    expect(fenced('```\nx')).toBe('````\n```\nx\n````');
  });

  it('a name with a backquote stays in the bold and the code span after it keeps the call input', () => {
    const md = `- ✓ **${markdownLine('Bash`x')}** ${inlineCode('<img src=x onerror=alert(1)>')}`;
    expect(renderHtml(md)).toBe(
      '<ul>\n<li>✓ <strong>Bash`x</strong> <code>&lt;img src=x onerror=alert(1)&gt;</code></li>\n</ul>\n',
    );
  });

  it('inline code shows its text exactly, backquotes and edge spaces included', () => {
    for (const t of ['rm `x`', '`a`', 'a``b', ' x ', 'plain'])
      expect(renderHtml(inlineCode(t))).toBe(
        `<p><code>${t.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</code></p>\n`,
      );
  });

  it('a line of text shows its characters, syntax included, as written', () => {
    const t = '# [a](b) *c* _d_ `e` <f> &g; \\h | ~i~ 1. j';
    expect(renderHtml(markdownLine(t))).toBe(
      '<p># [a](b) *c* _d_ `e` &lt;f&gt; &amp;g; \\h | ~i~ 1. j</p>\n',
    );
  });

  it('a message keeps its emphasis, lists and code blocks', () => {
    expect(renderHtml(markdownBody('**bold** and *it*\n\n- one\n\n```ts\nconst a = 1;\n```'))).toBe(
      '<p><strong>bold</strong> and <em>it</em></p>\n<ul>\n<li>one</li>\n</ul>\n<pre><code class="language-ts">const a = 1;\n</code></pre>\n',
    );
  });
});

describe('the hostile corpus through a CommonMark renderer that passes HTML', () => {
  for (const [place, put] of Object.entries(PLACES))
    it(`as a ${place}, no text becomes an element, a link or an image`, () => {
      for (const t of HOSTILE) expect({ t, problems: markupProblems(put(t)) }).toEqual({ t, problems: [] });
    });
});

describe('what a line of text escapes', () => {
  it('a mark that starts a block is escaped only at the start of the line', () => {
    expect(markdownLine('general-purpose')).toBe('general-purpose');
    expect(markdownLine('- item')).toBe('\\- item');
    expect(markdownLine('12. item')).toBe('12\\. item');
    expect(renderHtml(markdownLine('> quote'))).toBe('<p>&gt; quote</p>\n');
    expect(renderHtml(`a\n${markdownLine('===')}`)).toBe('<p>a\n===</p>\n');
  });
});

/**
 * Any string of the characters Markdown and HTML read as syntax, in any place: found by search, not
 * by a list someone thought of. 300 strings per place keep this under a second; the seed is fixed so
 * a failure is the same failure on the next run (fast-check prints it).
 */
const SYNTAX_CHARS = [...'<>&;#[]()!`*_~\\|=-+.:/"\' \t\n\rx1'];
const RUNS = 300;
const SEED = 20261207;

describe('any text of syntax characters, in any place', () => {
  for (const [place, put] of Object.entries(PLACES))
    it(`as a ${place}, makes no element, link or image`, () => {
      fc.assert(
        fc.property(
          fc.array(
            fc.constantFrom(...SYNTAX_CHARS, '<img src=x onerror=y>', '<a href=u>', '](u)', '```', '~~~'),
            {
              maxLength: 40,
            },
          ),
          (parts) => markupProblems(put(parts.join(''))).length === 0,
        ),
        { numRuns: RUNS, seed: SEED },
      );
    });
});
