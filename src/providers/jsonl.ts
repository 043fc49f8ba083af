/**
 * Reading a JSONL transcript line by line from a byte offset, in bounded memory.
 *
 * Transcripts are appended to while we read them, can be hundreds of megabytes, and may contain a
 * single enormous line (an image pasted as base64, a tool result of a whole file, or garbage). The
 * reader holds one chunk plus at most one line of `MAX_LINE_BYTES`; a longer line is skipped and
 * counted, never buffered.
 *
 * A last line without its newline is offered to the caller marked `unterminated`: the writer may be
 * in the middle of it. The caller accepts it only if it is complete (it parses); otherwise it is left
 * for the next pass and the returned `end` stops before it.
 */

import { closeSync, readSync } from 'node:fs';
import { openRegular } from '../regular-file.js';

/** Read granularity: large enough that a 90 MB file is ~90 system calls, small enough to stay cheap. */
export const CHUNK_BYTES = 1 << 20;

/**
 * The longest line kept. Real lines reach a few megabytes (a pasted screenshot, a large file read);
 * past 32 MiB a line is not a transcript record anyone needs, and holding it would blow the memory
 * budget of a scan that runs one file per core.
 */
export const MAX_LINE_BYTES = 32 << 20;

/**
 * The read buffer is kept from one file to the next (a scan reads thousands of files in a row): a
 * fresh buffer per file costs the kernel a page fault for every page the first read touches, which
 * was as much as the copy itself. One grown for a long line is kept only up to this size, so a
 * thread never holds more than this between files.
 */
const KEEP_BYTES = 4 << 20;
let spare: Buffer | null = null;

export interface LineScan {
  /** Offset just past the last line consumed: where the next pass starts. */
  end: number;
  /** File size when the scan started. */
  size: number;
  /** Inode and mtime seen when the file was opened. */
  ino: number;
  mtimeMs: number;
  /** Lines longer than `MAX_LINE_BYTES`, skipped. */
  oversized: number;
  /**
   * Lines consumed up to `end`, as the file numbers them: blank and oversized lines count, an
   * unfinished last line left for the next pass does not. Add it to the count before `from` to
   * number the lines of the next pass.
   */
  lines: number;
  /** Bytes of an unfinished last line left for the next pass (0 when none). */
  pendingBytes: number;
}

/**
 * Calls `onLine(buf, start, end, unterminated, index, at)` for every non-empty line from `from` to the
 * end of the file as it was when opened; `index` counts the lines before it since `from` (blank and
 * oversized ones too), so a problem can name the line, and `at` is the line's byte offset in the file
 * (where a later read may start). Return `false` from an unterminated line to leave it unread.
 */
export function scanLines(
  path: string,
  from: number,
  onLine: (
    buf: Buffer,
    start: number,
    end: number,
    unterminated: boolean,
    index: number,
    at: number,
  ) => boolean | undefined,
  maxLineBytes = MAX_LINE_BYTES,
): LineScan {
  // Without waiting, and only a regular file: a named pipe named like a transcript would hold the scan.
  const opened = openRegular(path);
  if (opened.kind === 'missing') throw Object.assign(new Error(`${path}: no such file`), { code: 'ENOENT' });
  if (opened.kind === 'not-file') throw new Error(`${path} is ${opened.what}, not a file`);
  if (opened.kind === 'failed')
    throw Object.assign(new Error(`${path}: ${opened.reason}`), { code: opened.code ?? undefined });
  const fd = opened.fd;
  try {
    const st = opened.stat;
    const size = st.size;
    const result: LineScan = {
      end: from,
      size,
      ino: st.ino,
      mtimeMs: st.mtimeMs,
      oversized: 0,
      lines: 0,
      pendingBytes: 0,
    };
    if (from >= size) return result;

    // Taken, not shared: a scan started from inside `onLine` gets a buffer of its own.
    let buf = spare ?? Buffer.allocUnsafe(CHUNK_BYTES);
    spare = null;
    // Bytes of the current (incomplete) line held at the start of `buf`.
    let held = 0;
    // Absolute offset of buf[0].
    let base = from;
    let pos = from;
    // While skipping an oversized line, everything up to its newline is discarded.
    let skipping = false;

    while (pos < size) {
      if (held === buf.length) {
        // The held line fills the buffer: grow it, up to the line bound.
        if (buf.length >= maxLineBytes) {
          skipping = true;
          result.oversized++;
          held = 0;
          base = pos;
        } else {
          const grown = Buffer.allocUnsafe(Math.min(buf.length * 2, maxLineBytes));
          buf.copy(grown, 0, 0, held);
          buf = grown;
        }
      }
      const want = Math.min(buf.length - held, size - pos);
      const got = readSync(fd, buf, held, want, pos);
      if (got <= 0) break; // the file shrank under us; stop at what we have
      pos += got;
      const filled = held + got;
      let lineStart = 0;
      let nl = buf.indexOf(10, held);
      while (nl !== -1 && nl < filled) {
        if (skipping) {
          skipping = false;
        } else if (nl - lineStart > maxLineBytes) {
          // Whole in one read, but still over the bound: skipped like any other oversized line.
          result.oversized++;
        } else if (nl > lineStart) {
          onLine(buf, lineStart, nl, false, result.lines, base + lineStart);
        }
        result.lines++;
        lineStart = nl + 1;
        result.end = base + lineStart;
        nl = buf.indexOf(10, lineStart);
      }
      if (skipping) {
        held = 0;
        base = pos;
        result.end = pos;
        continue;
      }
      held = filled - lineStart;
      if (lineStart > 0 && held > 0) buf.copy(buf, 0, lineStart, filled);
      base += lineStart;
    }

    if (skipping) {
      // An oversized line still being written: nothing of it is kept; resume after it next time.
      result.end = pos;
    } else if (held > maxLineBytes) {
      result.oversized++;
      result.lines++;
      result.end = base + held;
    } else if (held > 0) {
      if (onLine(buf, 0, held, true, result.lines, base) === true) {
        result.end = base + held;
        result.lines++;
      } else result.pendingBytes = held;
    }
    if (buf.length <= KEEP_BYTES) spare = buf;
    return result;
  } finally {
    closeSync(fd);
  }
}

/** Whether `buf[start..end)` holds only spaces, tabs and carriage returns (not a bad line, a blank one). */
export function isBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i] !== 0x20 && buf[i] !== 0x09 && buf[i] !== 0x0d) return false;
  return true;
}
