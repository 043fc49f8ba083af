/**
 * Claude Code's own cache of the account's quota: `cachedUsageUtilization` in its global config file
 * (`~/.claude.json`, or `.claude.json` in `$CLAUDE_CONFIG_DIR`). Claude Code 2.1.x writes it after it
 * asks the usage endpoint, at most once a minute, as
 *
 *   { fetchedAtMs, accountUuid?, utilization: { five_hour, seven_day, seven_day_opus,
 *     seven_day_sonnet: { utilization: 0–100 | null, resets_at: ISO | null } | null,
 *     extra_usage: { is_enabled, monthly_limit, used_credits, utilization, currency } | null,
 *     limits: [{ kind, group, percent, resets_at, severity, is_active, scope }] } }
 *
 * (the schema 2.1.328's bundle validates it against). Claude Code drops the cache when the login
 * changes account; a cache whose `accountUuid` is not the logged-in account (`oauthAccount`) is
 * another account's, and is not read either.
 *
 * The file is Claude Code's and read only: opened non-blocking, read only when a regular file within
 * {@link MAX_CLAUDE_JSON_BYTES}. Not here: the status line's figures (`statusline/quota-note.ts`),
 * choosing between sources or printing (`model/quota.ts`, `views/cli/quota.ts`).
 */
import { join } from 'node:path';
import { text as nonEmpty, num, obj, parseJson, str } from '../../model/json.js';
import { type QuotaFigure, type QuotaWindow, resetPassed } from '../../model/quota.js';
import { home, readWholeBytes } from '../fsutil.js';
import type { Env } from '../types.js';
import { claudeRoots } from './place.js';

/**
 * The largest `.claude.json` read. It holds every project's history of prompts and settings, and a
 * heavy user's reaches a few MiB (10 MiB is seen); 64 MiB is far past that and still a fraction of a
 * second to parse once per command. Past it the quota from this source is unknown, not a stall.
 */
export const MAX_CLAUDE_JSON_BYTES = 64 * 1024 * 1024;

/** The cache's window keys and the names cctop gives them. */
const WINDOWS: readonly [string, QuotaWindow][] = [
  ['five_hour', '5h'],
  ['seven_day', '7d'],
  ['seven_day_opus', '7d-opus'],
  ['seven_day_sonnet', '7d-sonnet'],
];

/** The longest account id kept: Claude's are UUIDs (36 characters). */
const MAX_ACCOUNT_CHARS = 128;

/** Claude Code's global config file under `env`. */
export function claudeConfigFile(env: Env): string {
  const configured = env.CLAUDE_CONFIG_DIR !== undefined && env.CLAUDE_CONFIG_DIR.trim() !== '';
  return join(configured ? claudeRoots(env)[0]!.path : home(env), '.claude.json');
}

export type ClaudeQuotaRead =
  | { kind: 'figures'; figures: QuotaFigure[] }
  /** The file is there, but holds no cache (API-key logins, before the first `/usage`). */
  | { kind: 'none' }
  | { kind: 'absent' }
  | { kind: 'refused'; why: string };

/** The cached quota in Claude Code's config file at `path`. */
export function readClaudeQuota(path: string, nowMs: number): ClaudeQuotaRead {
  const file = readWholeBytes(path, MAX_CLAUDE_JSON_BYTES);
  switch (file.kind) {
    case 'absent':
      return { kind: 'absent' };
    case 'refused':
      return {
        kind: 'refused',
        why:
          file.why === 'too-large'
            ? `larger than ${MAX_CLAUDE_JSON_BYTES / 1024 / 1024} MiB`
            : file.why === 'not-a-file'
              ? 'not a regular file'
              : 'not readable',
      };
    case 'read':
      return cachedQuota(
        {
          cachedUsageUtilization: memberObject(file.bytes, 'cachedUsageUtilization'),
          oauthAccount: memberObject(file.bytes, 'oauthAccount'),
        },
        nowMs,
      );
  }
}

/**
 * The most of one member's object read. The cache is a few hundred bytes (a handful of windows and
 * limits), the account a few hundred more; 1 MiB is far past both and bounds the scan of a file
 * whose member never closes.
 */
const MAX_MEMBER_BYTES = 1024 * 1024;

/**
 * The object value of member `key`, found in the bytes rather than by parsing the whole file: a heavy
 * user's `.claude.json` is megabytes of project history, and parsing 9 MiB of it took 90 ms here
 * where the two members need well under one. A key inside a string value is written with escaped
 * quotes (`\"key\"`), so an unescaped `"key":` is a member. Known limit: the first such member is
 * taken, so a nested object with the same key before the top-level one would be read instead (Claude
 * Code writes neither key anywhere else). Null when absent, unclosed within the bound, or not JSON.
 */
export function memberObject(bytes: Buffer, key: string): unknown {
  const needle = Buffer.from(`"${key}"`);
  for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1)) {
    if (at > 0 && bytes[at - 1] === BACKSLASH) continue;
    let i = skipSpace(bytes, at + needle.length);
    if (bytes[i] !== COLON) continue;
    i = skipSpace(bytes, i + 1);
    if (bytes[i] !== OPEN_BRACE) return null;
    const end = objectEnd(bytes, i);
    return end === null ? null : parseJson(bytes.toString('utf8', i, end));
  }
  return null;
}

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
/** JSON's whitespace: space, tab, line feed, carriage return. */
const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

function skipSpace(bytes: Buffer, from: number): number {
  let i = from;
  while (i < bytes.length && SPACE.has(bytes[i]!)) i++;
  return i;
}

/**
 * Where the object opening at `start` closes (one past its `}`), minding strings; null past the bound.
 * Bytes, not characters: no byte of a multi-byte UTF-8 character is an ASCII one, so the structure
 * reads the same.
 */
function objectEnd(bytes: Buffer, start: number): number | null {
  let depth = 0;
  let inString = false;
  const limit = Math.min(bytes.length, start + MAX_MEMBER_BYTES);
  for (let i = start; i < limit; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return null;
}

/** The figures in a parsed config file; what does not read is not known (never a throw). */
export function cachedQuota(config: unknown, nowMs: number): ClaudeQuotaRead {
  const cfg = obj(config);
  const cache = obj(cfg?.cachedUsageUtilization);
  const fetchedMs = num(cache?.fetchedAtMs);
  const u = obj(cache?.utilization);
  if (cache === null || u === null || fetchedMs === null || fetchedMs <= 0) return { kind: 'none' };
  const account = accountId(cache.accountUuid);
  const loggedIn = accountId(obj(cfg?.oauthAccount)?.accountUuid);
  // Claude Code itself throws such a cache away: it is the previous login's.
  if (loggedIn !== null && account !== loggedIn) return { kind: 'none' };
  const fetchedAt = new Date(fetchedMs).toISOString();
  const figures: QuotaFigure[] = [];
  const figure = (window: QuotaWindow, usedPercent: number | null, resetsAt: string | null) =>
    figures.push({
      harness: 'claude',
      account,
      plan: null,
      window,
      usedPercent,
      resetsAt,
      source: 'agent-cache',
      fetchedAt,
      stale: resetPassed(resetsAt, nowMs),
    });
  for (const [key, window] of WINDOWS) {
    const w = obj(u[key]);
    if (w === null) continue;
    figure(window, percentOf(w.utilization), isoOf(w.resets_at));
  }
  const extra = obj(u.extra_usage);
  if (extra !== null && extra.is_enabled === true) figure('extra', percentOf(extra.utilization), null);
  return figures.length === 0 ? { kind: 'none' } : { kind: 'figures', figures };
}

const accountId = (v: unknown): string | null => {
  const s = nonEmpty(v);
  return s !== null && s.length <= MAX_ACCOUNT_CHARS ? s : null;
};

/** A used share as Claude Code's usage endpoint gives it: 0–100 (a figure past 100 is over the limit). */
const percentOf = (v: unknown): number | null => {
  const n = num(v);
  return n !== null && n >= 0 ? n : null;
};

/** An ISO time, normalised; null when it is not one. */
const isoOf = (v: unknown): string | null => {
  const s = str(v);
  if (s === null || s.length > 40) return null;
  const ms = Date.parse(s);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
};
