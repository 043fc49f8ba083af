/**
 * The `Content-Disposition` of a download named after a session (its conversation as Markdown).
 *
 * A session id is whatever a transcript's file name or records said: quotes, control characters,
 * bidi overrides, any script. A header value must be Latin-1 without controls, and a quote would end
 * the quoted name early. So the name is cleaned first (`downloadName`), then sent twice (RFC 6266
 * §4.3): an ASCII `filename` every browser takes, and the whole name as `filename*`, UTF-8
 * percent-encoded (RFC 8187), which browsers prefer when they read it.
 *
 * Not here: what a request may name (`ids.ts`); the id in the URL is checked there, but the session it
 * finds by prefix carries its own full id.
 */

/**
 * UTF-8 bytes a download's name keeps before its extension. A file name is at most 255 bytes on ext4
 * and APFS (255 UTF-16 units on NTFS), and a browser adds ` (1)` to a repeated download: 200 leaves
 * room for both and the extension. A longer id is cut at a character, never inside one.
 */
export const MAX_FILENAME_BYTES = 200;

/**
 * What a file name may not hold: controls, invisible formatting (bidi overrides, zero-width marks),
 * line and paragraph separators, lone surrogates, path separators, and the characters Windows
 * refuses in a name. Each becomes `_`.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\\/:*?"<>|]/gu;

/** What the ASCII fallback keeps; anything else becomes `_` (a `%` could be decoded by a browser). */
const NOT_PLAIN = /[^A-Za-z0-9._-]/g;

/** The name given when nothing of the stem survives cleaning. */
const FALLBACK_STEM = 'session';

/** `stem.ext` made safe to save: cleaned, bounded, never empty or hidden (no leading dot). */
export function downloadName(stem: string, ext: string): string {
  let clean = stem.replace(UNSAFE, '_').replace(/^[.\s]+/, '');
  if (Buffer.byteLength(clean) > MAX_FILENAME_BYTES) {
    let cut = '';
    let bytes = 0;
    for (const ch of clean) {
      bytes += Buffer.byteLength(ch);
      if (bytes > MAX_FILENAME_BYTES) break;
      cut += ch;
    }
    clean = cut;
  }
  clean = clean.replace(/[.\s]+$/, '');
  return `${clean.length > 0 ? clean : FALLBACK_STEM}.${ext}`;
}

/** RFC 8187's `value-chars`: percent-encoded UTF-8, leaving only its `attr-char` as they are. */
const extValue = (name: string): string =>
  encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );

/** The `Content-Disposition` value that downloads `stem.ext` under a safe name. */
export function attachment(stem: string, ext: string): string {
  const name = downloadName(stem, ext);
  return `attachment; filename="${name.replace(NOT_PLAIN, '_')}"; filename*=UTF-8''${extValue(name)}`;
}
