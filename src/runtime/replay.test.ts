import { describe, expect, it } from 'vitest';
import { withoutQueries } from './replay.js';

const replayed = (s: string): string => withoutQueries(Buffer.from(s, 'utf8')).toString('utf8');

describe('the screen replayed to a terminal that attaches', () => {
  it('drops what Gemini CLI and Qwen Code asked their terminal at start, so no answer is typed into them', () => {
    // Device attributes, XTVERSION, the kitty keyboard query, a cursor report, a colour, a mode.
    const asked = '\x1b[c\x1b[>q\x1b[?u\x1b[6n\x1b]11;?\x1b\\\x1b]10;?\x07\x1b[?2026$p\x1b[>0c\x1b[14t';
    expect(replayed(`${asked}✦ pong: the lab answers`)).toBe('✦ pong: the lab answers');
  });

  it('drops terminfo and setting requests, and a clipboard read', () => {
    expect(replayed('a\x1bP+q544e\x1b\\b\x1bP$qm\x1b\\c\x1b]52;c;?\x07d')).toBe('abcd');
  });

  it('keeps everything that draws: colours, cursor moves, modes set, titles, text of any script', () => {
    const drawn =
      '\x1b[2J\x1b[H\x1b[38;2;1;2;3m颜色\x1b[0m\x1b[?2026h\x1b[?25l\x1b]0;gemini\x07\x1b[10;5H\x1b[2K▝▜▄ é\x1b[18;1H\x1b[5;1H';
    expect(replayed(drawn)).toBe(drawn);
  });
});
