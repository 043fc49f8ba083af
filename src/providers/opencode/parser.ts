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
 */

import { type FileFacts, noteModel, noteTime, oneLine, tallyFailure, tallyTool } from '../../model/facts.js';
import type { BadLineReason } from '../../model/json.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { noteFirstPrompt } from '../title.js';
import type { OpenCodeMessage, OpenCodePart, OpenCodeSession, OpenCodeTokens } from './record.js';

export interface OpenCodeRows {
  session: OpenCodeSession;
  /** Oldest first. */
  messages: OpenCodeMessage[];
  /** Every part read, any order; grouped by message here. */
  parts: OpenCodePart[];
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
  });
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
    const steps = parts.filter((p) => p.type === 'step-finish' && p.tokens !== null && hasTokens(p.tokens));
    if (steps.length > 0 || (m.tokens !== null && hasTokens(m.tokens))) noteModel(f, model);
    let last: OpenCodeTokens | null = null;
    for (const p of steps) {
      request(f, ledger, p.id, m.completedMs ?? m.ms, model, p.tokens!, p.cost);
      last = p.tokens;
    }
    if (steps.length === 0 && m.tokens !== null && hasTokens(m.tokens)) {
      request(f, ledger, m.id, m.completedMs ?? m.ms, model, m.tokens, m.cost);
      last = m.tokens;
    }
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
