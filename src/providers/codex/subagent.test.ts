/**
 * A subagent Codex spawns (`spawn_agent`) keeps a rollout of its own: its `session_meta` names the
 * parent thread (`source.subagent.thread_spawn.parent_thread_id`), then the parent's history is
 * replayed into it, every line stamped at the moment of creation (its `token_count` events carry the
 * parent's running totals), then come its own records, whose running total restarts.
 *
 * The records follow the shape of codex-cli 0.169.0's rollouts (`SessionMeta` with a `SessionSource`
 * of `SubAgent(ThreadSpawn)`, as openai/codex's protocol crate writes it), trimmed to the fields read;
 * written for this test, not captured from a run.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseObject } from '../../model/json.js';
import { F, type Ledger, RECORD_FIELDS } from '../../model/ledger.js';
import { FakeHome, jsonl, REPO } from '../../test-support/corpus.js';
import type { SourceFile } from '../types.js';
import { lineFromBytes } from './bytes.js';
import { parse } from './parse.js';
import { lineFromJson } from './record.js';

const PARENT = '019a0b1c-0000-7000-8000-00000000aaaa';
const CHILD = '019a0b1c-0000-7000-8000-00000000bbbb';
const MODEL = 'gpt-5.2';

type Usage = [input: number, cached: number, output: number];
const usage = ([input, cached, output]: Usage) => ({
  input_tokens: input,
  cached_input_tokens: cached,
  output_tokens: output,
  reasoning_output_tokens: 0,
  total_tokens: input + output,
});

const meta = (at: string, id: string, source: unknown) => ({
  timestamp: at,
  type: 'session_meta',
  payload: { id, timestamp: at, cwd: '/w/app', originator: 'codex_cli_rs', cli_version: '0.169.0', source },
});
const context = (at: string) => ({
  timestamp: at,
  type: 'turn_context',
  payload: { cwd: '/w/app', approval_policy: 'on-request', model: MODEL },
});
const call = (at: string, id: string) => ({
  timestamp: at,
  type: 'response_item',
  payload: { type: 'function_call', name: 'shell', arguments: '{}', call_id: id },
});
const tokens = (at: string, total: Usage, last?: Usage) => ({
  timestamp: at,
  type: 'event_msg',
  payload: {
    type: 'token_count',
    info: {
      total_token_usage: usage(total),
      ...(last === undefined ? {} : { last_token_usage: usage(last) }),
      model_context_window: 272_000,
    },
  },
});
const said = (at: string, message: string) => ({
  timestamp: at,
  type: 'event_msg',
  payload: { type: 'user_message', message, images: [] },
});
const SPAWNED = {
  subagent: { thread_spawn: { parent_thread_id: PARENT, depth: 1, agent_role: 'explorer' } },
};

/** The parent: two requests (1,000 then 500 input tokens). */
const parentLines = [
  meta('2026-11-02T08:00:00.000Z', PARENT, 'cli'),
  context('2026-11-02T08:00:01.000Z'),
  call('2026-11-02T08:00:30.000Z', 'call_p1'),
  tokens('2026-11-02T08:01:00.000Z', [1_000, 100, 200], [1_000, 100, 200]),
  tokens('2026-11-02T08:02:00.000Z', [1_500, 150, 300], [500, 50, 100]),
];

/** The parent's history as Codex replays it into a subagent created at 08:03:00.2. */
const replay = (stamp = '2026-11-02T08:03:00.200Z') => [
  meta(stamp, PARENT, 'cli'),
  context(stamp),
  said(stamp, 'fix the flaky test'),
  call(stamp, 'call_p1'),
  tokens(stamp, [1_000, 100, 200], [1_000, 100, 200]),
  tokens('2026-11-02T08:03:00.201Z', [1_500, 150, 300], [500, 50, 100]),
];

/** A subagent with its own two requests (100 then 50 input tokens), its running total restarted. */
const childLines = [
  meta('2026-11-02T08:03:00.200Z', CHILD, SPAWNED),
  ...replay(),
  // The subagent's own task, given as it is created.
  said('2026-11-02T08:03:00.230Z', 'find where the timeout is set'),
  context('2026-11-02T08:03:01.500Z'),
  call('2026-11-02T08:03:03.000Z', 'call_c1'),
  tokens('2026-11-02T08:03:04.000Z', [100, 10, 20], [100, 10, 20]),
  tokens('2026-11-02T08:03:09.000Z', [150, 15, 30], [50, 5, 10]),
];

/** `[input (uncached), cache read, output]` of every ledger record. */
const records = (l: Ledger): number[][] => {
  const out: number[][] = [];
  for (let at = 0; at < l.data.length; at += RECORD_FIELDS)
    out.push([l.data[at + F.INPUT]!, l.data[at + F.CACHE_READ]!, l.data[at + F.OUTPUT]!]);
  return out;
};

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

function sourceOf(path: string): SourceFile {
  const st = statSync(path);
  return {
    provider: 'codex',
    path,
    root: join(home.dir, '.codex'),
    sessionHint: CHILD,
    role: 'main',
    size: st.size,
    mtimeMs: st.mtimeMs,
    ino: st.ino,
  };
}

const childPath = () => home.codexFile(`rollout-2026-11-02T08-03-00-${CHILD}.jsonl`, '2026/11/02');

describe('reading a spawned subagent', () => {
  it('both extractors read the parent a subagent names, and no parent for a session the person started', () => {
    for (const [line, parent] of [
      [childLines[0], PARENT],
      [parentLines[0], null],
      [meta('2026-11-02T08:03:00.200Z', CHILD, { subagent: 'review' }), null],
    ] as const) {
      const text = JSON.stringify(line);
      const slow = lineFromJson(parseObject(text)!);
      expect(slow).toMatchObject({ kind: 'meta', parent });
      expect(lineFromBytes(Buffer.from(text), 0, text.length)).toEqual(slow);
    }
  });

  it("counts only the subagent's own requests, not its parent's replayed history, and none of its replayed calls", () => {
    const result = parse(sourceOf(home.write(childPath(), jsonl(...childLines))), null);
    expect(records(result.ledger)).toEqual([
      [90, 10, 20],
      [45, 5, 10],
    ]);
    expect(result.facts.parentSession).toBe(PARENT);
    expect(result.facts.sessionId).toBe(CHILD);
    expect(result.facts.tools).toEqual({ shell: { calls: 1, failed: 0 } });
    // Its title is its own task, not the parent's first prompt replayed.
    expect(result.facts.titles.firstPrompt).toBe('find where the timeout is set');
  });

  it('measures its first running total from the parent replayed, when the records carry only totals', () => {
    // Totals only, continuing the parent's (1,500 → 1,600): the first request is the 100 between.
    const lines = [
      meta('2026-11-02T08:03:00.200Z', CHILD, SPAWNED),
      tokens('2026-11-02T08:03:00.200Z', [1_000, 100, 200]),
      tokens('2026-11-02T08:03:00.200Z', [1_500, 150, 300]),
      tokens('2026-11-02T08:03:04.000Z', [1_600, 160, 320]),
    ];
    const result = parse(sourceOf(home.write(childPath(), jsonl(...lines))), null);
    expect(records(result.ledger)).toEqual([[90, 10, 20]]);
  });

  it('reads a running total that restarts after the replay as the whole of the first request', () => {
    const lines = [
      meta('2026-11-02T08:03:00.200Z', CHILD, SPAWNED),
      tokens('2026-11-02T08:03:00.200Z', [1_500, 150, 300]),
      tokens('2026-11-02T08:03:04.000Z', [100, 10, 20]),
      tokens('2026-11-02T08:03:09.000Z', [150, 15, 30]),
    ];
    const result = parse(sourceOf(home.write(childPath(), jsonl(...lines))), null);
    expect(records(result.ledger)).toEqual([
      [90, 10, 20],
      [45, 5, 10],
    ]);
  });

  it('a rollout read in two passes, the first ending inside the replay, counts the same', () => {
    const path = home.write(childPath(), jsonl(...childLines.slice(0, 4)));
    const first = parse(sourceOf(path), null);
    expect(records(first.ledger)).toEqual([]);
    appendFileSync(path, jsonl(...childLines.slice(4)));
    const second = parse(sourceOf(path), first);
    expect(records(second.ledger)).toEqual([
      [90, 10, 20],
      [45, 5, 10],
    ]);
  });
});

describe('a spawned subagent as a user sees it, through the built CLI', () => {
  const CLI = join(REPO, 'dist', 'cli.js');
  const run = (args: string[]) => {
    const env = { PATH: process.env.PATH ?? '', ...home.env, XDG_CONFIG_HOME: join(home.dir, '.config') };
    const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8' });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  beforeEach(() => {
    const old = Date.parse('2026-11-03T00:00:00Z');
    home.write(
      home.codexFile(`rollout-2026-11-02T08-00-00-${PARENT}.jsonl`, '2026/11/02'),
      jsonl(...parentLines),
      old,
    );
    home.write(childPath(), jsonl(...childLines), old);
  });

  it("is one session, the parent's, with the subagent's own requests added and its replay not", () => {
    const r = run(['--json', '--provider', 'codex']);
    expect(r.code).toBe(0);
    const sessions = JSON.parse(r.out).sessions as {
      id: string;
      subagentFiles: number;
      requests: number;
      tokens: { input: number; cacheRead: number; output: number };
    }[];
    expect(sessions.map((s) => [s.id, s.subagentFiles, s.requests])).toEqual([[PARENT, 1, 4]]);
    // Parent 1,000 + 500 and subagent 100 + 50 input tokens, the cached part apart.
    expect(sessions[0]!.tokens).toMatchObject({ input: 900 + 450 + 90 + 45, cacheRead: 165, output: 330 });
  });

  it('daily counts the subagent once: its own tokens, not its copy of the parent', () => {
    const r = run(['daily', '--json', '--provider', 'codex']);
    expect(r.code).toBe(0);
    const days = JSON.parse(r.out).periods.map((p: { period: string; totalTokens: number }) => [
      p.period,
      p.totalTokens,
    ]);
    expect(days).toEqual([['2026-11-02', 1_650 + 330]]);
  });
});
