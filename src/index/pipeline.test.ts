/**
 * Sessions built while files are still being read are a guess the full build checks: whatever order
 * and batches the files arrive in, the build that reuses them gives exactly the records of a build
 * from all the files at once, and a guess the rest of the history proves wrong (a resumed session
 * whose parent's responses replay into it, a summary in another file naming it) is built again.
 */
import { utimesSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { PriceBook } from '../model/pricing.js';
import { ProblemLog } from '../model/problems.js';
import { LocalTime } from '../model/time.js';
import { claudeResponse, FakeHome, jsonl } from '../test-support/corpus.js';
import { Pipeline } from './pipeline.js';
import { type ReadProgress, scanFiles } from './refresh.js';
import type { SessionRecord } from './session-record.js';
import { type BuildOptions, buildRecords, type ParsedFile } from './sessions.js';

const NOON = Date.parse('2026-11-29T12:00:00Z');
const RUNS = Number(process.env.CCTOP_PIPELINE_RUNS ?? 25);
const SEED = Number(process.env.CCTOP_PIPELINE_SEED ?? 20261207);

interface Session {
  responses: number;
  /** Replays the first response of this other session (as a resumed session does). */
  replays: number | null;
  /** Names this other session's last response in a summary line. */
  summarises: number | null;
  /** Has a subagent file beside it. */
  subagent: boolean;
}

const SESSIONS = 5;
const other = fc.option(fc.integer({ min: 0, max: SESSIONS - 1 }), { freq: 2 });
const session: fc.Arbitrary<Session> = fc.record({
  responses: fc.integer({ min: 1, max: 4 }),
  replays: other,
  summarises: other,
  subagent: fc.boolean(),
});

/** Write the sessions; returns nothing, the files are on disk in `home`. */
function write(home: FakeHome, sessions: Session[]): void {
  const first = (i: number) => `s${i}-0`;
  sessions.forEach((s, i) => {
    const at = (k: number) => new Date(NOON - (SESSIONS - i) * 3_600_000 + k * 1000).toISOString();
    let text = '';
    for (let k = 0; k < s.responses; k++)
      text += claudeResponse(`s${i}-${k}`, 1 + k + i, at(k), 1 + i).replace(
        '"sessionId":"s"',
        `"sessionId":"s${i}"`,
      );
    if (s.replays !== null && s.replays !== i)
      text += claudeResponse(first(s.replays), 1 + s.replays, at(9), 1 + s.replays).replace(
        '"sessionId":"s"',
        `"sessionId":"s${i}"`,
      );
    if (s.summarises !== null)
      text += jsonl({
        type: 'summary',
        summary: `about s${s.summarises}`,
        leafUuid: `u-${first(s.summarises)}`,
      });
    const path = home.write(home.claudeFile('-w', `s${i}.jsonl`), text);
    // Older sessions first, so a replay counts in the file that had it first.
    utimesSync(path, (NOON - (SESSIONS - i) * 60_000) / 1000, (NOON - (SESSIONS - i) * 60_000) / 1000);
    if (s.subagent)
      home.write(
        home.claudeFile('-w', `s${i}/subagents/agent-a${i}.jsonl`),
        claudeResponse(`a${i}`, 7, at(5)).replace('"sessionId":"s"', `"sessionId":"s${i}"`),
      );
  });
}

const options = (home: FakeHome): BuildOptions => ({
  env: home.env,
  plan: 'retail',
  book: new PriceBook(),
  time: new LocalTime('UTC'),
  nowMs: NOON,
  sinceMs: null,
  untilMs: null,
  problems: new ProblemLog(),
});

/** The files split into batches in the order `order` says, as the workers might return them. */
function batches(files: readonly ParsedFile[], order: number[], cuts: number[]): ParsedFile[][] {
  const shuffled = order.map((k) => files[k % files.length]!).filter((p, i, a) => a.indexOf(p) === i);
  for (const p of files) if (!shuffled.includes(p)) shuffled.push(p);
  const out: ParsedFile[][] = [];
  let at = 0;
  for (const c of cuts) {
    if (at >= shuffled.length) break;
    out.push(shuffled.slice(at, at + c));
    at += c;
  }
  if (at < shuffled.length) out.push(shuffled.slice(at));
  return out;
}

describe('sessions built as their files are read', () => {
  const outcomes = new Set<'reused' | 'built again'>();
  afterAll(() => {
    // Over all the histories, some early sessions held and some were proved wrong and built again.
    expect([...outcomes].sort()).toEqual(['built again', 'reused']);
  });

  it('give exactly the records of a build from every file at once, in any order and batches', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(session, { minLength: 2, maxLength: SESSIONS }),
        fc.array(fc.nat(40), { minLength: 1, maxLength: 20 }),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 10 }),
        async (sessions, order, cuts) => {
          const home = new FakeHome();
          try {
            write(home, sessions);
            const scan = await scanFiles({
              env: home.env,
              providers: null,
              sinceMs: null,
              store: null,
              threads: 1,
            });
            const whole = buildRecords(scan.files, options(home));

            const pipeline = new Pipeline(options(home));
            const reading = scan.files.map((p) => p.file);
            const progress = (fresh: ParsedFile[]): ReadProgress => ({
              files: 0,
              filesTotal: reading.length,
              bytes: 0,
              bytesTotal: 0,
              fresh,
              reading,
            });
            pipeline.take(progress([]), reading);
            for (const b of batches(scan.files, order, cuts)) pipeline.take(progress(b), null);
            // Every session's files were read: each was built early.
            expect(pipeline.built.size).toBe(whole.length);
            const early = new Map(pipeline.built);
            const cache = new Map<string, SessionRecord>();
            pipeline.into(cache);
            const piped = buildRecords(scan.files, options(home), cache);

            expect(JSON.stringify(piped)).toBe(JSON.stringify(whole));
            for (const r of piped) outcomes.add(early.get(r.key) === r ? 'reused' : 'built again');
          } finally {
            home.cleanup();
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  }, 120_000);
});
