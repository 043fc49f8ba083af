/**
 * Reading one transcript into the search index: through its provider's own conversation reader
 * (behind the fence, `conversationOf`), with a `TurnFeed` that keeps every turn rather than the
 * window, each turn made into rows (its words, and its calls as their names and what they were called
 * on). A transcript that only grew is read on from where its provider says a read may start again;
 * one that shrank or was replaced is read whole.
 *
 * Not here: deciding which transcripts to read (`catch-up.ts`), the tables (`store.ts`).
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import type { ReadPoint, Turn, TurnFeed } from '../model/conversation.js';
import type { Provider } from '../providers/types.js';
import { SecretFeed } from '../secrets/feed.js';
import type { FileRow, ReadState, TurnRow } from './rows.js';
import type { SearchDb } from './store.js';

/** A file's size, mtime and inode, as a stat or a listing gave them. */
export interface Stat {
  size: number;
  mtimeMs: number;
  ino: number;
}

/** A turn's rows: its words and its calls, each a row; the harness's own words are not searched. */
export function rowsOf(t: Turn): TurnRow[] {
  if (t.role === 'system') return [];
  const ms = Date.parse(t.ts);
  const tsMs = Number.isFinite(ms) ? ms : null;
  const rows: TurnRow[] = [];
  if (t.text.length > 0) rows.push({ seq: t.seq, role: t.role, tsMs, text: t.text });
  if (t.tools.length > 0)
    rows.push({
      seq: t.seq,
      role: 'tool',
      tsMs,
      text: t.tools.map((x) => (x.detail.length > 0 ? `${x.name} ${x.detail}` : x.name)).join('\n'),
    });
  return rows;
}

/** A feed that keeps the rows of every turn it is handed, its secrets' ends, and where the read began and may resume. */
export class RowFeed extends SecretFeed {
  readonly rows: TurnRow[] = [];

  override turn(t: Turn): void {
    for (const r of rowsOf(t)) this.rows.push(r);
    super.turn(t);
  }
}

/** Bytes on each side of a resume point that its mark covers. */
const MARK_BYTES = 256;

/**
 * A hash of the bytes around `offset` in `path`, up to `size` (what the file held when it was read):
 * `<end>:<hash>`, so the same bytes are hashed again however the file has grown since. Null when the
 * file cannot be read.
 */
export function markAt(path: string, offset: number, size: number): string | null {
  const start = Math.max(0, offset - MARK_BYTES);
  const end = Math.min(size, offset + MARK_BYTES);
  const buf = Buffer.alloc(Math.max(0, end - start));
  let fd: number | null = null;
  try {
    fd = openSync(path, 'r');
    const got = readSync(fd, buf, 0, buf.length, start);
    return `${end}:${createHash('sha1').update(buf.subarray(0, got)).digest('base64url')}`;
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** Whether a file only grew since it was read: same inode, no smaller, the same bytes at its resume point. */
function onlyGrew(path: string, was: ReadState | null, now: Stat): was is ReadState {
  if (was === null || was.ino !== now.ino || now.size < was.size || was.mark === null) return false;
  const end = Number(was.mark.slice(0, was.mark.indexOf(':')));
  return markAt(path, was.resume.offset, end) === was.mark;
}

/**
 * Read one transcript into the index: on from its resume point when it only grew, else whole. A
 * conversation that cannot be read is remembered as read, with no rows, until the file changes
 * again. Returns the bytes read.
 *
 * known limit: a file replaced by another that has the same bytes around the resume point (and a
 * reused inode number, and no fewer bytes) is taken for the same file grown; only its turns from
 * that point on are read again.
 */
export function readInto(
  db: SearchDb,
  provider: Provider,
  file: FileRow,
  now: Stat,
  read: ReadConversation,
): number {
  const feed = new RowFeed(onlyGrew(file.path, file.read, now) ? file.read.resume : null);
  const c = read(provider, file.path, feed);
  const top: ReadPoint = { offset: 0, seq: 0 };
  const resume = c.supported ? feed.resume : top;
  const state: ReadState = { ...now, resume, mark: markAt(file.path, resume.offset, now.size) };
  if (c.supported) db.replace(file, feed.began, feed.rows, state, feed.secrets);
  else db.replace(file, top, [], state, []);
  return Math.max(0, now.size - (c.supported ? feed.began.offset : 0));
}

/** How a conversation is read: the fence's `conversationOf`, with a feed. */
export type ReadConversation = (provider: Provider, path: string, feed: TurnFeed) => { supported: boolean };

/** The providers and their readers, loaded when a transcript is first read (a fresh index reads none). */
export async function readers(): Promise<{
  providerOf: (id: FileRow['provider']) => Provider;
  read: ReadConversation;
}> {
  const { conversationOf, providerById } = await import('../providers/index.js');
  return {
    providerOf: providerById,
    read: (provider, path, feed) => conversationOf(provider, path, { before: null, agent: null, feed }),
  };
}
