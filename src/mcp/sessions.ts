/**
 * The session tools: `list_sessions` (the running ones), `get_session` (one's report in brief) and
 * `wait_for_session` (until it stops working, within a bound). Each turns the session document and a
 * report into the few fields an agent needs, as data (`data.ts` bounds and cleans them).
 *
 * Not here: where the sessions come from (`source.ts`), or reading arguments (`args.ts`).
 */
import { findSession } from '../index/find.js';
import type { SessionDoc } from '../model/document.js';
import type { SessionState } from '../model/state.js';
import { totalTokens } from '../model/usage.js';
import type { SessionReport } from '../report/types.js';
import { dataResult, errorResult, fitList, type ToolResult } from './data.js';
import type { Picture, Source } from './source.js';

/** Rows of a report's smaller tables kept in `get_session` (the files list is cut to fit instead). */
const REPORT_ROWS = 10;

/** How often `wait_for_session` looks again: a warm refresh of the index costs tens of milliseconds. */
const WAIT_POLL_MS = 2000;

/** What an agent needs to know of a session at a glance. */
export function briefOf(s: SessionDoc) {
  const context =
    s.context.used !== null && s.context.compactAt ? s.context.used / s.context.compactAt : null;
  return {
    id: s.id,
    harness: s.provider,
    title: s.title,
    directory: s.project,
    branch: s.branch,
    state: s.state,
    stateDetail: s.stateDetail,
    stateSource: s.stateSource,
    pendingTool: s.pendingTool,
    running: s.running,
    pid: s.process?.pids[0] ?? null,
    model: s.model,
    startedAt: s.startedAt,
    lastActiveAt: s.lastActiveAt,
    contextPercent: context === null ? null : Math.round(context * 100),
    costUsd: s.cost.usd,
  };
}

/** Whether `path` is `dir` or lies under it (both absolute and normalised). */
export const within = (path: string | null, dir: string): boolean =>
  path !== null && (path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`));

const isRunning = (s: SessionDoc): boolean => s.running === true && !s.deleted;

/** `list_sessions`: the running sessions (in `directory` when given), newest activity first. */
export function listSessions(p: Picture, directory: string | null, limit: number): ToolResult {
  const all = p.sessions.filter(isRunning);
  const shown = all.filter((s) => directory === null || within(s.project, directory));
  return dataResult(
    fitList(
      { running: all.length, ...(directory !== null ? { directory, inDirectory: shown.length } : {}) },
      'sessions',
      shown.map(briefOf),
      limit,
    ),
  );
}

/** The session `id` names, or the error result that says why there is none. */
export function sessionNamed(
  p: Picture,
  id: string,
): { kind: 'one'; session: SessionDoc } | { kind: 'error'; result: ToolResult } {
  const found = findSession({ sessions: [...p.sessions] }, id);
  switch (found.kind) {
    case 'one':
      return found;
    case 'none':
      return {
        kind: 'error',
        result: errorResult(`no session matches "${id}" (list_sessions gives the running ones' ids)`),
      };
    case 'many':
      return {
        kind: 'error',
        result: errorResult(
          `"${id}" matches ${found.candidates.length} sessions; give more of the id: ${found.candidates.map((s) => s.id).join(', ')}`,
        ),
      };
  }
}

/** `get_session`: one session's report in brief. */
export async function getSession(source: Source, id: string): Promise<ToolResult> {
  const p = await source.picture();
  const found = sessionNamed(p, id);
  if (found.kind === 'error') return found.result;
  const s = found.session;
  const r = await p.report(s);
  return dataResult(fitList(reportHead(s, r), 'files', r.files));
}

function reportHead(s: SessionDoc, r: SessionReport): Record<string, unknown> {
  return {
    session: { ...briefOf(s), models: s.models, deleted: s.deleted, subagentFiles: s.subagentFiles },
    cost: {
      usd: s.cost.usd,
      included: s.cost.included,
      unpricedModels: s.cost.unpriced,
      byModel: r.cost.byModel.slice(0, REPORT_ROWS).map((m) => ({
        model: m.model,
        ...(m.fast === true ? { fast: true } : {}),
        usd: m.usd,
        requests: m.requests,
      })),
    },
    tokens: { total: totalTokens(s.tokens), requests: s.requests, ...s.tokens },
    context: {
      used: r.context.used,
      window: r.context.window,
      compactAt: r.context.compactAt,
      compactions: r.context.compactions.length,
    },
    tools: {
      calls: r.tools.calls,
      failed: r.tools.failed,
      byTool: r.tools.byTool.slice(0, REPORT_ROWS),
      failures: r.tools.failures
        .slice(0, REPORT_ROWS)
        .map((f) => ({ tool: f.tool, detail: f.detail, count: f.count, lastAt: f.lastAt })),
    },
    subagents: {
      count: r.subagents.length,
      top: r.subagents
        .slice(0, REPORT_ROWS)
        .map((a) => ({ agent: a.agent, type: a.type, title: a.title, usd: a.usd, calls: a.calls })),
    },
    problems: r.problems.length,
    more: `cctop report ${s.id}`,
  };
}

/** How a wait ended. */
export type WaitOutcome = Exclude<SessionState, 'working'> | 'timeout' | 'gone';

export interface WaitContext {
  signal: AbortSignal;
  /** Told after each look, for a caller that asked for progress (it keeps the call alive). */
  progress(waitedMs: number, totalMs: number, state: SessionState): Promise<void>;
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
}

const sleepFor = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/** `wait_for_session`: look every `WAIT_POLL_MS` until the session is not working, or `seconds` pass. */
export async function waitForSession(
  source: Source,
  id: string,
  seconds: number,
  ctx: WaitContext,
): Promise<ToolResult> {
  const started = Date.now();
  const totalMs = seconds * 1000;
  const first = sessionNamed(await source.picture(), id);
  if (first.kind === 'error') return first.result;
  const key = { provider: first.session.provider, id: first.session.id };
  let s: SessionDoc = first.session;
  const sleep = ctx.sleep ?? sleepFor;
  const answer = (outcome: WaitOutcome, session: SessionDoc) =>
    dataResult({
      outcome,
      waitedSeconds: Math.round((Date.now() - started) / 100) / 10,
      session: briefOf(session),
    });
  for (;;) {
    if (s.state !== 'working') return answer(s.state, s);
    const waited = Date.now() - started;
    if (waited >= totalMs || ctx.signal.aborted) return answer('timeout', s);
    await ctx.progress(waited, totalMs, s.state);
    await sleep(Math.min(WAIT_POLL_MS, totalMs - waited), ctx.signal);
    const now = (await source.picture()).sessions.find((x) => x.provider === key.provider && x.id === key.id);
    if (now === undefined) return answer('gone', s);
    s = now;
  }
}
