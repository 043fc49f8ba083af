/**
 * Which files make one session, and which of their billed requests count: files are grouped by the
 * session they name, copies of a main transcript give way to the one their provider ranks first (else
 * the most complete), a subagent's files and a session's parts are counted beside it, and requests seen in
 * several files (a resumed session replays its parent's) count once, in the oldest file (a file on
 * disk before a deleted one the index remembers).
 *
 * Not here: what a session's record holds (`sessions.ts`).
 */
import { dedupe, ledgersOf } from '../model/dedupe.js';
import type { ProviderId } from '../model/facts.js';
import type { ParseResult, SourceFile } from '../providers/types.js';
import { sessionKeyOf } from './session-record.js';

export interface ParsedFile {
  file: SourceFile;
  result: ParseResult;
  /** The file is gone; its facts live on in the index so past spend does not shrink. */
  deleted?: boolean;
}

export interface Group {
  provider: ProviderId;
  id: string;
  main: ParsedFile | null;
  files: ParsedFile[];
}

/** The session a file counts toward: the one that spawned it when it says so, else its own. */
export function sessionKey(p: ParsedFile): string {
  return p.result.facts.parentSession ?? p.file.sessionHint ?? p.result.facts.sessionId ?? p.file.path;
}

/**
 * A subagent's file: found where the harness keeps its subagents (Claude's `subagents/`), or saying
 * so itself (a Codex rollout naming the session that spawned it, found among the main rollouts).
 */
export const isSubagent = (p: ParsedFile): boolean =>
  p.file.role === 'subagent' || (p.result.facts.parentSession ?? null) !== null;

/** A file counted with its session beside the one that speaks for it: a subagent's, or a part. */
const countedBeside = (p: ParsedFile): boolean => p.file.role === 'part' || isSubagent(p);

/**
 * Of two main files of one session (copies: Codex archives a rollout it also keeps), whether `a`
 * speaks for it rather than `b`. Where the provider ranked both, the lower rank, so that no damage
 * to a copy can take the session from the file that speaks for it; else the larger, the more
 * complete. Of two alike, the first by path.
 */
function speaksBefore(a: SourceFile, b: SourceFile): boolean {
  if (a.copyRank !== undefined && b.copyRank !== undefined && a.copyRank !== b.copyRank)
    return a.copyRank < b.copyRank;
  if (a.copyRank === undefined || b.copyRank === undefined) {
    if (a.size !== b.size) return a.size > b.size;
  }
  return a.path < b.path;
}

export function group(files: readonly ParsedFile[]): Group[] {
  const groups = new Map<string, Group>();
  for (const p of files) {
    const id = sessionKey(p);
    const key = `${p.file.provider}\u0000${id}`;
    let g = groups.get(key);
    if (!g) {
      g = { provider: p.file.provider, id, main: null, files: [] };
      groups.set(key, g);
    }
    if (!countedBeside(p)) {
      if (g.main === null || speaksBefore(p.file, g.main.file)) g.main = p;
      else continue;
    }
    g.files.push(p);
  }
  for (const g of groups.values()) {
    if (g.main) g.files = g.files.filter((p) => countedBeside(p) || p === g.main);
    // By path, so that a session reads the same whichever order its files were found or read in
    // (a cold read, a full build, a patch): its models, tools and spend by model list in that order.
    g.files.sort(byPath);
  }
  return [...groups.values()];
}

/** Files in one order whatever order they arrive in. */
export const byPath = (a: ParsedFile, b: ParsedFile): number =>
  a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0;

/**
 * The order files are deduplicated in: the files on disk before the deleted ones only the index
 * remembers, each part oldest first (a tie to the first by path). A deleted transcript never takes a
 * response from a file on disk that repeats it (a resumed session's copy): the sessions on disk read
 * exactly as a cold read of them does, and the deleted session keeps only what no file on disk holds,
 * so the totals still count each response once and past spend does not shrink.
 */
export const byDedupeOrder = (a: ParsedFile, b: ParsedFile): number =>
  Number(a.deleted === true) - Number(b.deleted === true) ||
  a.file.mtimeMs - b.file.mtimeMs ||
  (a.file.path < b.file.path ? -1 : 1);

/** Which records of `files` count, by file: `files` in `byDedupeOrder`, of one provider. */
export function dedupeOrdered(files: readonly ParsedFile[], into: Map<ParsedFile, Uint8Array>): void {
  let onDisk = 0;
  while (onDisk < files.length && files[onDisk]!.deleted !== true) onDisk++;
  const m = dedupe(ledgersOf(files), onDisk);
  for (const [i, p] of files.entries()) into.set(p, m[i]!);
}

/** Which ledger records count, per file: deduplicated per provider, in `byDedupeOrder`. */
export function dedupeGroups(groups: readonly Group[]): Map<ParsedFile, Uint8Array> {
  const masks = new Map<ParsedFile, Uint8Array>();
  for (const provider of new Set(groups.map((g) => g.provider))) {
    const ordered = groups
      .filter((g) => g.provider === provider)
      .flatMap((g) => g.files)
      .sort(byDedupeOrder);
    dedupeOrdered(ordered, masks);
  }
  return masks;
}

/** The key of a session in a `SessionCache` and in the index. */
export const groupKey = (g: Pick<Group, 'provider' | 'id'>): string => sessionKeyOf(g.provider, g.id);
