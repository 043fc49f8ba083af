import { describe, expect, it } from 'vitest';
import { editDelta } from './tools.js';

describe('lines an edit added and removed', () => {
  it('counts a written file by its lines: the final newline does not add one', () => {
    const written = Array.from({ length: 15 }, (_, i) => `line ${i}`).join('\n');
    expect(editDelta({ content: `${written}\n` })?.added).toBe(15);
    expect(editDelta({ content: written })?.added).toBe(15);
  });

  it('counts a replacement as the old lines removed and the new ones added', () => {
    const d = editDelta({ old_string: 'a\nb\n', new_string: 'a\nB\nc\n' });
    expect(d).toEqual({ added: 3, removed: 2, lines: ['-a', '-b', '+a', '+B', '+c'] });
  });

  it('keeps a blank line that is really there', () => {
    expect(editDelta({ new_string: 'x\n\n' })?.added).toBe(2);
  });
});
