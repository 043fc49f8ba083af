/**
 * The figures for one status line, from what is at hand without reading the history: what Claude
 * Code sent on stdin, the digest the last refresh kept (`digest.ts`), and the tail of its one
 * transcript (read by the Claude provider). Also whether the digest is old enough that a refresh should start.
 *
 * Which source wins, per figure:
 * - model, context, this session's cost: Claude Code's own figures from stdin, which are current by
 *   definition; then the digest's, when it was built after the transcript last changed; then the
 *   transcript's tail (model, context); then the digest's even if older (better than nothing).
 * - the model's `fast` mark: the transcript's tail (the newest response's speed is written nowhere else).
 * - today's spend: the digest's, while its day is still today.
 * - rate limits: stdin's; when stdin carries none (an API-key session, a Claude Code before 2.1.80, the
 *   first line before any response), Claude Code's own cache in `.claude.json`, labelled as such.
 * - the block and the budget: the digest's (worked out by the refresh, which holds the whole index).
 *
 * Not here: printing (`line.ts`), or starting the refresh (`background.ts`).
 */
import { statSync } from 'node:fs';
import { cacheDir } from '../paths.js';
import { claudePlace } from '../providers/claude/place.js';
import type { ClaudeTail } from '../providers/claude/statusline-tail.js';
import type { Env } from '../providers/types.js';
import { type Digest, type DigestSession, readDigest } from './digest.js';
import type { StatuslineInput } from './input.js';
import type { CachedLimits, CachedWindow, StatusFigures } from './line.js';

/**
 * A digest older than this starts a refresh. Claude Code runs the status line after every message;
 * once a minute keeps today's spend and the block near the truth while a busy session writes its
 * transcript many times a minute. A refresh of a warm 1.2 GiB history costs about a second of one
 * core, at low priority: once a minute is under 2% of a core, where once a message could be half.
 */
export const STALE_INDEX_MS = 60_000;

export interface Gathered {
  figures: StatusFigures;
  /** When the digest read was built (null: there was none): what a refresh it starts checks first. */
  seenBuiltAtMs: number | null;
  /** Why a refresh should start (no digest, or an old one); null when the digest is recent. */
  refresh: 'missing' | 'stale' | null;
}

/** This session's figures from the digest or the tail, for what stdin did not say. */
interface Own {
  model: string | null;
  usd: number | null;
  contextUsed: number | null;
  compactAt: number | null;
}

const NONE: Own = { model: null, usd: null, contextUsed: null, compactAt: null };

/** What the tail of the transcript says, read at most once per status line. */
type TailOf = () => Promise<ClaudeTail | null>;

function modifiedMs(path: string | null): number | null {
  if (path === null) return null;
  try {
    return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? null;
  } catch {
    return null;
  }
}

/**
 * What the digest or the transcript's tail say of this session. The tail is read only when the
 * digest is not as new as the transcript and stdin lacks the model or the context.
 */
async function ownFigures(input: StatuslineInput, digest: Digest | null, tailOf: TailOf): Promise<Own> {
  const kept: DigestSession | undefined =
    digest !== null && input.sessionId !== null ? digest.sessions[input.sessionId] : undefined;
  const changed = modifiedMs(input.transcriptPath);
  const keptIsCurrent = kept !== undefined && (changed === null || changed <= digest!.builtAtMs);
  if (keptIsCurrent) return kept;
  const needTail = input.modelId === null || input.contextUsed === null;
  if (!needTail) return kept ?? NONE;
  const tail = await tailOf();
  if (tail === null) return kept ?? NONE;
  return {
    model: tail.model,
    usd: kept?.usd ?? null,
    contextUsed: tail.contextUsed,
    compactAt: tail.compactAt,
  };
}

/** Where Claude compacts in the window stdin names: the provider's ratio (its default, or the user's). */
function compactAtOf(input: StatuslineInput, env: Env): number | null {
  const ratio = claudePlace.compactRatio(env);
  return input.contextWindow === null || ratio === null ? null : Math.round(input.contextWindow * ratio);
}

/** The 5-hour and 7-day windows of Claude Code's own cache, or null when it has neither. */
export async function cachedLimits(env: Env, nowMs: number): Promise<CachedLimits | null> {
  // Loaded only here: Claude Code 2.1.80 and later send the limits on stdin, so most lines never read its cache.
  const { claudeConfigFile, readClaudeQuota } = await import('../providers/claude/quota.js');
  const read = readClaudeQuota(claudeConfigFile(env), nowMs);
  if (read.kind !== 'figures') return null;
  let fetchedAtMs: number | null = null;
  const windowOf = (name: '5h' | '7d'): CachedWindow | null => {
    const f = read.figures.find((x) => x.window === name);
    if (f === undefined || f.usedPercent === null) return null;
    const at = f.fetchedAt === null ? Number.NaN : Date.parse(f.fetchedAt);
    if (Number.isFinite(at)) fetchedAtMs = at;
    const resets = f.resetsAt === null ? Number.NaN : Date.parse(f.resetsAt);
    return {
      usedPercent: f.usedPercent,
      resetsAtMs: Number.isFinite(resets) ? resets : null,
      stale: f.stale,
    };
  };
  const fiveHour = windowOf('5h');
  const sevenDay = windowOf('7d');
  return fiveHour === null && sevenDay === null ? null : { fiveHour, sevenDay, fetchedAtMs };
}

export async function gather(input: StatuslineInput, env: Env, nowMs: number): Promise<Gathered> {
  const digest = readDigest(cacheDir(env));
  let tail: Promise<ClaudeTail | null> | null = null;
  const tailOf: TailOf = () => {
    tail ??=
      input.transcriptPath === null
        ? Promise.resolve(null)
        : import('../providers/claude/statusline-tail.js').then(({ claudeTail }) =>
            claudeTail(input.transcriptPath!, env, input.contextWindow),
          );
    return tail;
  };
  const own = await ownFigures(input, digest, tailOf);
  // Whether the newest response ran in fast mode is on neither stdin nor the digest: the tail says
  // (its last 256 KiB, read in well under a millisecond, and at most once).
  const fast = (await tailOf())?.fast === true;
  const contextUsed = input.contextUsed ?? own.contextUsed;
  const compactAt = compactAtOf(input, env) ?? own.compactAt;
  const today = digest?.today;
  return {
    figures: {
      model: input.modelId ?? own.model ?? input.modelName,
      fast,
      sessionUsd: input.costUsd ?? own.usd,
      contextShare:
        contextUsed !== null && compactAt !== null && compactAt > 0 ? contextUsed / compactAt : null,
      todayUsd: today !== undefined && nowMs >= today.startMs && nowMs < today.endMs ? today.usd : null,
      limits: input.limits,
      cachedLimits: input.limits === null ? await cachedLimits(env, nowMs) : null,
      // Worked out by the refresh, which holds the whole index (refresh.ts: the block running now, the budget nearest its limit).
      block: digest?.block ?? null,
      budget: digest?.budget ?? null,
    },
    refresh: digest === null ? 'missing' : nowMs - digest.builtAtMs > STALE_INDEX_MS ? 'stale' : null,
    seenBuiltAtMs: digest?.builtAtMs ?? null,
  };
}
