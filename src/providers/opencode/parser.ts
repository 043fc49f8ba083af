/**
 * One OpenCode session (its row, messages and parts) → session facts and ledger records.
 *
 * A session is read whole each time it changed: its rows are rewritten in place, never appended.
 *
 * Billing: one `step-finish` part is one model request, with that request's tokens and cost. The
 * message above it keeps only the newest step's tokens (OpenCode overwrites them) while adding up
 * the cost, so the message is used only when it has no step parts (older builds). OpenCode's own
 * cost is kept as reported when it is above zero; a zero is a model it had no price for, and the
 * catalogue prices it. Reasoning is billed apart from `output` by OpenCode; here it is inside
 * output, as everywhere in cctop, and reported as `reasoning`.
 *
 * A step's tools are the `tool` parts between the step before it and its `step-finish` (parts are
 * read in the order of their ids, which OpenCode makes ascending); a message billed whole (no step
 * parts) called every tool part it has.
 */

import { type FileFacts, noteModel, noteTime, oneLine, tallyFailure, tallyTool } from '../../model/facts.js';
import type { BadLineReason } from '../../model/json.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { noteToolName } from '../../model/tool-sets.js';
import { noteFirstPrompt } from '../title.js';
import type { OpenCodeMessage, OpenCodePart, OpenCodeSession, OpenCodeTokens } from './record.js';

export interface OpenCodeRows {
  session: OpenCodeSession;
  /** Oldest first. */
  messages: OpenCodeMessage[];
  /** Every part read, any order; grouped by message here. */
  parts: OpenCodePart[];
  /**
   * How many parts of each type the session has, for doctor's drift count: a database's reader reads
   * only the types it folds, so it counts the others apart; absent, `parts` holds every type.
   */
  partTypes?: { type: string; count: number }[];
  /** The words of the session's first prompt, when there is one. */
  firstPrompt: string | null;
  /**
   * Files of a `storage/` tree that could not be read as JSON objects (a message or part damaged on
   * disk): how many, and the first, named from the tree. A database's rows have none.
   */
  unread?: { count: number; first: { file: string; reason: BadLineReason } };
  /** Files of a `storage/` tree over its size bound, not read. */
  oversized?: number;
}

/** The error OpenCode records when the user stops a response. */
const ABORTED = 'MessageAbortedError';

const IN_FLIGHT = new Set(['pending', 'running']);

const hasTokens = (t: OpenCodeTokens): boolean =>
  t.input + t.output + t.reasoning + t.cacheRead + t.cacheWrite > 0;

function request(
  f: FileFacts,
  ledger: LedgerBuilder,
  key: string,
  ms: number | null,
  model: string,
  t: OpenCodeTokens,
  cost: number | null,
  tools: readonly string[],
): void {
  ledger.push({
    key: hashString(`opencode\u0000${key}`),
    request: 0,
    tsMs: ms ?? f.lastMs ?? 0,
    model,
    sidechain: false,
    tokens: {
      input: t.input,
      output: t.output + t.reasoning,
      cacheRead: t.cacheRead,
      cacheWrite5m: t.cacheWrite,
      cacheWrite1h: null,
      reasoning: t.reasoning,
    },
    reportedCostUsd: cost !== null && cost > 0 ? cost : null,
    tools,
  });
}

/** A message's billed steps (its `step-finish` parts with tokens), each with the tools it called. */
function stepsOf(
  parts: readonly OpenCodePart[],
): { part: OpenCodePart; tokens: OpenCodeTokens; tools: string[] }[] {
  const out: { part: OpenCodePart; tokens: OpenCodeTokens; tools: string[] }[] = [];
  let tools: string[] = [];
  for (const p of parts) {
    if (p.type === 'tool' && p.tool !== null) noteToolName(tools, p.tool);
    else if (p.type === 'step-finish') {
      if (p.tokens !== null && hasTokens(p.tokens)) out.push({ part: p, tokens: p.tokens, tools });
      tools = [];
    }
  }
  return out;
}

/** Bill a message's requests: one per step, or the message itself; returns the newest one's tokens. */
function bill(
  f: FileFacts,
  ledger: LedgerBuilder,
  m: OpenCodeMessage,
  parts: readonly OpenCodePart[],
  model: string,
): OpenCodeTokens | null {
  const steps = stepsOf(parts);
  if (steps.length > 0 || (m.tokens !== null && hasTokens(m.tokens))) noteModel(f, model);
  for (const s of steps)
    request(f, ledger, s.part.id, m.completedMs ?? m.ms, model, s.tokens, s.part.cost, s.tools);
  if (steps.length > 0) return steps.at(-1)!.tokens;
  if (m.tokens === null || !hasTokens(m.tokens)) return null;
  const tools: string[] = [];
  for (const p of parts) if (p.type === 'tool' && p.tool !== null) noteToolName(tools, p.tool);
  request(f, ledger, m.id, m.completedMs ?? m.ms, model, m.tokens, m.cost, tools);
  return m.tokens;
}

export function foldSession(f: FileFacts, ledger: LedgerBuilder, rows: OpenCodeRows): void {
  const s = rows.session;
  f.sessionId = s.id;
  f.cwd = s.directory;
  if (s.title !== null) f.titles.ai = oneLine(s.title);
  noteFirstPrompt(f, rows.firstPrompt);
  noteTime(f, s.createdMs);
  noteTime(f, s.updatedMs);

  const byMessage = new Map<string, OpenCodePart[]>();
  for (const p of [...rows.parts].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const list = byMessage.get(p.messageId);
    if (list) list.push(p);
    else byMessage.set(p.messageId, [p]);
  }

  for (const m of rows.messages) {
    noteTime(f, m.ms);
    noteTime(f, m.completedMs);
    f.cwd ??= m.cwd;
    const parts = byMessage.get(m.id) ?? [];
    for (const p of parts) if (p.type === 'compaction') f.compactions++;
    if (m.role === 'user') {
      f.live = { state: 'working', atMs: m.ms, detail: null };
      continue;
    }
    if (m.role !== 'assistant') continue;

    if (m.model !== null) {
      noteModel(f, m.model);
      f.mainModel = m.model;
    }
    const model = m.model ?? f.mainModel ?? 'unknown';
    const last = bill(f, ledger, m, parts, model);
    if (last !== null)
      f.context = { prompt: last.input + last.cacheRead + last.cacheWrite, model, atMs: m.ms };

    const tools = parts.filter((p) => p.type === 'tool' && p.tool !== null);
    for (const p of tools) {
      tallyTool(f, p.tool!);
      if (p.failed) tallyFailure(f, p.tool!);
    }

    const at = m.completedMs ?? m.ms;
    const open = tools.find((p) => IN_FLIGHT.has(p.status ?? ''));
    if (m.error !== null && m.error.name === ABORTED) {
      f.aborts++;
      f.live = { state: 'idle', atMs: at, detail: 'aborted' };
    } else if (m.error !== null) {
      f.live = { state: 'error', atMs: at, detail: oneLine(m.error.message ?? m.error.name ?? 'error') };
    } else if (open && isAskUserTool(open.tool!)) {
      f.live = { state: 'waiting', atMs: at, detail: open.tool };
    } else if (open || m.completedMs === null || m.finish === 'tool-calls') {
      f.live = { state: 'working', atMs: at, detail: null };
    } else {
      f.live = { state: 'idle', atMs: at, detail: m.finish ?? 'reply' };
    }
  }
}
