/**
 * The strategies may decline, never differ: through random histories (transcripts growing, new,
 * rewritten, deleted, resumed into copies that repeat their parent's responses, summaries naming
 * other sessions, the clock moving across hours), every answer through the index equals a cold read
 * of the same files, and every strategy (kept, patched, built) gets its turn. The warm snapshot is
 * the fourth: asked after each step, before the index, it either declines or prints, to the byte,
 * what the index then prints. The warm document (`cctop --json`'s own, `../warm-answer.ts`) is the
 * fifth, likewise. Processes are looked at and none is found, as on a machine where no agent runs.
 *
 * The histories are made of Claude lines written here and a Codex rollout the lab recorded from the
 * real CLI (`lab/fixtures/codex/call`), so the test needs nothing outside the repository. A failure
 * prints fast-check's seed and path; `CCTOP_PATCH_SEED` replays it.
 */
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { processAnnotator } from '../live/annotate.js';
import { ProcessTable } from '../live/processes.js';
import type { SessionDocument } from '../model/document.js';
import { totalsOf } from '../model/totals.js';
import { cacheDir } from '../paths.js';
import { gatherQuota } from '../quota/gather.js';
import { claudeResponse, FakeHome, jsonl, REPO } from '../test-support/corpus.js';
import { paint } from '../views/cli/color.js';
import { renderList, renderRows, rowOfFacts } from '../views/cli/list.js';
import { warmJson } from '../warm-answer.js';
import { warmList } from '../warm-list.js';
import { takeSnapshot } from './snapshot.js';
import type { Strategy } from './strategies.js';
import { buildVersion } from './version.js';
import { readWarm } from './warm.js';

/** `--list` without colour, to compare the tables by their text. */
const PLAIN = paint(false, {});

/** Histories tried: each takes about a second on two cores. */
const RUNS = Number(process.env.CCTOP_PATCH_RUNS ?? 12);
const SEED = Number(process.env.CCTOP_PATCH_SEED ?? 20261202);
/** The property's budget: 15 seconds a history, ten times what one takes on two loaded cores. */
const BUDGET_MS = Math.max(180_000, RUNS * 15_000);

const NOON = Date.parse('2026-11-29T12:00:00Z');

/** The lab's recording of Codex 0.169.0 making one tool call, line by line. */
const CODEX_DIR = join(
  REPO,
  'lab',
  'fixtures',
  'codex',
  'call',
  'home',
  '.codex',
  'sessions',
  '2026',
  '12',
  '01',
);
const CODEX_NAME = readdirSync(CODEX_DIR).find((n) => n.endsWith('.jsonl'))!;
const CODEX_LINES = readFileSync(join(CODEX_DIR, CODEX_NAME), 'utf8').split(/(?<=\n)/);

type Step =
  | { kind: 'respond'; file: number; count: number; repeatOf: number | null }
  | { kind: 'new'; file: number }
  | { kind: 'rewrite'; file: number }
  | { kind: 'delete'; file: number }
  | { kind: 'summary'; file: number; names: number }
  | { kind: 'codex'; lines: number }
  | { kind: 'clock'; minutes: number }
  | { kind: 'nothing' };

const FILES = 4;
const file = fc.integer({ min: 0, max: FILES - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('respond' as const),
      file,
      count: fc.integer({ min: 1, max: 3 }),
      repeatOf: fc.option(file, { freq: 4 }),
    }),
    weight: 6,
  },
  { arbitrary: fc.record({ kind: fc.constant('new' as const), file }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('rewrite' as const), file }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('delete' as const), file }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('summary' as const), file, names: file }), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant('codex' as const), lines: fc.integer({ min: 1, max: 6 }) }),
    weight: 2,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('clock' as const), minutes: fc.integer({ min: 1, max: 150 }) }),
    weight: 2,
  },
  { arbitrary: fc.constant({ kind: 'nothing' as const }), weight: 2 },
);

/** A history being written, one step at a time. */
class History {
  readonly home = new FakeHome();
  nowMs = NOON;
  private next = 0;
  /** Each file's responses, by message number, to repeat one in another file (a resumed session). */
  private readonly written = new Map<number, string[]>();
  private codexFed = 0;

  path(i: number): string {
    return this.home.claudeFile('-w', `s${i}.jsonl`);
  }

  private at(): string {
    return new Date(this.nowMs - 60_000 + (this.next % 60) * 1000).toISOString();
  }

  private response(i: number): string {
    const n = this.next++;
    const line = claudeResponse(String(n), 1 + (n % 17), this.at(), 1 + (n % 5)).replace(
      '"sessionId":"s"',
      `"sessionId":"s${i}"`,
    );
    this.written.set(i, [...(this.written.get(i) ?? []), line]);
    return line;
  }

  apply(s: Step): void {
    switch (s.kind) {
      case 'respond': {
        let text = '';
        for (let k = 0; k < s.count; k++) text += this.response(s.file);
        const repeated = s.repeatOf === null ? undefined : this.written.get(s.repeatOf)?.[0];
        if (repeated !== undefined && s.repeatOf !== s.file) text += repeated;
        if (existsSync(this.path(s.file))) appendFileSync(this.path(s.file), text);
        else this.home.write(this.path(s.file), text);
        return;
      }
      case 'new':
        if (!existsSync(this.path(s.file))) this.home.write(this.path(s.file), this.response(s.file));
        return;
      case 'rewrite':
        this.written.delete(s.file);
        this.home.write(this.path(s.file), this.response(s.file));
        return;
      case 'delete':
        rmSync(this.path(s.file), { force: true });
        return;
      case 'summary': {
        const leaf = this.written.get(s.names)?.at(-1);
        const uuid = leaf === undefined ? null : (JSON.parse(leaf) as { uuid: string }).uuid;
        if (uuid === null || !existsSync(this.path(s.file))) return;
        appendFileSync(
          this.path(s.file),
          jsonl({ type: 'summary', summary: `about ${uuid}`, leafUuid: uuid }),
        );
        return;
      }
      case 'codex': {
        const more = CODEX_LINES.slice(this.codexFed, this.codexFed + s.lines).join('');
        this.codexFed = Math.min(CODEX_LINES.length, this.codexFed + s.lines);
        if (more.length === 0) return;
        const path = this.home.codexFile(CODEX_NAME, '2026/12/01');
        if (existsSync(path)) appendFileSync(path, more);
        else this.home.write(path, more);
        return;
      }
      case 'clock':
        this.nowMs += s.minutes * 60_000;
        return;
      case 'nothing':
        return;
    }
  }
}

/** The document as text, without what only an index can know (deleted transcripts) or the clock. */
function comparable(json: Buffer): string {
  const d = JSON.parse(json.toString()) as SessionDocument;
  expect(d.totals).toEqual(totalsOf(d.sessions));
  const sessions = d.sessions.filter((s) => !s.deleted);
  // As text: key order and list order must agree too, not only the values.
  return JSON.stringify({ ...d, generatedAt: '', sessions, totals: totalsOf(sessions) });
}

/** The deleted sessions of a document, whole, in its order, as text. */
const deletedOf = (d: SessionDocument): string => JSON.stringify(d.sessions.filter((s) => s.deleted));

type Answerer = Strategy | 'snapshot' | 'document' | 'document --list';

/** What a replay also tells a test that follows one history. */
interface Watch {
  /** The strategy that answered each step through the index, in order. */
  strategies: Strategy[];
  /**
   * After the last step, the whole document (deleted sessions too, which no cold read knows) as a
   * build of every file the index holds gives it.
   */
  built: string | null;
}

/**
 * Write the history step by step and, after each step, check every answer against a cold read,
 * noting in `seen` which ones answered. Returns the index's document after the last step.
 */
async function replay(steps: readonly Step[], seen: Set<Answerer>, watch?: Watch): Promise<SessionDocument> {
  const h = new History();
  let last: Buffer | null = null;
  // A process table with no process in it: every agent's session is looked for and not found.
  const proc = join(h.home.dir, 'proc');
  mkdirSync(proc);
  const options = () => ({
    env: h.home.env,
    plan: 'retail' as const,
    providers: null,
    sinceMs: null,
    untilMs: null,
    annotate: processAnnotator(new ProcessTable(() => []), () => h.nowMs),
  });
  try {
    for (const [n, s] of steps.entries()) {
      h.apply(s);
      const o = options();
      const warm = readWarm({ ...o, nowMs: h.nowMs });
      const doc = await warmJson({
        env: o.env,
        nowMs: h.nowMs,
        proc,
        build: async () => buildVersion(),
      });
      const list = await warmList({
        env: { ...o.env, COLUMNS: '120' },
        nowMs: h.nowMs,
        proc,
        build: async () => buildVersion(),
        isTty: false,
        columns: undefined,
      });
      const indexed = await takeSnapshot({ ...o, nowMs: h.nowMs });
      const cold = await takeSnapshot({ ...o, nowMs: h.nowMs, useIndex: false });
      seen.add(indexed.strategy);
      watch?.strategies.push(indexed.strategy);
      last = indexed.json();
      expect(comparable(indexed.json()), `step ${n}: ${JSON.stringify(s)}`).toBe(comparable(cold.json()));
      // The deleted sessions, which no cold read knows, as a build of every file the index holds gives
      // them (each one, its spend and its title): built in a copy of the index, so that this history's
      // own goes on as it would. A transcript written and deleted between two kept builds is in the
      // index's files (a patch read it), so every route must hold it as the build does.
      if (existsSync(cacheDir(o.env))) {
        const copy = join(h.home.dir, 'index-copy');
        rmSync(copy, { recursive: true, force: true });
        cpSync(cacheDir(o.env), copy, { recursive: true });
        const built = await takeSnapshot({
          ...o,
          env: { ...o.env, CCTOP_CACHE_DIR: copy },
          nowMs: h.nowMs,
          needFiles: true,
        });
        expect(deletedOf(indexed.document), `step ${n} (deleted, as built): ${JSON.stringify(s)}`).toBe(
          deletedOf(built.document),
        );
      }
      // `--list` through the index, from each session's facts (kept, patched or built), as from the
      // document, the quota in its headings read alike.
      for (const via of [indexed, cold]) {
        const listed = via.index.listed();
        expect(
          renderRows(
            listed.map((f) => rowOfFacts(f, f)),
            'retail',
            120,
            PLAIN,
            h.nowMs,
            quotaOf(o.env, listed, h.nowMs),
          ),
          `step ${n} (--list through the index, ${via.strategy})`,
        ).toEqual(
          renderList(via.document, 120, PLAIN, h.nowMs, quotaOf(o.env, via.document.sessions, h.nowMs)),
        );
      }
      if (warm.kind === 'answered') {
        seen.add('snapshot');
        expect(warm.snapshot.json().toString(), `step ${n} (snapshot): ${JSON.stringify(s)}`).toBe(
          indexed.json().toString(),
        );
        // `--list` from the kept facts, as from the document.
        const rows = warm.snapshot.listed().map((f) => rowOfFacts(f, f));
        expect(renderRows(rows, 'retail', 120, PLAIN, h.nowMs), `step ${n} (--list)`).toEqual(
          renderList(indexed.document, 120, PLAIN, h.nowMs),
        );
      }
      if (doc.kind === 'answered') {
        seen.add('document');
        // As `cctop --json` prints it: no collision (nothing runs), a newline after.
        expect(Buffer.concat(doc.parts).toString(), `step ${n} (document): ${JSON.stringify(s)}`).toBe(
          `${indexed.json({ collisions: [] }).toString()}\n`,
        );
      }
      if (list.kind === 'answered') {
        seen.add('document --list');
        // As `cctop --list` prints it off a terminal: its headings' quota read as the full route reads it.
        const quota = quotaOf(o.env, indexed.document.sessions, h.nowMs);
        expect(
          Buffer.concat(list.parts).toString(),
          `step ${n} (document --list): ${JSON.stringify(s)}`,
        ).toBe(`${renderList(indexed.document, 120, PLAIN, h.nowMs, quota).join('\n')}\n`);
      }
    }
    if (last === null) throw new Error('a history of no steps');
    if (watch) {
      const built = await takeSnapshot({ ...options(), nowMs: h.nowMs, needFiles: true });
      expect(built.strategy).toBe('built');
      watch.built = built.json().toString();
    }
    return JSON.parse(last.toString()) as SessionDocument;
  } finally {
    h.home.cleanup();
  }
}

/** The quota `cctop --list` shows in its headings, read from these sessions. */
const quotaOf = (
  env: Parameters<typeof gatherQuota>[0]['env'],
  sessions: Parameters<typeof gatherQuota>[0]['sessions'],
  nowMs: number,
) => gatherQuota({ env, sessions, usage: [], providers: null, nowMs, startOfTodayMs: nowMs }).quota;

describe('every strategy answers exactly as a cold read', () => {
  const seen = new Set<Answerer>();
  afterAll(() => {
    // Not an assertion of one history: over all of them, each strategy must have answered.
    expect([...seen].sort()).toEqual(['built', 'document', 'document --list', 'kept', 'patched', 'snapshot']);
  });

  it(
    'through random histories of growing, new, rewritten, deleted and resumed transcripts',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 14 }), async (steps) => {
          await replay(steps, seen);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    },
    BUDGET_MS,
  );
});

describe('a deleted transcript whose response a live one repeats', () => {
  it('leaves the response to the live session, as a cold read counts it, and counts it once', async () => {
    // Found by `CCTOP_PATCH_SEED=2`: s0 repeats s1's first response and is written before s1 grows,
    // so s0, the older file, held it; then s0 is deleted.
    const steps: Step[] = [
      { kind: 'new', file: 1 },
      { kind: 'respond', file: 0, count: 1, repeatOf: 1 },
      { kind: 'respond', file: 1, count: 1, repeatOf: null },
      { kind: 'new', file: 0 },
      { kind: 'clock', minutes: 1 },
      { kind: 'clock', minutes: 1 },
      { kind: 'delete', file: 0 },
    ];
    const seen = new Set<Answerer>();
    const last = await replay(steps, seen);
    // s1 holds its two responses; the deleted s0 keeps the one no live file holds: three in all.
    expect(last.sessions.map((s) => [s.id, s.deleted, s.requests])).toEqual([
      ['s1', false, 2],
      ['s0', true, 1],
    ]);
    expect(last.totals.all.requests).toBe(3);
  });
});

describe("a deleted transcript's Claude summary", () => {
  /** Each session as [id, deleted, title], in the document's order. */
  const titles = (d: SessionDocument) => d.sessions.map((s) => [s.id, s.deleted, s.title]);

  it('no longer titles the session on disk it named, as a cold read titles it, built or patched', async () => {
    // Found by the random histories (`CCTOP_PATCH_RUNS=200`): s1 holds a summary naming s0's last
    // message; once s1 is deleted, a cold read of s0 finds no summary, and neither may the index.
    const steps: Step[] = [
      { kind: 'respond', file: 0, count: 1, repeatOf: null },
      { kind: 'respond', file: 1, count: 1, repeatOf: null },
      { kind: 'summary', file: 1, names: 0 },
      { kind: 'delete', file: 1 },
      { kind: 'nothing' },
      { kind: 'respond', file: 0, count: 1, repeatOf: null },
    ];
    const watch: Watch = { strategies: [], built: null };
    const seen = new Set<Answerer>();
    const last = await replay(steps, seen, watch);
    // The deletion is built (a file that gave summaries is gone), kept as it stands, and s0's next
    // response patched; the warm snapshot and document answered where fresh, as the index did.
    expect(watch.strategies).toEqual(['built', 'patched', 'built', 'built', 'kept', 'patched']);
    expect([...seen].sort()).toEqual(['built', 'document', 'document --list', 'kept', 'patched', 'snapshot']);
    expect(titles(last)).toEqual([
      ['s0', false, null],
      ['s1', true, null],
    ]);
    expect(watch.built).toBe(JSON.stringify(last));
  });

  it('still titles the deleted session it named, patched as built', async () => {
    // s1 summarises s2, then both are deleted: s2 keeps the title the index saw, as it keeps its spend.
    const steps: Step[] = [
      { kind: 'respond', file: 2, count: 1, repeatOf: null },
      { kind: 'respond', file: 1, count: 1, repeatOf: null },
      { kind: 'summary', file: 1, names: 2 },
      { kind: 'delete', file: 1 },
      { kind: 'nothing' },
      { kind: 'delete', file: 2 },
    ];
    const watch: Watch = { strategies: [], built: null };
    const last = await replay(steps, new Set(), watch);
    // s2's deletion is patched: the patch reads the deleted s1's summary from the index.
    expect(watch.strategies).toEqual(['built', 'patched', 'built', 'built', 'kept', 'patched']);
    expect(titles(last)).toEqual([
      ['s1', true, null],
      ['s2', true, 'about u-0'],
    ]);
    expect(watch.built).toBe(JSON.stringify(last));
  });
});

describe('a transcript written and deleted between two kept builds', () => {
  it('keeps its spend as a deleted session, patched or kept as built', async () => {
    // Found this morning: s1 is read by a patch that is not written back (the index holds its row,
    // the kept build does not list it), then deleted. The next run must not answer without it.
    const steps: Step[] = [
      { kind: 'respond', file: 0, count: 1, repeatOf: null },
      { kind: 'respond', file: 1, count: 1, repeatOf: null },
      { kind: 'respond', file: 1, count: 1, repeatOf: null },
      { kind: 'delete', file: 1 },
      { kind: 'nothing' },
      { kind: 'respond', file: 0, count: 1, repeatOf: null },
    ];
    const watch: Watch = { strategies: [], built: null };
    const last = await replay(steps, new Set(), watch);
    // s1's two responses are patched (not written back: too few files, too little time); its
    // deletion is built (the index holds s1, the kept build does not), kept as it stands, and s0's
    // next response patched onto that build.
    expect(watch.strategies).toEqual(['built', 'patched', 'patched', 'built', 'kept', 'patched']);
    expect(last.sessions.map((s) => [s.id, s.deleted, s.requests])).toEqual([
      ['s0', false, 2],
      ['s1', true, 2],
    ]);
    expect(last.totals.all.requests).toBe(4);
    expect(watch.built).toBe(JSON.stringify(last));
  });
});
