/**
 * The `search` tool: every conversation on this machine, ranked for a query, through the same search
 * as `cctop search` (`search/search.ts`): words (all must match), "phrases" and prefix* terms. A hit
 * names the session and the turn, with a one-line snippet of the transcript around the match and the
 * command that opens the conversation there.
 *
 * A search first brings its index up to date within a budget; a call from an agent spends less than
 * one from a person (`SEARCH_CATCH_UP_MS`), and each call goes on from where the last stopped. When
 * transcripts are left unread, the result says so (`behind`), so the agent knows it may be missing
 * hits and can ask again.
 *
 * Not here: the index or the query language (`search/`).
 */
import { PROVIDERS, type ProviderId } from '../model/facts.js';
import { LocalTime } from '../model/time.js';
import type { Env } from '../providers/types.js';
import { ArgError, optInt, optString, reqString } from './args.js';
import { dataResult, errorResult, fitList, type ToolResult } from './data.js';

/**
 * How long one `search` call spends catching the index up before it answers: half of what `cctop
 * search` allows a person, since an agent waits on the call with its user, and may call again.
 */
const SEARCH_CATCH_UP_MS = 1000;

/** Hits returned when not told (`limit`): enough to choose from, few enough to read. */
export const DEFAULT_HITS = 10;

const ROLES = ['user', 'assistant', 'tool'] as const;

/** A time argument: a day (`2026-11-29`, from its start, or to its end for `until`) or an ISO time. */
function timeArg(args: Record<string, unknown>, key: 'since' | 'until', time: LocalTime): number | null {
  const v = optString(args, key);
  if (v === null) return null;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(v) ? LocalTime.dayOf(v) : null;
  if (day !== null) return time.dayStartMs(key === 'until' ? day + 1 : day);
  const ms = Date.parse(v);
  if (!Number.isFinite(ms)) throw new ArgError(`${key} must be a day (2026-11-29) or an ISO time`);
  return ms;
}

/** `search` under `env`; `providers` are the server's own `--provider`, when it was given one. */
export async function searchTool(
  env: Env,
  args: Record<string, unknown>,
  o: { providers: readonly ProviderId[] | null; timeZone: string | undefined; maxHits: number },
): Promise<ToolResult> {
  const query = reqString(args, 'query');
  const harness = optString(args, 'harness');
  if (harness !== null && !(PROVIDERS as readonly string[]).includes(harness))
    throw new ArgError(`harness must be one of ${PROVIDERS.join(', ')}`);
  const role = optString(args, 'role');
  if (role !== null && !(ROLES as readonly string[]).includes(role))
    throw new ArgError(`role must be one of ${ROLES.join(', ')}`);
  const time = new LocalTime(o.timeZone);
  const limit = optInt(args, 'limit', { min: 1, max: o.maxHits, fallback: DEFAULT_HITS });
  const { search } = await import('../search/search.js');
  const answer = await search({
    env,
    query,
    providers: harness !== null ? [harness as ProviderId] : o.providers,
    project: optString(args, 'project'),
    sinceMs: timeArg(args, 'since', time),
    untilMs: timeArg(args, 'until', time),
    role: role as (typeof ROLES)[number] | null,
    limit,
    budgetMs: SEARCH_CATCH_UP_MS,
  });
  switch (answer.kind) {
    case 'malformed':
      return errorResult(`search: ${answer.why}`);
    case 'unavailable':
      return errorResult(`search cannot be used now: ${answer.why}`);
    case 'results': {
      const hits = answer.results.map((h) => ({
        harness: h.provider,
        session: h.session,
        title: h.title,
        directory: h.project,
        role: h.role,
        turn: h.seq,
        at: h.at,
        snippet: h.snippet,
        open: h.open,
      }));
      const head = {
        query,
        behind: answer.behind,
        ...(answer.behind !== null
          ? { note: 'some transcripts were not indexed yet: results may be missing; search again to read on' }
          : {}),
        ...(answer.notice !== null ? { notice: answer.notice } : {}),
      };
      return dataResult(fitList(head, 'results', hits));
    }
  }
}
