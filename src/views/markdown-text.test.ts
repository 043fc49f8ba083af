import { describe, expect, it } from 'vitest';
import { fenced, inlineCode, markdownBody, markdownLine } from './markdown-text.js';

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
    expect(inlineCode('rm `x`')).toBe("`rm 'x'`");
    expect(fenced('```\nx')).toBe('````\n```\nx\n````');
  });
});
