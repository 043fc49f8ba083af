/**
 * One Devin session (its database row, its trajectory, its calls' outcomes) → facts and ledger.
 *
 * Each agent step with metrics is one billed response; a trajectory whose steps carry none but whose
 * `final_metrics` do is one record for the whole session. The prompt includes its cached part, so
 * the ledger's input is the difference. Devin does not price its sessions: the catalogue prices the
 * models it knows, and Devin's own models (`swe-1.5`, …) stay "no price".
 *
 * A call failed when the database says it ended otherwise than `completed`; a call with no word
 * from the database has not ended (or was never recorded) and is not a failure.
 */
import { type FileFacts, noteModel, noteTime, oneLine, tallyFailure, tallyTool } from '../../model/facts.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { noteFirstPrompt } from '../title.js';
import type { DevinMetrics, DevinSession, DevinTrajectory } from './record.js';

export interface DevinRows {
  session: DevinSession;
  trajectory: DevinTrajectory | null;
  /** `tool_call_id` → the status the database recorded. */
  statuses: Map<string, string>;
}

const COMPLETED = 'completed';

function request(
  f: FileFacts,
  ledger: LedgerBuilder,
  key: string,
  ms: number | null,
  model: string,
  m: DevinMetrics,
  /** The calls the step made, or null for a record that is not one step (the session's totals). */
  tools: readonly string[] | null,
): void {
  if (m.cached > m.prompt) f.inconsistentUsage++;
  const cached = Math.min(m.cached, m.prompt);
  noteModel(f, model);
  ledger.push({
    key: hashString(`devin\u0000${key}`),
    request: 0,
    tsMs: ms ?? f.lastMs ?? 0,
    model,
    sidechain: false,
    tokens: {
      input: m.prompt - cached,
      output: m.completion,
      cacheRead: cached,
      cacheWrite5m: null,
      cacheWrite1h: null,
      reasoning: null,
    },
    reportedCostUsd: m.costUsd !== null && m.costUsd > 0 ? m.costUsd : null,
    tools,
  });
}

export function foldSession(f: FileFacts, ledger: LedgerBuilder, rows: DevinRows): void {
  const s = rows.session;
  f.sessionId = s.id;
  f.cwd = s.cwd;
  if (s.title !== null) f.titles.ai = oneLine(s.title);
  noteTime(f, s.createdMs);
  noteTime(f, s.lastMs);
  if (s.model !== null) {
    noteModel(f, s.model);
    f.mainModel = s.model;
  }
  const t = rows.trajectory;
  if (t === null) return;
  const fallbackModel = t.model ?? s.model;
  let billed = false;
  for (const step of t.steps) {
    noteTime(f, step.ms);
    if (step.source === 'user') {
      noteFirstPrompt(f, step.text);
      f.live = { state: 'working', atMs: step.ms, detail: null };
      continue;
    }
    if (step.source !== 'agent') continue;
    const model = step.model ?? fallbackModel;
    if (model !== null) {
      noteModel(f, model);
      f.mainModel = model;
    }
    if (step.metrics !== null) {
      billed = true;
      request(
        f,
        ledger,
        `${s.id}\u0000${step.id ?? step.ms ?? ''}`,
        step.ms,
        model ?? 'unknown',
        step.metrics,
        step.calls.map(([, name]) => name),
      );
      f.context = { prompt: step.metrics.prompt, model, atMs: step.ms };
    }
    let open: string | null = null;
    for (const [id, name] of step.calls) {
      tallyTool(f, name);
      const status = id === null ? undefined : rows.statuses.get(id);
      if (status !== undefined && status !== COMPLETED) tallyFailure(f, name);
      if (status === undefined) open ??= name;
    }
    const ask = step.calls.find(([, name]) => isAskUserTool(name));
    if (ask && open !== null) f.live = { state: 'waiting', atMs: step.ms, detail: ask[1] };
    else if (step.calls.length > 0) f.live = { state: 'working', atMs: step.ms, detail: null };
    else f.live = { state: 'idle', atMs: step.ms, detail: 'reply' };
  }
  if (!billed && t.final !== null) {
    request(f, ledger, `${s.id}\u0000final`, s.lastMs, fallbackModel ?? 'unknown', t.final, null);
  }
}
