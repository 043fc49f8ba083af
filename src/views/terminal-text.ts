/**
 * Text from transcripts and agents, made safe to print. Every byte of a transcript is hostile: an
 * agent that read an untrusted page can put an escape sequence in a `cwd`, a branch, a file name, a
 * model name or a tool's output, and a terminal acts on it (OSC 52 writes the clipboard, OSC 0/2
 * retitles the window, CSI moves the cursor and erases; U+202E turns the text around it backwards).
 *
 * One scanner decides, for every view that writes to a terminal (the list, report, chat and its
 * Markdown export, doctor, exec, the live table): anything a terminal would act on, or that would be
 * invisible, becomes one visible mark (`MARK`, U+FFFD); a whole escape sequence becomes one mark, not
 * a mark and the readable tail of its payload. Kept: printable text, the zero-width joiner and
 * non-joiner and variation selectors (emoji sequences and scripts need them), and, only where a view
 * asks, tab and newline.
 *
 * Cell widths live here too, because a width is only right once the text is safe: `clip` and `width`
 * read their input through the same scanner, so a cut can never leave a sequence open.
 *
 * What it does not do: decide what is data. A view sanitises each field it takes from a file or an
 * agent (`safeLine`, `safeText`), then adds its own colours, then passes the finished line through
 * `printable`, which keeps only cctop's own colour codes and only when colour is on. It does not
 * escape Markdown or shell syntax; the views that build those quote for themselves.
 */

/** What replaces anything a terminal would act on or not show. One cell wide, and plainly not text. */
export const MARK = '\ufffd';

/** What a newline inside a one-line field (a path, a title in a table cell) shows as. */
export const NEWLINE_MARK = '⏎';

/**
 * Everything the scanner treats as one unit, in the order it tries them. Each escape sequence is
 * matched whole, by the rules a VT parser uses to find its end, so its payload is never shown as
 * text (the base64 of an OSC 52, the title of an OSC 0):
 *
 * - CSI (`ESC [` or 8-bit U+009B): parameter bytes, intermediate bytes, one final byte.
 * - OSC (`ESC ]` or U+009D): up to BEL, ST (`ESC \` or U+009C), or CAN/SUB, which abort it; an ESC
 *   that does not start ST ends it too (a terminal aborts the string there and reads a new escape).
 * - DCS, SOS, PM, APC (`ESC P`, `ESC X`, `ESC ^`, `ESC _`, or U+0090, U+0098, U+009E, U+009F): the same,
 *   without BEL.
 * - Any other ESC: its intermediate bytes and final byte (`ESC c` resets the terminal).
 * - CRLF, then single controls: C0, DEL, C1.
 * - Invisible formatting: category Cf (bidi embeddings, overrides and isolates, the marks
 *   U+200E/U+200F/U+061C, zero-width space, word joiner, BOM, tag characters), line and paragraph
 *   separators, and lone surrogates, except the two joiners text needs (U+200C, U+200D).
 *
 * A string sequence with no end runs to the end of the text, as it would in a terminal.
 */
const UNIT = new RegExp(
  [
    '(?:\\u001b\\[|\\u009b)[\\u0030-\\u003f]*[\\u0020-\\u002f]*[\\u0040-\\u007e]?',
    '(?:\\u001b\\]|\\u009d)[^\\u0007\\u009c\\u001b\\u0018\\u001a]*(?:\\u0007|\\u009c|\\u001b\\\\|[\\u0018\\u001a])?',
    '(?:\\u001b[PX^_]|[\\u0090\\u0098\\u009e\\u009f])[^\\u009c\\u001b\\u0018\\u001a]*(?:\\u009c|\\u001b\\\\|[\\u0018\\u001a])?',
    '\\u001b[\\u0020-\\u002f]*[\\u0030-\\u007e]?',
    '\\r\\n',
    '[\\u0000-\\u001f\\u007f-\\u009f]',
    '(?![\\u200c\\u200d])[\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}]',
  ].join('|'),
  'gu',
);

/**
 * The colour codes cctop writes itself (`cli/color.ts` and the live table's inverse video): the only
 * escape sequences `printable` lets through, so a missed field can at worst colour text, never move
 * the cursor, retitle a window or hide text (no SGR 8).
 */
const OWN_CODES = '(?:0|1|2|7|22|27|31|32|33|39)';
const OWN_STYLE = new RegExp(`^\\u001b\\[${OWN_CODES}m$`);

interface Rules {
  /** `text` keeps newlines and tabs (a message body); `line` shows a newline as ⏎ and a tab as a space. */
  layout: 'line' | 'text';
  /** Let cctop's own colour codes through (only on a terminal with colour on). */
  ownStyle: boolean;
}

/**
 * Text in which nothing is scrubbed and each character is one cell, so its width is its length and a
 * cut is a slice: printable ASCII, printable Latin-1 and the Latin extensions (but the soft hyphen,
 * an invisible format character), the dashes, quotes and ellipsis of general punctuation (not its
 * spaces, joiners, marks and separators), box drawing and geometric shapes, the heavy cross, and the
 * mark itself. That is nearly every cell and line a table prints (numbers, ids, model names,
 * `project · title`, the state marks, a cut's `…`), and measuring them so is a tenth of the cost.
 * Every character here measures and reads the same by the careful path (`terminal-text.test.ts`).
 */
const PLAIN = /^[\u0020-\u007e\u00a0-\u00ac\u00ae-\u02ff\u2010-\u2027\u2500-\u25ff\u2716\ufffd]*$/;

/**
 * Whether every character of `s` takes one cell and nothing in it is scrubbed: then its width is its
 * length, a cut is a slice, and it passes every sanitiser as it is.
 */
export const oneCellText = (s: string): boolean => PLAIN.test(s);

function scrub(s: string, rules: Rules): string {
  if (PLAIN.test(s)) return s;
  return s.replace(UNIT, (unit) => {
    if (unit === '\n' || unit === '\r\n') return rules.layout === 'text' ? '\n' : NEWLINE_MARK;
    if (unit === '\t') return rules.layout === 'text' ? '\t' : ' ';
    if (rules.ownStyle && OWN_STYLE.test(unit)) return unit;
    return MARK;
  });
}

/** One field from a file or an agent, for a one-line place: a table cell, a heading, a path. */
export function safeLine(s: string): string {
  return scrub(s, { layout: 'line', ownStyle: false });
}

/** A body of text from a file or an agent (a message, a tool's output), keeping its newlines and tabs. */
export function safeText(s: string): string {
  return scrub(s, { layout: 'text', ownStyle: false });
}

/**
 * The last step before a view writes: its finished lines, fields already made safe and its colours
 * added. Anything still able to act on a terminal becomes a mark; cctop's own colour codes stay when
 * colour is on (`p.enabled`), and go when it is off, so output that is not a terminal has no ESC at all.
 */
export function printable(lines: string, p: { enabled: boolean }): string {
  return scrub(lines, { layout: 'text', ownStyle: p.enabled });
}

/**
 * JSON text that a terminal shows as it is: `JSON.stringify` leaves C1 controls, bidi controls and
 * other format characters raw inside strings, where a terminal acts on them. Written as `\u` escapes,
 * they mean the same to a JSON reader and nothing to a terminal. The joiners stay, as in text.
 */
export function terminalJson(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(
    /(?![\u200c\u200d])[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu,
    (c) =>
      // Astral format characters (tags) are written as their surrogate pair, as JSON spells them.
      c
        .split('')
        .map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`)
        .join(''),
  );
}

/** A colour sequence of cctop's own, found where a cut or a measure meets an ESC. */
const STYLE_AT = new RegExp(`\\u001b\\[${OWN_CODES}m`, 'y');

/** Combining marks and enclosing marks: drawn on the cell before them. */
const COMBINING = /[\p{Mn}\p{Me}]/u;

function charWidth(cp: number): number {
  if (cp < 0x300) return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) ? 0 : 1;
  if (cp === 0x200c || cp === 0x200d) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) {
    return 2;
  }
  // Variation selectors (U+FE00–FE0F, U+E0100–E01EF) are nonspacing marks.
  if (COMBINING.test(String.fromCodePoint(cp))) return 0;
  return 1;
}

/** The text as a one-line place shows it: fields made safe, cctop's own colours kept. */
const asShown = (s: string): string => scrub(s, { layout: 'line', ownStyle: true });

function measure(shown: string): number {
  let w = 0;
  for (let i = 0; i < shown.length; ) {
    STYLE_AT.lastIndex = i;
    if (shown.charCodeAt(i) === 0x1b && STYLE_AT.test(shown)) {
      i = STYLE_AT.lastIndex;
      continue;
    }
    const cp = shown.codePointAt(i)!;
    w += charWidth(cp);
    i += cp > 0xffff ? 2 : 1;
  }
  return w;
}

/**
 * Terminal cells the text takes on one line, after sanitising: wide (CJK, emoji) characters take
 * two cells, combining marks, joiners and colour codes none, and whatever a mark replaced one.
 */
export function width(s: string): number {
  return PLAIN.test(s) ? s.length : measure(asShown(s));
}

/**
 * Cut to at most `cells` terminal cells, marking a cut with `…`. The text is sanitised first (its
 * cells are counted as they will show), cctop's own colour codes are kept whole and reset after a
 * cut, and a cut never ends on a joiner waiting for the character it joined.
 */
export function clip(s: string, cells: number): string {
  if (cells <= 0) return '';
  if (PLAIN.test(s)) return s.length <= cells ? s : `${s.slice(0, cells - 1)}…`;
  const shown = asShown(s);
  if (measure(shown) <= cells) return shown;
  let out = '';
  let w = 0;
  let styled = false;
  for (let i = 0; i < shown.length; ) {
    STYLE_AT.lastIndex = i;
    if (shown.charCodeAt(i) === 0x1b && STYLE_AT.test(shown)) {
      out += shown.slice(i, STYLE_AT.lastIndex);
      styled = true;
      i = STYLE_AT.lastIndex;
      continue;
    }
    const cp = shown.codePointAt(i)!;
    const cw = charWidth(cp);
    if (w + cw > cells - 1) break;
    out += String.fromCodePoint(cp);
    w += cw;
    i += cp > 0xffff ? 2 : 1;
  }
  return `${out.replace(/[\u200c\u200d]+$/, '')}…${styled ? '\u001b[0m' : ''}`;
}
