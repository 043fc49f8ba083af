/**
 * The `--list` part of the warm document (`warm-doc.ts`): the rows a bare `cctop --list` prints, as
 * the full route makes them (`views/cli/list.ts`), grouped as its plan groups them, packed as bytes
 * (`views/cli/list-packed.ts`) with the index of each row's live members so the states that can still
 * change are worked out when it is printed, and the moment a quota figure in its headings turns stale.
 *
 * Not here: the rest of the document, or laying the rows out for a width (`views/cli/list-packed.ts`,
 * at answer time).
 */
import type { QuotaFigure } from '../model/quota.js';
import type { SessionState } from '../model/state.js';
import { cacheDir } from '../paths.js';
import { claudeConfigFile, readClaudeQuota } from '../providers/claude/quota.js';
import { newestCodexQuota } from '../providers/codex/quota.js';
import { PLACE_LIST } from '../providers/places.js';
import { gatherQuota } from '../quota/gather.js';
import { readLimitsNote } from '../statusline/quota-note.js';
import { type ListFacts, planRows, rowOfFacts } from '../views/cli/list.js';
import { packList } from '../views/cli/list-packed.js';
import { listFactsOf } from './held.js';
import type { DocAnswer } from './warm-doc.js';

/**
 * `cctop --list` for the default options, as the full route prints it (`views/cli/root-lists.ts`),
 * but for the width, the states that can still change and the ages, packed; empty when no session is
 * listed.
 */
export function listPartOf(
  a: DocAnswer,
  states: readonly SessionState[],
  liveRefs: readonly number[],
): Buffer {
  if (a.held.length === 0) return Buffer.alloc(0);
  const facts = a.held.map((h): ListFacts & { rateLimits: unknown; running: null } => {
    const f = listFactsOf(h);
    return { ...f, rateLimits: f.rateLimits ?? null, running: null };
  });
  const rows = facts.map((f, i) => rowOfFacts(f, { state: states[i]!, stateSource: 'inferred' }));
  const { env, nowMs } = a;
  const quota = gatherQuota({
    env,
    sessions: facts,
    usage: [],
    providers: null,
    nowMs,
    startOfTodayMs: nowMs,
  });
  // The rows as the plan holds them: grouped by harness, in the document's order within each.
  const order = PLACE_LIST.flatMap((p) => a.held.flatMap((h, i) => (h.provider === p.id ? [i] : [])));
  return packList(
    planRows(rows, a.options.plan, quota.quota),
    order.map((i) => liveRefs[i]!),
    quotaUntil(a, facts),
  );
}

/**
 * The first instant after `a.nowMs` at which a quota figure the headings choose from turns stale (its
 * reset time passes): until then they read the same. Every figure `gatherQuota` reads, not only the
 * ones it shows, since a figure turning stale changes which one it shows.
 */
function quotaUntil(
  a: DocAnswer,
  sessions: readonly { provider: string; rateLimits: unknown; lastActiveAt: string | null }[],
): number | null {
  const { env, nowMs } = a;
  const claude = readClaudeQuota(claudeConfigFile(env), nowMs);
  const all: QuotaFigure[] = [
    ...(claude.kind === 'figures' ? claude.figures : []),
    ...readLimitsNote(cacheDir(env), nowMs),
    ...newestCodexQuota(
      sessions.filter((s) => s.provider === 'codex'),
      nowMs,
    ),
  ];
  let until: number | null = null;
  for (const f of all) {
    const ms = f.resetsAt === null ? Number.NaN : Date.parse(f.resetsAt);
    if (Number.isFinite(ms) && ms > nowMs) until = Math.min(until ?? ms, ms);
  }
  return until;
}
