/**
 * Sessions built while the rest of the files are still being read: a build's first half (reading
 * every file, on the workers) and its second (building every session, on this thread) overlap
 * instead of following each other, and a view can show the sessions as they come.
 *
 * A session is built here as soon as every file discovery placed under its name has been read, with
 * what is known by then: its own files deduplicated among themselves, the summaries read so far.
 * That is a guess the full build checks, not an answer: the build (`buildRecords`) reuses a record
 * only when its signature (its files, their dedupe outcome against every other file, its title) is
 * what the whole history gives, and builds it again otherwise (a resumed session whose parent replays
 * into it, a subagent's rollout that names its parent only once read). So the answer is exactly a
 * build's, and what is built here is seldom built twice.
 *
 * Not here: reading files (`refresh.ts`, `pool.ts`), the build's problems (the full build logs them
 * once), keeping anything.
 */
import type { SourceFile } from '../providers/types.js';
import type { ReadProgress } from './refresh.js';
import type { SessionRecord } from './session-record.js';
import {
  type BuildOptions,
  buildGroups,
  dedupeGroups,
  type Group,
  group,
  NO_SUMMARIES,
  type ParsedFile,
} from './sessions.js';

/** Which of discovery's sessions a file was found under (before reading it says more). */
const bucketOf = (f: SourceFile): string => `${f.provider}\u0000${f.sessionHint ?? f.path}`;

export class Pipeline {
  /** Files still to be read, per bucket. */
  private readonly waiting = new Map<string, number>();
  /** Files known so far, per bucket. */
  private readonly known = new Map<string, ParsedFile[]>();
  /** Claude's summaries read so far (the newest file's wins), and the time of the file each came from. */
  private readonly summaries = new Map<number, string>();
  private readonly summaryMs = new Map<number, number>();
  /** The sessions built so far, by key: what `buildRecords` may reuse, and what a view may show. */
  readonly built = new Map<string, SessionRecord>();

  constructor(private readonly o: Omit<BuildOptions, 'record'>) {}

  /**
   * Take what the read reports; the sessions whose every file is now read are built. Returns how
   * many were built by this call.
   */
  take(r: ReadProgress, reading: readonly SourceFile[] | null): number {
    if (reading !== null)
      for (const f of reading) this.waiting.set(bucketOf(f), (this.waiting.get(bucketOf(f)) ?? 0) + 1);
    const done = new Set<string>();
    for (const p of r.fresh) {
      const b = bucketOf(p.file);
      let files = this.known.get(b);
      if (files === undefined) {
        files = [];
        this.known.set(b, files);
      }
      files.push(p);
      for (const [leaf, text] of p.result.facts.titles.summaries) {
        const was = this.summaryMs.get(leaf);
        if (was === undefined || was <= p.file.mtimeMs) {
          this.summaries.set(leaf, text);
          this.summaryMs.set(leaf, p.file.mtimeMs);
        }
      }
      const left = this.waiting.get(b);
      // A bucket nothing is read for is answered by the index as it stands: nothing to build early.
      if (left === undefined || reading !== null) continue;
      this.waiting.set(b, left - 1);
      if (left - 1 === 0) done.add(b);
    }
    return done.size === 0 ? 0 : this.build(done);
  }

  /**
   * The sessions of `buckets`, each from its own files deduplicated among themselves, built together:
   * their titles are then redacted in one pass (`redactEach`), where one bucket at a time set the
   * secret rules to work once per session (about 0.1 CPU-s of a cold read of 3,800 sessions).
   */
  private build(buckets: ReadonlySet<string>): number {
    const own: Group[] = [];
    const masks = new Map<ParsedFile, Uint8Array>();
    for (const bucket of buckets) {
      const hint = bucket.slice(bucket.indexOf('\u0000') + 1);
      // Only the session the bucket is named for: a file naming another session (a subagent's rollout
      // naming its parent) is left to the full build, which sees every file of that session at once.
      const mine = group(this.known.get(bucket) ?? []).filter((g) => g.id === hint);
      for (const [p, m] of dedupeGroups(mine)) masks.set(p, m);
      own.push(...mine);
    }
    let n = 0;
    // Files read now are on disk: no deleted transcript's summary is known here, nor may title them.
    const summaries = { onDisk: this.summaries, deleted: NO_SUMMARIES };
    for (const [key, r] of buildGroups(own, masks, summaries, this.o)) {
      if (r === null) this.built.delete(key);
      else {
        this.built.set(key, r);
        n++;
      }
    }
    return n;
  }

  /** The sessions built so far, for the build to reuse where their signatures still hold. */
  into(cache: Map<string, SessionRecord>): void {
    for (const [key, r] of this.built) cache.set(key, r);
  }
}
