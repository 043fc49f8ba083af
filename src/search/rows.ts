/**
 * The shapes the search index stores and answers with: a transcript as it was read (`FileState`,
 * `FileRow`), the rows of a turn (`TurnRow`) and the ids they take, and a row a query found
 * (`FoundRow`).
 */

import type { ReadPoint } from '../model/conversation.js';
import type { ProviderId } from '../model/facts.js';
import type { SecretEnds } from '../secrets/feed.js';

/**
 * Row ids a transcript owns: `file id × ROW_SLOTS + slot`, slot 0 its title, `1 + 2·seq` a turn's
 * words and `2 + 2·seq` its calls. 2^26 leaves room for 2^37 transcripts in SQLite's 63 bits.
 */
export const ROW_SLOTS = 2 ** 26;

/** Turns indexed per transcript: what the slots hold (33 million; a transcript has thousands). */
export const MAX_TURNS_INDEXED = (ROW_SLOTS - 2) / 2;

/** What a row is: a person's words, the agent's, a turn's calls, or the session's title. */
export type RowRole = 'user' | 'assistant' | 'tool' | 'title';

/** One row to index: a turn's words or its calls. */
export interface TurnRow {
  seq: number;
  role: Exclude<RowRole, 'title'>;
  tsMs: number | null;
  text: string;
}

/** A secret found in a turn, as the index keeps it (`secrets/feed.ts`): never the whole. */
export type SecretRow = SecretEnds;

/** A secret the index holds, with the session it was found in. */
export interface FoundSecret extends SecretRow {
  provider: ProviderId;
  session: string;
  project: string | null;
  path: string;
}

/** The state of a transcript as last read: its stat then, and where a later read may start. */
export interface ReadState {
  size: number;
  mtimeMs: number;
  ino: number;
  resume: ReadPoint;
  /**
   * A hash of the bytes around `resume` as they were (`read.ts`, `markAt`): a file replaced by another
   * (which may reuse the inode number) reads differently there, and is read again whole.
   */
  mark: string | null;
}

/** A transcript as the quick look needs it: where it is and how far it was read. */
export interface FileState {
  id: number;
  path: string;
  provider: ProviderId;
  /** null: listed but not read yet. */
  read: ReadState | null;
}

/** A transcript with the session it belongs to, for reading it into the index. */
export interface FileRow extends FileState {
  session: string;
  project: string | null;
  title: string | null;
}

/** What a transcript is, as the session index says. */
export interface FileMeta {
  path: string;
  provider: ProviderId;
  session: string;
  project: string | null;
  title: string | null;
}

/** A row found by a query, before it is shaped for a view. */
export interface FoundRow {
  provider: ProviderId;
  session: string;
  project: string | null;
  title: string | null;
  role: RowRole;
  seq: number | null;
  ts: number | null;
  snippet: string;
}

export interface Filters {
  providers: readonly ProviderId[] | null;
  project: string | null;
  sinceMs: number | null;
  untilMs: number | null;
  role: Exclude<RowRole, 'title'> | null;
}
