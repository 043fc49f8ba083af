/**
 * How a notice seen by any cctop reaches the one that sends. Every process with a notifier (a live
 * table, a dashboard, a watcher) sees crossings; some are seen by one process only (a budget crossing
 * is remembered in a shared file, so the first process to see it is the only one told). So each
 * process puts what it sees here, and the lock's holder (`lock.ts`) sends what is here.
 *
 * A notice is a file named by its key (`notice.ts`: the same crossing has the same key in every
 * process), published with `link`, which fails when the name exists: the second process to see a
 * crossing finds it there and adds nothing. A sender claims a notice by creating `<key>.sent`
 * exclusively before it sends it, so a notice is sent once even when two processes both believe they
 * hold the lock for a moment.
 *
 * Files are kept `SPOOL_KEEP_MS`: long enough that a slower process seeing the same crossing later
 * still finds it, then removed. A notice nobody claimed in that time (no process could hold the lock)
 * is dropped unsent: ten minutes late, it is history, not a call to act.
 *
 * Not here: the lock, or sending (`notifier.ts`).
 */
import {
  closeSync,
  linkSync,
  mkdirSync,
  opendirSync,
  openSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '../model/json.js';
import { readSmall, scratchName, unlinkQuietly } from './files.js';
import type { Notice } from './notice.js';
import { readNotice } from './notice-read.js';

export const SPOOL_DIR = 'notify-spool';

/**
 * How long a notice's files stay. Two cctops see one crossing within a refresh or two of each other
 * (seconds); ten minutes covers a slow refresh of a large history many times over.
 */
export const SPOOL_KEEP_MS = 10 * 60_000;

/**
 * Notices kept at once. A busy machine crosses a few times a minute, so ten minutes of them is a few
 * dozen; past 256 a new notice is not kept (and counted), which bounds the directory's size and the
 * sender's pass over it.
 */
export const MAX_SPOOLED = 256;

/** A spooled notice is well under 4 KiB (its fields are bounded in `notice.ts`); larger is not ours. */
export const MAX_SPOOL_FILE_BYTES = 16 * 1024;

/** Entries read from the directory in one pass: each notice has two files, and scratch files pass. */
const MAX_DIR_ENTRIES = MAX_SPOOLED * 4;

const KEY = /^[0-9a-f]{32}$/;
const NOTICE_FILE = /^[0-9a-f]{32}\.json$/;

export type Put = 'new' | 'known' | 'full' | 'failed';

interface Entry {
  key: string;
  mtimeMs: number;
  sent: boolean;
}

export class Spool {
  readonly dir: string;

  constructor(
    runtimeDir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.dir = join(runtimeDir, SPOOL_DIR);
  }

  private file(key: string, ext: 'json' | 'sent'): string {
    return join(this.dir, `${key}.${ext}`);
  }

  /** The names in the directory, at most `MAX_DIR_ENTRIES` of them. */
  private names(): string[] {
    const out: string[] = [];
    let d: ReturnType<typeof opendirSync>;
    try {
      d = opendirSync(this.dir);
    } catch {
      return out;
    }
    try {
      for (let e = d.readSync(); e !== null && out.length < MAX_DIR_ENTRIES; e = d.readSync())
        out.push(e.name);
    } finally {
      d.closeSync();
    }
    return out;
  }

  /** How many notices are kept, claimed or not. */
  private count(): number {
    return this.names().filter((name) => NOTICE_FILE.test(name)).length;
  }

  /** What is in the directory: each notice's key, when it was put, and whether it was claimed. */
  private entries(): { notices: Entry[]; others: string[] } {
    const notices = new Map<string, Entry>();
    const claimed = new Set<string>();
    const others: string[] = [];
    for (const name of this.names()) {
      const m = /^([0-9a-f]{32})\.(json|sent)$/.exec(name);
      if (m === null) others.push(name);
      else if (m[2] === 'sent') claimed.add(m[1]!);
      else {
        const st = statSync(join(this.dir, name), { throwIfNoEntry: false });
        if (st !== undefined) notices.set(m[1]!, { key: m[1]!, mtimeMs: st.mtimeMs, sent: false });
      }
    }
    for (const key of claimed) {
      const n = notices.get(key);
      if (n) n.sent = true;
      // A claim whose notice is gone is removed with the others.
      else others.push(`${key}.sent`);
    }
    return { notices: [...notices.values()], others };
  }

  /** Keep `n` for the sender, unless the same crossing is already kept. Never throws. */
  put(n: Notice): Put {
    if (!KEY.test(n.key)) return 'failed';
    let tmp: string | null = null;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      if (this.count() >= MAX_SPOOLED) {
        this.sweep();
        if (this.count() >= MAX_SPOOLED) return 'full';
      }
      tmp = scratchName(this.file(n.key, 'json'));
      writeFileSync(tmp, JSON.stringify(n), { mode: 0o600 });
      const path = this.file(n.key, 'json');
      try {
        linkSync(tmp, path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') return 'known';
        throw err;
      }
      const s = this.now() / 1000;
      utimesSync(path, s, s);
      return 'new';
    } catch {
      return 'failed';
    } finally {
      if (tmp !== null) unlinkQuietly(tmp);
    }
  }

  /**
   * The notices nobody has claimed, claimed now by the caller, oldest first: each is handed to one
   * caller, in whichever process, once. Never throws.
   */
  claim(): Notice[] {
    const out: Notice[] = [];
    const nowMs = this.now();
    for (const e of this.entries().notices) {
      if (e.sent || nowMs - e.mtimeMs > SPOOL_KEEP_MS) continue;
      try {
        closeSync(openSync(this.file(e.key, 'sent'), 'wx', 0o600));
      } catch {
        // Claimed by another sender a moment ago, or the directory is gone.
        continue;
      }
      const text = readSmall(this.file(e.key, 'json'), MAX_SPOOL_FILE_BYTES);
      const n = text === null ? null : readNotice(parseJson(text));
      if (n !== null && n.key === e.key) out.push(n);
    }
    return out.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  }

  /** Notices kept and not yet claimed (for `cctop doctor`). */
  pending(): number {
    return this.entries().notices.filter((e) => !e.sent).length;
  }

  /** Remove what is older than `SPOOL_KEEP_MS`; returns how many of those were never claimed. */
  sweep(): number {
    const nowMs = this.now();
    let expired = 0;
    const { notices, others } = this.entries();
    for (const e of notices) {
      if (nowMs - e.mtimeMs <= SPOOL_KEEP_MS) continue;
      if (!e.sent) expired++;
      unlinkQuietly(this.file(e.key, 'json'));
      unlinkQuietly(this.file(e.key, 'sent'));
    }
    for (const name of others) {
      const path = join(this.dir, name);
      const st = statSync(path, { throwIfNoEntry: false });
      if (st !== undefined && nowMs - st.mtimeMs > SPOOL_KEEP_MS) unlinkQuietly(path);
    }
    return expired;
  }
}
