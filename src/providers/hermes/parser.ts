/**
 * A Hermes session → facts and one ledger record.
 *
 * Hermes keeps no figure per request: the session row holds its running totals, so the session is
 * one record, dated when it started (where ccusage dates it too). Its reasoning is already inside its
 * output (see `record.ts`), so it is the record's reasoning and not added again. The cost Hermes
 * recorded is the session's reported cost; without one, cctop prices the tokens.
 *
 * The messages give the first prompt, the calls and the times of the session's activity. Hermes
 * records no outcome of a call, so failures are `─`.
 */
import { type FileFacts, noteModel, noteTime, tallyTool } from '../../model/facts.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { noteFirstPrompt } from '../title.js';
import type { HermesMessage, HermesSession } from './record.js';

/** A prompt is kept to its first characters: it names the session, nothing more. */
const MAX_PROMPT_CHARS = 4096;

export function foldSession(
  f: FileFacts,
  ledger: LedgerBuilder,
  s: HermesSession,
  messages: readonly HermesMessage[],
): void {
  f.sessionId = s.id;
  f.cwd = s.cwd;
  f.recordsOutcomes = false;
  if (s.title !== null) f.titles.ai = s.title;
  noteTime(f, s.startedMs);
  noteTime(f, s.endedMs);
  let last: HermesMessage | null = null;
  for (const m of messages) {
    noteTime(f, m.ms);
    if (m.role === 'user' && m.content.trim().length > 0)
      noteFirstPrompt(f, m.content.slice(0, MAX_PROMPT_CHARS));
    for (const [, name] of m.calls) tallyTool(f, name);
    if (m.role === 'user' || m.role === 'assistant' || m.role === 'tool') last = m;
  }
  if (s.model !== null) {
    noteModel(f, s.model);
    f.mainModel = s.model;
  }
  const total = s.input + s.output + s.cacheRead + s.cacheWrite;
  if (total > 0 || s.costUsd !== null) {
    const model = s.model ?? 'unknown';
    const tsMs = s.startedMs ?? f.firstMs ?? 0;
    ledger.push({
      key: hashString(`hermes\u0000${s.id}`),
      request: 0,
      tsMs,
      model,
      sidechain: false,
      tokens: {
        input: s.input,
        output: s.output,
        cacheRead: s.cacheRead,
        cacheWrite5m: s.cacheWrite,
        cacheWrite1h: null,
        reasoning: s.reasoning,
      },
      reportedCostUsd: s.costUsd,
      tools: null,
    });
  }
  if (last === null) return;
  const at = f.lastMs;
  if (last.role === 'assistant') {
    const ask = last.calls.find(([, name]) => isAskUserTool(name));
    if (ask !== undefined) f.live = { state: 'waiting', atMs: at, detail: ask[1] };
    else if (last.calls.length > 0) f.live = { state: 'working', atMs: at, detail: null };
    else f.live = { state: 'idle', atMs: at, detail: 'reply' };
  } else f.live = { state: 'working', atMs: at, detail: null };
}
