/**
 * Naming one session inside a database. A database holds many sessions, and the index keys everything
 * by path, so a session read from a database is named `<database>#<member>` (`memberPath`): the path
 * before `#` is the file, the member names the rows. Such a path cannot be opened or stat-ed; its
 * `SourceFile` size, mtime and inode are a fingerprint of those rows that the provider computes at
 * discovery and returns unchanged from `parse`, so the index re-reads a session exactly when its rows
 * changed.
 *
 * Not here: opening the database or reading the rows a member names. These are only names, made and
 * taken apart without touching the database.
 */

import type { FileFacts } from '../model/facts.js';
import type { Ledger } from '../model/ledger.js';
import type { ParseResult, SourceFile } from './types.js';

/** Member names (session ids, tab ids) past this length are refused rather than shortened. */
export const MAX_MEMBER_CHARS = 256;

const SEPARATOR = '#';

/** The path of one member (a session, a chat tab) of a database. */
export const memberPath = (database: string, member: string): string => `${database}${SEPARATOR}${member}`;

/** A member id fit to name: bounded, one line, no separator. */
export const validMember = (member: string): boolean =>
  member.length > 0 &&
  member.length <= MAX_MEMBER_CHARS &&
  !member.includes(SEPARATOR) &&
  !/[\u0000-\u001f]/.test(member);

/** Split a member path back into the database file and the member, or null for a plain file path. */
export function splitMember(path: string): { database: string; member: string } | null {
  const at = path.lastIndexOf(SEPARATOR);
  if (at <= 0) return null;
  const member = path.slice(at + 1);
  if (!validMember(member) || member.includes('/')) return null;
  return { database: path.slice(0, at), member };
}

/**
 * What `parse` returns for a member read whole (or for a database that is one session, read whole): its rows are read again each time (there is no
 * offset to continue from, so nothing carried is ever used; a provider whose files carry state hands
 * its parser's, to keep one type), and its fingerprint goes back unchanged.
 */
export function memberRead(file: SourceFile, facts: FileFacts, ledger: Ledger): ParseResult<null>;
export function memberRead<C>(file: SourceFile, facts: FileFacts, ledger: Ledger, carry: C): ParseResult<C>;
export function memberRead(
  file: SourceFile,
  facts: FileFacts,
  ledger: Ledger,
  carry: unknown = null,
): ParseResult<unknown> {
  return {
    facts,
    carry,
    ledger,
    offset: 0,
    size: file.size,
    mtimeMs: file.mtimeMs,
    ino: file.ino,
    pendingBytes: 0,
  };
}
