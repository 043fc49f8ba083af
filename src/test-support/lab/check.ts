/**
 * What the conformance tests check, shared by the live runs (a real CLI against the lab server) and
 * the replays of recorded fixtures: cctop's reading of a session, next to what the server said in it.
 * A check returns every mismatch as a sentence, so one failing run names all that is wrong at once.
 *
 * It also records a live run as a fixture (`lab/fixtures/<agent>/<script>/`): the files the agent
 * wrote, the server's ledger and the CLI version, so a clone without the agents still tests every
 * reader on real output.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionDocument } from '../../model/document.js';
import { REPO } from '../corpus.js';
import type { LabAgentId } from './agents.js';
import type { LedgerEntry } from './server.js';

type Session = SessionDocument['sessions'][number];

export const FIXTURES = join(REPO, 'lab', 'fixtures');
const CLI = join(REPO, 'dist', 'cli.js');

/** `cctop --json --no-cache` over one home, as a user would run it. */
export function cctopJson(home: string, extra: Record<string, string> = {}): SessionDocument {
  const r = spawnSync(process.execPath, [CLI, '--json', '--no-cache'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      TZ: 'UTC',
      CCTOP_CACHE_DIR: join(home, '.cctop-cache'),
      ...extra,
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`cctop --json failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as SessionDocument;
}

/** What a session must show, given what the server said in it. */
export interface Expect {
  /** The model requests of this session, in order (the server's main entries). */
  entries: LedgerEntry[];
  model: string;
  /** Words of the first prompt the title must contain (null: the harness keeps no title). */
  title: string | null;
  /** Tool calls that failed (a non-zero exit). */
  failed: number;
  /**
   * Which token fields the harness records; the others must be null, never 0. `reasoning: 'own'`:
   * the harness counts thinking itself (Claude Code 2.1 writes `thinking_tokens`), which is 0 here
   * because the lab's model never thinks.
   */
  records: { cacheWrite: boolean; reasoning: 'server' | 'own' | 'none' };
}

const sum = (xs: LedgerEntry[], f: (e: LedgerEntry) => number | null): number =>
  xs.reduce((a, e) => a + (f(e) ?? 0), 0);

/** Every way `s` differs from what the server said; empty when cctop read the session right. */
export function mismatches(s: Session, x: Expect): string[] {
  const out: string[] = [];
  const want = {
    input: sum(x.entries, (e) => e.figures.input),
    cacheRead: sum(x.entries, (e) => e.figures.cacheRead),
    cacheWrite: x.records.cacheWrite ? sum(x.entries, (e) => e.figures.cacheWrite) : null,
    output: sum(x.entries, (e) => e.figures.output),
    reasoning:
      x.records.reasoning === 'server'
        ? sum(x.entries, (e) => e.figures.reasoning)
        : x.records.reasoning === 'own'
          ? 0
          : null,
  };
  for (const k of Object.keys(want) as (keyof typeof want)[]) {
    if (s.tokens[k] !== want[k]) out.push(`tokens.${k} is ${s.tokens[k]}, the server gave ${want[k]}`);
  }
  if (s.requests !== x.entries.length)
    out.push(`requests is ${s.requests}, the server answered ${x.entries.length}`);
  if (s.model !== x.model) out.push(`model is ${s.model}, the run used ${x.model}`);
  const calls = x.entries.reduce((a, e) => a + e.calls.length, 0);
  if (s.tools.calls !== calls) out.push(`tools.calls is ${s.tools.calls}, the server asked for ${calls}`);
  if (s.tools.failed !== x.failed)
    out.push(`tools.failed is ${s.tools.failed}, ${x.failed} call(s) exited non-zero`);
  const last = x.entries.at(-1);
  if (last && s.context.used !== last.prompt)
    out.push(`context.used is ${s.context.used}, the newest request's prompt was ${last.prompt}`);
  if (x.title !== null && !(s.title ?? '').includes(x.title))
    out.push(`title is ${JSON.stringify(s.title)}, expected it to contain ${JSON.stringify(x.title)}`);
  return out;
}

/** The server's main entries for the scripts a session ran, in order. */
export const entriesOf = (ledger: readonly LedgerEntry[], scripts: readonly string[]): LedgerEntry[] =>
  ledger.filter((e) => !e.aux && e.script !== null && scripts.includes(e.script));

export interface FixtureMeta {
  agent: LabAgentId;
  package: string;
  version: string;
  /** The scripts run in this home, in order (a resumed session runs two). */
  scripts: string[];
  prompts: string[];
  recordedAt: string;
  /** What the replay must find, minus the entries (kept in ledger.json). */
  expect: Omit<Expect, 'entries'>;
}

/** Keep what the agent wrote under `keep` (paths relative to its home) as a fixture. */
export function recordFixture(
  name: string,
  meta: FixtureMeta,
  home: string,
  keep: readonly string[],
  ledger: readonly LedgerEntry[],
): void {
  const dir = join(FIXTURES, meta.agent, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'home'), { recursive: true });
  for (const rel of keep) {
    const from = join(home, rel);
    if (existsSync(from)) cpSync(from, join(dir, 'home', rel), { recursive: true });
  }
  writeFileSync(join(dir, 'meta.json'), `${JSON.stringify(meta, null, 2)}\n`);
  writeFileSync(join(dir, 'ledger.json'), `${JSON.stringify(ledger, null, 2)}\n`);
}

export interface Fixture {
  dir: string;
  name: string;
  meta: FixtureMeta;
  ledger: LedgerEntry[];
}

/** Every recorded fixture in the repository. */
export function fixtures(): Fixture[] {
  if (!existsSync(FIXTURES)) return [];
  const out: Fixture[] = [];
  for (const agent of readdirSync(FIXTURES)) {
    for (const name of readdirSync(join(FIXTURES, agent))) {
      const dir = join(FIXTURES, agent, name);
      if (!existsSync(join(dir, 'meta.json'))) continue;
      out.push({
        dir,
        name,
        meta: JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')),
        ledger: JSON.parse(readFileSync(join(dir, 'ledger.json'), 'utf8')),
      });
    }
  }
  return out;
}

/** Whether this run records fixtures (`npm run lab:record`). */
export const RECORDING = process.env.CCTOP_LAB_RECORD === '1';
