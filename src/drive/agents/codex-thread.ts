/**
 * A Codex thread's running token total, and this run's share of it.
 *
 * `turn.completed` reports the whole thread's running total, not the turn's: three runs of one
 * thread (codex-cli 0.169.0: `exec`, then `exec resume` twice) reported input 19857, 40088, 50338.
 * Reporting that as the run's usage would charge a resumed run for every run before it. So a resumed
 * run reads, before Codex starts, the total the thread had already reached: the last `token_count`
 * event's `total_token_usage` in the thread's rollout file (`$CODEX_HOME/sessions/YYYY/MM/DD/
 * rollout-<time>-<thread id>.jsonl`), the very counter `turn.completed` continues (40088 was both the
 * second run's `turn.completed` and the rollout's last total before the third run). The run's share
 * is the final total minus that one.
 *
 * This reads Codex's files from drive, against the rule that a harness's knowledge lives in its
 * provider folder: `providers/codex` exposes no reader of one rollout's last total (its parser builds
 * whole session documents), and drive needs only this one figure from the tail of one file.
 *
 * When the earlier total cannot be read (no rollout, no `token_count` within the tail read, a total
 * that went down), the run's share is unknown and stays null; the thread's total is still reported.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { count, obj, parseObject, str } from '../../model/json.js';
import { emptyTokens, TOKEN_FIELDS, type TokenCounts } from '../../model/usage.js';
import { MAX_ROLLOUT_TAIL_BYTES } from '../bounds.js';
import type { Env } from '../env.js';
import type { Plan } from '../request.js';
import type { Baseline } from './spec.js';

/** One backwards read of a rollout's tail: large enough that a normal tail is one read. */
const ROLLOUT_CHUNK_BYTES = 64 * 1024;

/**
 * Codex's token usage object (`turn.completed`'s `usage`, a rollout's `total_token_usage`) in cctop's
 * terms. Codex counts its prompt whole with the cached part inside (0.169.0 reported 9879 input with
 * 4939 cached for a request the lab answered as 4940 uncached and 4939 cached), so `input` is the
 * difference.
 * `cacheWrite` is null: Codex has no cache-write figure (0.169.0 prints `cache_write_input_tokens: 0`
 * on every turn whatever the provider said, and cctop's session document reads the same run as null).
 */
export function codexTokens(v: unknown): TokenCounts {
  const u = obj(v);
  const prompt = count(u?.input_tokens);
  const cached = count(u?.cached_input_tokens);
  return {
    input: prompt !== null && cached !== null ? Math.max(0, prompt - cached) : prompt,
    output: count(u?.output_tokens),
    cacheRead: cached,
    cacheWrite: null,
    reasoning: count(u?.reasoning_output_tokens),
  };
}

/**
 * This run's share of a thread's running total. A field the baseline lacks is unknown; a total that
 * went down means the counter restarted, so nothing of the difference can be trusted.
 */
export function runShare(thread: TokenCounts, baseline: Baseline): TokenCounts {
  switch (baseline.kind) {
    case 'fresh':
      return { ...thread };
    case 'unknown':
      return emptyTokens();
    case 'known': {
      const out = emptyTokens();
      for (const key of TOKEN_FIELDS) {
        const now = thread[key];
        const before = baseline.tokens[key];
        if (now === null || before === null) continue;
        if (now < before) return emptyTokens();
        out[key] = now - before;
      }
      return out;
    }
  }
}

/** Names sorted newest first: the date folders are zero-padded numbers. */
const newestFirst = (names: string[]): string[] =>
  names
    .filter((n) => /^\d+$/.test(n))
    .sort()
    .reverse();

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * The rollout of `thread` under a Codex home: the date folders newest first, since a resumed thread
 * is usually recent, then the archive. ponytail: an old thread costs a listing of every date folder
 * after it; no index of rollouts is kept for a once-per-run lookup.
 */
export function findRollout(codexHome: string, thread: string): string | null {
  const suffix = `-${thread}.jsonl`;
  const match = (dir: string): string | null => {
    const name = entries(dir).find((n) => n.startsWith('rollout-') && n.endsWith(suffix));
    return name === undefined ? null : join(dir, name);
  };
  const sessions = join(codexHome, 'sessions');
  for (const year of newestFirst(entries(sessions))) {
    for (const month of newestFirst(entries(join(sessions, year)))) {
      for (const day of newestFirst(entries(join(sessions, year, month)))) {
        const found = match(join(sessions, year, month, day));
        if (found !== null) return found;
      }
    }
  }
  return match(join(codexHome, 'archived_sessions'));
}

/** The running total a `token_count` line carries, or null when the line is not one. */
function totalIn(line: string): TokenCounts | null {
  // Most lines are messages and tool output; only a line naming the event is worth parsing.
  if (!line.includes('"token_count"')) return null;
  const payload = obj(parseObject(line)?.payload);
  if (str(payload?.type) !== 'token_count') return null;
  const total = obj(obj(payload?.info)?.total_token_usage);
  return total === null ? null : codexTokens(total);
}

/** The last running total in a rollout, read backwards from its end up to `MAX_ROLLOUT_TAIL_BYTES`. */
export function lastRolloutTotal(path: string): TokenCounts | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const size = fstatSync(fd).size;
    const floor = Math.max(0, size - MAX_ROLLOUT_TAIL_BYTES);
    let end = size;
    // The line whose beginning lies in a chunk not yet read, its pieces kept apart so that a line
    // longer than a chunk is copied once, not once per chunk.
    let partial: Buffer[] = [];
    while (end > floor) {
      const start = Math.max(floor, end - ROLLOUT_CHUNK_BYTES);
      const chunk = Buffer.alloc(end - start);
      readSync(fd, chunk, 0, chunk.length, start);
      end = start;
      // Bytes before the chunk's first newline belong to a line that begins in a part not read yet,
      // unless the file begins here. Cut as bytes: a character split across chunks is not decoded.
      const cut = start === 0 ? -1 : chunk.indexOf(0x0a);
      if (cut === -1 && start !== 0) {
        partial.unshift(chunk);
        continue;
      }
      const lines = Buffer.concat([chunk.subarray(cut + 1), ...partial])
        .toString('utf8')
        .split('\n');
      for (let i = lines.length - 1; i >= 0; i--) {
        const total = totalIn(lines[i]!);
        if (total !== null) return total;
      }
      partial = [chunk.subarray(0, Math.max(0, cut))];
    }
    return null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Where the Codex that drive starts keeps its files: `CODEX_HOME`, else `~/.codex`. */
function codexHomeIn(env: Env): string {
  return env.CODEX_HOME || join(env.HOME || homedir(), '.codex');
}

/** The thread's total before this run: read from its rollout when the run resumes one. */
export function codexBaseline(plan: Plan, env: Env): Baseline {
  if (plan.session.kind !== 'resume') return { kind: 'fresh' };
  // Plain-text output carries no usage to take a share of.
  if (plan.format === 'text') return { kind: 'unknown' };
  const path = findRollout(codexHomeIn(env), plan.session.id);
  const tokens = path === null ? null : lastRolloutTotal(path);
  return tokens === null ? { kind: 'unknown' } : { kind: 'known', tokens };
}
