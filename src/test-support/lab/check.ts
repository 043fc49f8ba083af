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
import type { Conversation } from '../../model/conversation.js';
import type { SessionDocument } from '../../model/document.js';
import type { SessionReport } from '../../report/types.js';
import { REPO } from '../corpus.js';
import type { LabCliId } from './agents.js';
import type { LedgerEntry } from './server.js';

type Session = SessionDocument['sessions'][number];

export const FIXTURES = join(REPO, 'lab', 'fixtures');
const CLI = join(REPO, 'dist', 'cli.js');

/** A `cctop` command's JSON over one home, as a user would run it (`chat ID`, `report ID`). */
export function cctopRead<T>(home: string, args: string[]): T {
  const r = spawnSync(process.execPath, [CLI, ...args, '--json'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      TZ: 'UTC',
      CCTOP_CACHE_DIR: join(home, '.cctop-cache'),
      // A runtime directory of its own: no run another test (or this machine) drives is in its answer.
      CCTOP_RUNTIME_DIR: join(home, '.cctop-run'),
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`cctop ${args.join(' ')} --json failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** `cctop --json --no-cache`: every session read afresh from the files, the index left alone. */
export const cctopJson = (home: string): SessionDocument => cctopRead<SessionDocument>(home, ['--no-cache']);

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

/**
 * The report's context facts: one point per request, in order, with the prompts the server gave;
 * each call charged the growth from the request that made it to the one that answered its result
 * (`shared` when one response made several calls).
 */
export function reportMismatches(r: SessionReport, x: Expect): string[] {
  const out: string[] = [];
  const want = x.entries.map((e) => e.prompt);
  const got = r.context.series.map((p) => p.prompt);
  if (JSON.stringify(got) !== JSON.stringify(want))
    out.push(`context series is [${got}], the requests' prompts were [${want}]`);
  const growth: { growth: number; shared: boolean }[] = [];
  x.entries.forEach((e, i) => {
    const next = x.entries[i + 1];
    if (!e.calls.length || !next || next.script !== e.script || next.step !== (e.step ?? 0) + 1) return;
    for (const _ of e.calls) growth.push({ growth: next.prompt - e.prompt, shared: e.calls.length > 1 });
  });
  const key = (g: { growth: number; shared: boolean }) => `${g.growth}${g.shared ? ' shared' : ''}`;
  const wantGrowth = growth.map(key).sort();
  const gotGrowth = r.tools.heaviest.map(key).sort();
  if (JSON.stringify(gotGrowth) !== JSON.stringify(wantGrowth))
    out.push(`calls grew the context by [${gotGrowth}], the server's prompts say [${wantGrowth}]`);
  if (r.tools.failed !== x.failed)
    out.push(`the report lists ${r.tools.failed} failed call(s), not ${x.failed}`);
  return out;
}

/**
 * The conversation: the user's prompts as the user turns (no harness envelope around them), every
 * answer the server gave as an assistant turn, and the calls with their failures.
 */
export function chatMismatches(c: Conversation, x: Expect, prompts: readonly string[]): string[] {
  const out: string[] = [];
  const said = c.turns.filter((t) => t.role === 'user' && t.kind === 'message').map((t) => t.text.trim());
  if (JSON.stringify(said) !== JSON.stringify(prompts))
    out.push(`the user turns are ${JSON.stringify(said)}, the prompts were ${JSON.stringify(prompts)}`);
  const answers = c.turns.filter((t) => t.role === 'assistant' && t.kind === 'message').map((t) => t.text);
  for (const e of x.entries)
    if (e.answer !== null && !answers.some((a) => a.includes(e.answer!)))
      out.push(`no assistant turn says ${JSON.stringify(e.answer)}`);
  const tools = c.turns.flatMap((t) => t.tools);
  const calls = x.entries.reduce((a, e) => a + e.calls.length, 0);
  if (tools.length !== calls)
    out.push(`the conversation shows ${tools.length} call(s), the server asked for ${calls}`);
  const failed = tools.filter((t) => t.failed).length;
  if (failed !== x.failed) out.push(`the conversation marks ${failed} call(s) failed, not ${x.failed}`);
  return out;
}

/** The server's main entries for the scripts a session ran, in order. */
export const entriesOf = (ledger: readonly LedgerEntry[], scripts: readonly string[]): LedgerEntry[] =>
  ledger.filter((e) => !e.aux && e.script !== null && scripts.includes(e.script));

export interface FixtureMeta {
  agent: LabCliId;
  package: string;
  version: string;
  /** The scripts run in this home, in order (a resumed session runs two). */
  scripts: string[];
  prompts: string[];
  recordedAt: string;
  /** What the replay must find, minus the entries (kept in ledger.json). */
  expect: Omit<Expect, 'entries'>;
}

/**
 * Where the drift run (`npm run agents -- --newest`) keeps the homes the newest agents wrote, passing
 * or failing, for `cctop doctor` to read after the lab; null (the default) keeps none.
 */
export const KEEP_HOMES: string | null = process.env.CCTOP_LAB_KEEP_HOMES || null;

/** Copy what the agent wrote under `keep` to `KEEP_HOMES/<agent>/<name>/home`. */
export function keepHome(agent: string, name: string, home: string, keep: readonly string[]): void {
  if (KEEP_HOMES === null) return;
  const dir = join(KEEP_HOMES, agent, name, 'home');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const rel of keep) {
    const from = join(home, rel);
    if (existsSync(from)) cpSync(from, join(dir, rel), { recursive: true });
  }
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
