import { describe, expect, it } from 'vitest';
import { COMMANDS } from './command-line.js';
import { closest, editDistance } from './typo.js';

describe('did you mean', () => {
  it('a swap of two neighbouring letters is one edit, so reprot is report', () => {
    expect(editDistance('reprot', 'report')).toBe(1);
    expect(closest('reprot', COMMANDS)).toBe('report');
    expect(closest('chta', COMMANDS)).toBe('chat');
  });

  it('a mistyped flag is matched to the flag, dashes and all', () => {
    expect(closest('--provder', ['--provider', '--plan', '--since'])).toBe('--provider');
  });

  it('a word that merely shares letters with a command is not taken for a typo of it', () => {
    expect(closest('fix', COMMANDS)).toBeNull();
    expect(closest('frobnicate', COMMANDS)).toBeNull();
  });
});
