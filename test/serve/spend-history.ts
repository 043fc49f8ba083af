/**
 * A history for the Spend screen's tests, dated back from `nowMs` so it falls in the last 31 days:
 * two harnesses, three projects (one named with markup), a model no price is known for, a Claude Code
 * block running now, and one session from 40 days ago that the screen must leave out.
 *
 * Records as the tools write them, trimmed to what cctop reads: Claude Code 2.x transcript lines (the
 * shape of `helpers.ts`'s `claude`), codex-cli 0.40+ rollout lines (`session_meta`, `turn_context`,
 * `token_count`, as in `providers/codex/codex.test.ts`).
 */

import { LocalTime } from '../../src/model/time.js';
import { type FakeHome, jsonl } from '../../src/test-support/corpus.js';

const DAY = 86_400_000;
const MINUTE = 60_000;

/** A project path a transcript could carry, written to become markup if the page ever parsed it. */
export const HOSTILE_PROJECT = `/work/<img src=x onerror="window.__pwned='img'">`;

/** The day of the session the screen must leave out (40 days back, past its 31). */
export const OLD_DAY = (time: LocalTime, nowMs: number): string =>
  LocalTime.dayKey(time.dayNumber(nowMs) - 40);

let n = 0;

/** One Claude Code session: a prompt, then one response with usage per time in `at`. */
function claudeSession(home: FakeHome, id: string, cwd: string, model: string, at: number[]): void {
  const first = new Date(at[0]!).toISOString();
  const lines = [
    jsonl({
      type: 'user',
      sessionId: id,
      cwd,
      uuid: `u-${id}`,
      timestamp: first,
      message: { role: 'user', content: `spend in ${cwd}` },
    }),
    ...at.map((ms) => {
      n++;
      return jsonl({
        type: 'assistant',
        sessionId: id,
        cwd,
        uuid: `a-${id}-${n}`,
        timestamp: new Date(ms).toISOString(),
        requestId: `req_${id}_${n}`,
        message: {
          id: `msg_${id}_${n}`,
          role: 'assistant',
          model,
          content: [{ type: 'text', text: 'done' }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 2_000, cache_read_input_tokens: 40_000, output_tokens: 1_500 },
        },
      });
    }),
  ];
  home.write(home.claudeFile(cwd.replaceAll(/[^A-Za-z0-9]/g, '-'), `${id}.jsonl`), lines.join(''));
}

/** One Codex rollout on gpt-5: a `token_count` per time in `at`. */
function codexSession(home: FakeHome, uuid: string, cwd: string, at: number[]): void {
  const first = new Date(at[0]!);
  const iso = first.toISOString();
  const usage = (k: number) => ({
    input_tokens: 30_000,
    cached_input_tokens: 20_000,
    output_tokens: 800,
    reasoning_output_tokens: 300,
    total_tokens: 30_800 * k,
  });
  const lines = jsonl(
    {
      timestamp: iso,
      type: 'session_meta',
      payload: { id: uuid, cwd, timestamp: iso, cli_version: '0.40.0' },
    },
    { timestamp: iso, type: 'turn_context', payload: { model: 'gpt-5', effort: 'medium', cwd } },
    ...at.map((ms, i) => ({
      timestamp: new Date(ms).toISOString(),
      type: 'event_msg',
      payload: {
        type: 'token_count',
        info: { last_token_usage: usage(1), total_token_usage: usage(i + 1) },
      },
    })),
  );
  const day = iso.slice(0, 10).replaceAll('-', '/');
  const stamp = iso.slice(0, 19).replaceAll(':', '-');
  home.write(home.codexFile(`rollout-${stamp}-${uuid}.jsonl`, day), lines);
}

export function spendHistory(home: FakeHome, nowMs: number): void {
  const daysAgo = (k: number) => nowMs - k * DAY;
  claudeSession(home, 'spend-app', '/work/app', 'claude-sonnet-4-5-20250929', [
    daysAgo(3),
    daysAgo(1),
    nowMs - 50 * MINUTE,
    nowMs - 20 * MINUTE,
    nowMs - 5 * MINUTE,
  ]);
  claudeSession(home, 'spend-hostile', HOSTILE_PROJECT, 'claude-sonnet-4-5-20250929', [daysAgo(2)]);
  claudeSession(home, 'spend-unpriced', '/work/app', 'mystery-model-1', [daysAgo(2) + MINUTE]);
  claudeSession(home, 'spend-old', '/work/old', 'claude-sonnet-4-5-20250929', [daysAgo(40)]);
  codexSession(home, '0199aaaa-0000-7000-8000-000000000001', '/work/app', [
    daysAgo(4),
    daysAgo(1) + MINUTE,
    nowMs - 15 * MINUTE,
  ]);
}
