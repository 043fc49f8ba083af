import { describe, expect, it } from 'vitest';
import { emptyFacts, MAX_TITLE_CHARS } from '../model/facts.js';
import { noteFirstPrompt, promptTitleSettled } from './title.js';

/** The title a session's prompts give it, folded in order. */
function titleOf(...prompts: (string | null)[]): string | null {
  const f = emptyFacts();
  for (const p of prompts) noteFirstPrompt(f, p);
  return f.titles.firstPrompt;
}

describe('the title a session takes from its prompts', () => {
  it('is the first prompt, on one line', () => {
    expect(titleOf('[lab:call] Follow the lab script call.\n\nThen stop.', 'and another')).toBe(
      '[lab:call] Follow the lab script call. Then stop.',
    );
  });

  it('a bare slash command holds the place only until a real prompt arrives', () => {
    expect(titleOf('/clear')).toBe('/clear');
    expect(titleOf('/clear', 'fix the failing test in parser.ts', 'then commit')).toBe(
      'fix the failing test in parser.ts',
    );
    expect(titleOf('/clear', '/model')).toBe('/clear');
  });

  it('a slash command with words says what the session is about, so it names it', () => {
    expect(titleOf('/review the patch for the tailer', 'thanks')).toBe('/review the patch for the tailer');
  });

  it('a blank or absent prompt changes nothing', () => {
    expect(titleOf(null, '   \n', 'the real one')).toBe('the real one');
  });

  it('a long prompt is cut to a table cell, and the cut is marked', () => {
    const t = titleOf('word '.repeat(100));
    expect(t).toHaveLength(MAX_TITLE_CHARS);
    expect(t?.endsWith('…')).toBe(true);
  });

  it('is settled once a real prompt named it, not while only a command holds it', () => {
    const f = emptyFacts();
    noteFirstPrompt(f, '/clear');
    expect(promptTitleSettled(f)).toBe(false);
    noteFirstPrompt(f, 'port the reader');
    expect(promptTitleSettled(f)).toBe(true);
  });
});
