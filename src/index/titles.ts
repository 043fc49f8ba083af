/**
 * What a session is called: a title the person or Claude gave it, else the summary Claude wrote for
 * its leaf, else its first prompt; redacted as the session is built (`sessions.ts`). Not here: where
 * titles are read from a transcript (each provider's parser).
 */
import { MASK_MARK, redactEach } from '../secrets/redact.js';
import { type Group, groupKey, type ParsedFile } from './group.js';

/**
 * Claude's summaries, which name a session by its leaf message whichever file they are written in.
 * A session with a file on disk is titled only by what files on disk say, as a cold read of them
 * (`--no-cache`) titles it: a deleted transcript's summary never titles it. A session whose every
 * file is deleted keeps the title the index saw: the summaries of deleted transcripts title it
 * where no file on disk gives one for the same leaf, as it keeps the spend no file on disk holds.
 */
export interface Summaries {
  /** From the files on disk, the newest file's last for a leaf. */
  onDisk: ReadonlyMap<number, string>;
  /** From the deleted transcripts the index remembers, the newest file's (a tie to the last by path). */
  deleted: ReadonlyMap<number, string>;
}

/** No summaries: for a build of files on disk with none from deleted transcripts. */
export const NO_SUMMARIES: ReadonlyMap<number, string> = new Map();

/** The summaries of deleted transcripts, read in one order whatever order the files come in. */
export function deletedSummaries(files: readonly ParsedFile[]): Map<number, string> {
  const out = new Map<number, string>();
  const gone = files.filter((p) => p.deleted === true);
  gone.sort((a, b) => a.file.mtimeMs - b.file.mtimeMs || (a.file.path < b.file.path ? -1 : 1));
  for (const p of gone) for (const [leaf, text] of p.result.facts.titles.summaries) out.set(leaf, text);
  return out;
}

/**
 * A title is the person's first prompt more often than not, and goes everywhere a session is named
 * (the list, the dashboard, the team store): redacted once, as the session is built. The rules load
 * only when a session is built again, never on a warm answer.
 *
 * The titles of every session a build makes are redacted together (`redactEach`): the rules' set-up
 * is paid once per 64 KB of titles instead of once per session, which on a history of thousands of
 * sessions was a tenth of a first build's serial tail.
 *
 * A session rebuilt because its transcript grew nearly always keeps its title. When the title it was
 * given before (`before`) is the same text and holds no mask, the rules found nothing in that text
 * then and so would find nothing now: it is kept without loading them, which was a tenth of what a
 * patching run spends outside reading (the preset is a megabyte of modules).
 */
export function titlesOf(
  groups: readonly Group[],
  summaries: Summaries,
  before?: ReadonlyMap<string, string | null>,
): Map<Group, string | null> {
  const titles = new Map<Group, string | null>();
  const unchecked: Group[] = [];
  const texts: string[] = [];
  for (const g of groups) {
    const t = chosenTitle(g, summaries);
    if (t === null || (t === before?.get(groupKey(g)) && !t.includes(MASK_MARK))) titles.set(g, t);
    else {
      unchecked.push(g);
      texts.push(t);
    }
  }
  const redacted = redactEach(texts);
  for (let i = 0; i < unchecked.length; i++) titles.set(unchecked[i]!, redacted[i]!);
  return titles;
}

/** What names a session before redaction: a title the person or Claude gave, a summary, or the first prompt. */
function chosenTitle(g: Group, summaries: Summaries): string | null {
  const f = (g.main ?? g.files[0]!).result.facts;
  return f.titles.custom ?? f.titles.ai ?? summaryOf(g, summaries) ?? f.titles.firstPrompt;
}

/** The summary that titles a session, if any (see `Summaries` for which it may be). */
export function summaryOf(g: Group, summaries: Summaries): string | null {
  if (summaries.onDisk.size === 0 && summaries.deleted.size === 0) return null;
  const deleted = g.files.every((p) => p.deleted === true);
  const gone = deleted ? summaries.deleted : NO_SUMMARIES;
  for (const p of g.files) {
    // A session on disk reads its leaves as a cold read does: from its files on disk.
    if (!deleted && p.deleted === true) continue;
    for (const u of p.result.facts.tailUuids) {
      const s = summaries.onDisk.get(u) ?? gone.get(u);
      if (s !== undefined) return s;
    }
  }
  return null;
}
