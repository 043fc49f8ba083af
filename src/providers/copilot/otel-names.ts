/**
 * The sessions one Copilot CLI OpenTelemetry export names (see `otel.ts`), found at discovery
 * without parsing the export: the light half of reading exports, which the warm path's discovery
 * loads without the reader.
 */
import { closeSync, readSync } from 'node:fs';
import { openRegular } from '../../regular-file.js';
import { MAX_MEMBER_CHARS, validMember } from '../sqlite-members.js';

/**
 * Sessions named from one export at most. An export is one process's run or a user's long-lived file;
 * a few hundred sessions is a heavy one. Past this, later sessions in the file are not listed.
 */
export const MAX_EXPORT_SESSIONS = 10_000;

const CONVERSATION = Buffer.from('"gen_ai.conversation.id":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Read granularity of the skim: an export of tens of megabytes is a few dozen reads. */
const CHUNK_BYTES = 1 << 20;

/**
 * The session ids an export names, in order of first mention: a skim of the bytes for
 * `"gen_ai.conversation.id":"…"`, parsing nothing (discovery runs on the warm path, which loads no
 * transcript reader). An id with an escape in it, or one unfit to name a member, is passed over.
 * The export is read in chunks; the tail of one that could hold a mention cut short is read again
 * with the next.
 */
export function conversationsIn(path: string): string[] {
  const seen = new Set<string>();
  const opened = openRegular(path);
  if (opened.kind === 'missing') throw Object.assign(new Error(`${path}: no such file`), { code: 'ENOENT' });
  if (opened.kind === 'not-file') throw new Error(`${path} is ${opened.what}, not a file`);
  if (opened.kind === 'failed')
    throw Object.assign(new Error(`${path}: ${opened.reason}`), { code: opened.code ?? undefined });
  // What a mention cut at a chunk's end can span: the marker, the longest id, its closing quote.
  const overlap = CONVERSATION.length + MAX_MEMBER_CHARS + 1;
  const buf = Buffer.allocUnsafe(CHUNK_BYTES + overlap);
  let held = 0;
  try {
    while (seen.size < MAX_EXPORT_SESSIONS) {
      const n = readSync(opened.fd, buf, held, CHUNK_BYTES, null);
      const end = held + n;
      let at = buf.indexOf(CONVERSATION);
      let done = 0;
      while (at !== -1 && at < end && seen.size < MAX_EXPORT_SESSIONS) {
        const from = at + CONVERSATION.length;
        let close = from;
        while (close < end && buf[close] !== QUOTE && buf[close] !== BACKSLASH) close++;
        // Cut short by the chunk: read again with the next one (at the end of the file, it is no id).
        if (close >= end && n > 0 && close - from <= MAX_MEMBER_CHARS) break;
        if (close < end && buf[close] === QUOTE && close > from) {
          const id = buf.toString('utf8', from, close);
          if (validMember(id) && !id.includes('/')) seen.add(id);
        }
        done = close;
        at = buf.indexOf(CONVERSATION, close);
        if (at >= end) at = -1;
      }
      if (n === 0) break;
      const keepFrom = Math.max(done, end - overlap);
      buf.copy(buf, 0, keepFrom, end);
      held = end - keepFrom;
    }
  } finally {
    closeSync(opened.fd);
  }
  return [...seen];
}
