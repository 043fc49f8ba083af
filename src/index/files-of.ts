/**
 * One session's parsed files from the index, with the masks the kept build decided over the whole
 * history (a session's messages may repeat in other sessions' files, so deduplicating it alone could
 * count differently). What the report of a session answered from the index reads.
 *
 * Not here: building the report (`report/`).
 */
import { RECORD_FIELDS } from '../model/ledger.js';
import type { KeptFile } from './kept.js';
import { asParsed } from './refresh.js';
import type { ParsedFile } from './sessions.js';
import { IndexStore } from './store.js';

export interface SessionFiles {
  files: ParsedFile[];
  /** Which records count, decided over the whole history; null: deduplicate `files` yourself. */
  masks: Map<ParsedFile, Uint8Array> | null;
}

/**
 * The same from `store`, or, when the index was closed after its refresh (a one-shot command), from
 * the index in `dir` opened again for this one read.
 */
export function sessionFilesIn(
  store: IndexStore | null,
  dir: string,
  scope: string,
  key: string,
): SessionFiles | null {
  if (store !== null) return sessionFilesFrom(store, scope, key);
  const opened = IndexStore.open(dir);
  if (opened.kind !== 'open') return null;
  try {
    return sessionFilesFrom(opened.store, scope, key);
  } finally {
    opened.store.close();
  }
}

/** The files of the session `key` in `scope`, or null when the index cannot give all of them. */
export function sessionFilesFrom(store: IndexStore, scope: string, key: string): SessionFiles | null {
  const inputs = store.kept.inputs(scope);
  if (!inputs) return null;
  const mine: { at: number; file: KeptFile }[] = [];
  let at = 0;
  for (const f of inputs.files) {
    if (f.session === key) mine.push({ at, file: f });
    at += f.records;
  }
  let rows: ReturnType<IndexStore['loadPaths']>;
  try {
    rows = store.loadPaths(mine.map((m) => m.file.path));
  } catch {
    // A damaged index serves nothing here: the caller then reads the session's files itself.
    return null;
  }
  if (store.damaged !== null) return null;
  const files: ParsedFile[] = [];
  const masks = new Map<ParsedFile, Uint8Array>();
  for (const m of mine) {
    const row = rows.get(m.file.path);
    if (!row || row.result.ledger.data.length / RECORD_FIELDS !== m.file.records) return null;
    const p = asParsed(row, m.file.deleted);
    files.push(p);
    masks.set(p, inputs.masks.subarray(m.at, m.at + m.file.records));
  }
  return files.length > 0 ? { files, masks } : null;
}
