/**
 * The robustness suite: every harness's reader, fed real files damaged the ways files get damaged
 * (`src/test-support/mutate.ts`), must
 *   - never throw: the scan answers with a document, and the readers themselves (a file's facts, a
 *     conversation, a report's calls) return rather than throw on what they were given;
 *   - stay within a stated memory bound;
 *   - count what it could not read: a damaged file is named in the problems;
 *   - cost nothing but the damaged file's own session: every other session of the same history is
 *     exactly what a clean run made of it.
 *
 * The files are the lab's recordings of the real CLIs and the fixtures the provider tests write
 * (`src/test-support/machine.ts`). A failure prints fast-check's seed and path: set
 * `CCTOP_ROBUSTNESS_SEED` to that seed to run the same cases again.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { group } from '../src/index/sessions.js';
import type { SessionDocument } from '../src/model/document.js';
import type { ProviderId } from '../src/model/facts.js';
import { nestsDeeper, readObjectAt } from '../src/model/json.js';
import { providerById } from '../src/providers/index.js';
import { closeAll } from '../src/providers/sqlite.js';
import { REPO } from '../src/test-support/corpus.js';
import { ALL, HISTORY_MTIME_MS, type HistoryFile, Machine } from '../src/test-support/machine.js';
import { brokenLine, type Mutation, mutate, mutation } from '../src/test-support/mutate.js';
import { readCold } from '../src/test-support/snapshot.js';

/**
 * Damaged histories tried per harness. Ten harnesses at 25 runs each take about half a minute on two
 * cores, well inside what CI allows the whole suite; a different seed tries different damage, and
 * `CCTOP_ROBUSTNESS_RUNS` tries more of it (for a search, not for CI).
 */
const RUNS_PER_HARNESS = Number(process.env.CCTOP_ROBUSTNESS_RUNS ?? 25);

/** The seed every run starts from; printed by fast-check with any failure. */
const SEED = Number(process.env.CCTOP_ROBUSTNESS_SEED ?? 20261201);

/**
 * How much more resident memory one damaged history may leave the process holding after it is
 * scanned and its damaged session's conversation and calls are read. The largest damage is two or
 * three 10 MiB strings; the runs here grow by 40 MiB at most. A reader that held such a line twenty
 * times over, or decoded one into an object per byte, would pass this bound. Generous, because the
 * collector runs when it likes.
 */
const MAX_RSS_GROWTH_BYTES = 256 << 20;

/** Harnesses whose files are documents (one JSON value), not lines. */
const DOCUMENTS: ReadonlySet<ProviderId> = new Set(['opencode', 'devin', 'windsurf', 'droid']);

/**
 * Harnesses whose damageable files are whole SQLite databases: damage there is what SQLite itself
 * finds (a byte flipped in a header field it never reads, or a swap of a line with itself, leaves a
 * sound database whose rows read as before, and nothing for a reader to report).
 */
const DATABASES: ReadonlySet<ProviderId> = new Set(['hermes', 'goose', 'kilo', 'zcode', 'antigravity']);

const NOW = Date.parse('2026-12-01T00:00:00Z');

/**
 * Donor files for a splice: a recording of each harness in the lab. A harness is never spliced with
 * its own recordings: those are sessions of this very history, and a copy of one session's records
 * in another file is a real change to that session (its records are deduplicated, its id may move).
 */
const DONORS: [ProviderId, Buffer][] = (['claude', 'codex', 'gemini', 'qwen', 'copilot', 'pi'] as const).map(
  (agent) => [agent, readFileSync(findJsonl(join(REPO, 'lab', 'fixtures', agent, 'call', 'home')))],
);

function findJsonl(dir: string): string {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      const found = findJsonl(p);
      if (found) return found;
    } else if (name.endsWith('.jsonl')) return p;
  }
  return '';
}

/** The bytes a harness reads from `f`: the file, or for Windsurf the chat data in its database. */
function bytesOf(f: HistoryFile): Buffer {
  if (!f.windsurfKey) return readFileSync(f.path);
  const db = new Database(f.path, { readonly: true });
  try {
    const row = db.prepare('SELECT value FROM ItemTable WHERE key = ?').get(f.windsurfKey) as {
      value: unknown;
    };
    return Buffer.from(row.value as string | Buffer);
  } finally {
    db.close();
  }
}

/**
 * Write the bytes a harness reads from `f`, dated `mtimeMs`. Each damaged version gets a date of its
 * own, as a write would give it: a database's size may not change (it is pages), its date does, and
 * a reader may keep what it read of a file until either moves.
 */
function write(f: HistoryFile, b: Buffer, mtimeMs: number): void {
  if (f.windsurfKey) {
    closeAll();
    const db = new Database(f.path);
    try {
      db.prepare('UPDATE ItemTable SET value = ? WHERE key = ?').run(b, f.windsurfKey);
    } finally {
      db.close();
    }
  } else writeFileSync(f.path, b);
  utimesSync(f.path, mtimeMs / 1000, mtimeMs / 1000);
}

/**
 * Whether the damaged bytes hold something no reader may take for a record. Nothing at all is not
 * damage: an empty file (or chat value) reads as a session with nothing in it yet.
 */
function damaged(p: ProviderId, b: Buffer, original: Buffer): boolean {
  if (b.length === 0) return false;
  if (DATABASES.has(p)) return !b.equals(original) && !soundDatabase(b);
  if (DOCUMENTS.has(p)) return readObjectAt(b, 0, b.length).kind === 'bad';
  let start = 0;
  for (;;) {
    const nl = b.indexOf(10, start);
    const end = nl === -1 ? b.length : nl;
    const line = b.subarray(start, end);
    if (brokenLine(line) || nestsDeeper(b, start, end)) return true;
    if (nl === -1) return false;
    start = nl + 1;
  }
}

/** Whether `b` is a database SQLite finds nothing wrong with (opened from a copy, never in place). */
function soundDatabase(b: Buffer): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'cctop-robust-db-'));
  try {
    const path = join(dir, 'copy.db');
    writeFileSync(path, b);
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const rows = db.pragma('quick_check') as { quick_check: string }[];
      return rows.length === 1 && rows[0]!.quick_check === 'ok';
    } finally {
      db.close();
    }
  } catch {
    // Not a database SQLite will open at all: damaged.
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The sessions of a document but those the damaged source belongs to (before, or now: it may have a new id). */
const othersJson = (doc: SessionDocument, owner: string, before: Set<string>) =>
  doc.sessions
    .filter((s) => !before.has(`${s.provider}/${s.id}`) && !ownedBy(s.file, owner))
    .map((s) => JSON.stringify(s));

/** Whether the source `path` is `owner` or one of its members (`<database>#<member>`). */
const ownedBy = (path: string, owner: string) => path === owner || path.startsWith(`${owner}#`);

describe.each(ALL)('%s files, damaged', (p) => {
  let machine: Machine;
  let clean: SessionDocument;
  /** For each source the scan reads, the sessions it belongs to. */
  const sessionsOf = new Map<string, Set<string>>();

  const snap = () => readCold(machine.env, { providers: [p], nowMs: NOW });

  beforeAll(async () => {
    machine = Machine.build([p]);
    const s = await snap();
    clean = s.document;
    expect(clean.sessions.length).toBeGreaterThan(1);
    for (const g of group(s.files ?? []))
      for (const f of g.files) {
        const set = sessionsOf.get(f.file.path) ?? new Set();
        set.add(`${g.provider}/${g.id}`);
        sessionsOf.set(f.file.path, set);
      }
  });
  afterAll(() => {
    closeAll();
    machine.cleanup();
  });

  /** The sessions whose sources include `owner` (for a database, any of its members). */
  const touched = (owner: string): Set<string> => {
    const out = new Set<string>();
    for (const [path, ids] of sessionsOf) if (ownedBy(path, owner)) for (const id of ids) out.add(id);
    return out;
  };

  it('never throws, stays within its memory bound, names the damaged file and leaves every other session as it was', async () => {
    const files = machine.files.get(p)!;
    let written = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        fc.nat(),
        async (which: number, mutations: Mutation[], donor: number) => {
          const target = files[which % files.length]!;
          const original = bytesOf(target);
          const donors = DONORS.filter(([agent]) => agent !== p);
          const from = donors[donor % donors.length]![1];
          const bytes = mutations.reduce((b, m) => mutate(b, m, from), original);
          write(target, bytes, HISTORY_MTIME_MS + 1000 * ++written);
          try {
            const before = process.memoryUsage().rss;
            const s = await snap();
            const doc = s.document;

            const mine = touched(target.owner);
            expect(othersJson(doc, target.owner, mine)).toEqual(othersJson(clean, target.owner, mine));

            if (damaged(p, bytes, original))
              expect(
                doc.problems.some((x) => ownedBy(x.path, target.owner)),
                `a problem names ${target.owner}`,
              ).toBe(true);

            // The readers themselves, unfenced: damage is data to them, not a reason to throw.
            const provider = providerById(p);
            for (const f of s.discovery.files.filter((x) => ownedBy(x.path, target.owner))) {
              provider.parse(f, null);
              provider.conversation?.(f.path, { before: null, agent: null });
              provider.calls?.(f.path);
            }
            expect(process.memoryUsage().rss - before).toBeLessThan(MAX_RSS_GROWTH_BYTES);
          } finally {
            write(target, original, HISTORY_MTIME_MS);
          }
        },
      ),
      { seed: SEED, numRuns: RUNS_PER_HARNESS },
    );
  });
});
