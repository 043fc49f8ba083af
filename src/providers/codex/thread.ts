/**
 * A Codex thread's running token total as its rollout last wrote it: the `total_token_usage` of the
 * newest `token_count` event in `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`.
 * `codex exec --json` reports the same counter in `turn.completed`, so drive subtracts this figure,
 * read before a resumed run starts, to tell the run's own usage from the thread's (see
 * `drive/agents/codex-thread.ts`).
 *
 * It reads one figure from the tail of one file and nothing else: the scan's parser builds whole
 * session documents and is not the tool for a once-per-run lookup.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { count, obj, parseObject, str } from '../../model/json.js';
import type { TokenCounts } from '../../model/usage.js';
import type { Env } from '../types.js';
import { codexRoots } from './place.js';

/**
 * How far back from the end of a rollout the last `token_count` is looked for. Codex writes one
 * after every model response, so what follows the last is the turn's closing events (a few KiB) or,
 * for a turn cut short, the tool output it was waiting on. A rollout grows for the life of a thread
 * and is never read whole; 8 MiB read backwards in 64 KiB steps costs a few milliseconds once per
 * resumed run and holds at most that much of one line. Past it the earlier total is unknown, never
 * guessed.
 */
export const MAX_ROLLOUT_TAIL_BYTES = 8 * 1024 * 1024;

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
 * is usually recent, then the archive. known limit: an old thread costs a listing of every date folder
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

/** The thread's last running total under any of the Codex homes `env` names, or null. */
export function threadTotal(env: Env, thread: string): TokenCounts | null {
  for (const root of codexRoots(env)) {
    const path = findRollout(root.path, thread);
    if (path !== null) return lastRolloutTotal(path);
  }
  return null;
}
