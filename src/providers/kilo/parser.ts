/**
 * A Kilo session (its row, messages and parts) → facts and ledger records.
 *
 * One `step-finish` part is one model request, with its own tokens and cost; the message above it
 * keeps only its newest step's tokens (as OpenCode, which Kilo forks, overwrites them), so a message
 * is billed whole only when it has no steps. Kilo's own cost is kept when above zero (a zero is a
 * model it had no price for). Reasoning is counted apart from output by Kilo; here it is inside
 * output, as everywhere in cctop, and reported as reasoning.
 */
import { type FileFacts, noteModel, noteTime, oneLine, tallyFailure, tallyTool } from '../../model/facts.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { noteFirstPrompt } from '../title.js';
import type { KiloMessage, KiloPart, KiloSession, KiloTokens } from './record.js';

/** A prompt is kept to its first characters: it names the session, nothing more. */
const MAX_PROMPT_CHARS = 4096;

const IN_FLIGHT = new Set(['pending', 'running']);

const some = (t: KiloTokens | null): t is KiloTokens =>
  t !== null && t.input + t.output + t.reasoning + t.cacheRead + t.cacheWrite > 0;

function request(
  ledger: LedgerBuilder,
  key: string,
  tsMs: number,
  model: string,
  t: KiloTokens,
  cost: number | null,
  tools: string[],
): void {
  ledger.push({
    key: hashString(`kilo\u0000${key}`),
    request: 0,
    tsMs,
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

export function foldSession(
  f: FileFacts,
  ledger: LedgerBuilder,
  s: KiloSession,
  messages: readonly KiloMessage[],
  parts: readonly KiloPart[],
): void {
  f.sessionId = s.id;
  f.cwd = s.directory;
  if (s.title !== null) f.titles.ai = oneLine(s.title);
  noteTime(f, s.createdMs);
  noteTime(f, s.updatedMs);
  const byMessage = new Map<string, KiloPart[]>();
  for (const p of parts) {
    if (p.kind === 'other') continue;
    const list = byMessage.get(p.messageId);
    if (list) list.push(p);
    else byMessage.set(p.messageId, [p]);
  }
  for (const m of messages) {
    noteTime(f, m.ms);
    noteTime(f, m.completedMs);
    f.cwd ??= m.cwd;
    const mine = byMessage.get(m.id) ?? [];
    for (const p of mine) if (p.kind === 'compaction') f.compactions++;
    if (m.role === 'user') {
      const words = mine.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('');
      if (words.trim().length > 0) noteFirstPrompt(f, words.slice(0, MAX_PROMPT_CHARS));
      f.live = { state: 'working', atMs: m.ms, detail: null };
      continue;
    }
    if (m.role !== 'assistant') continue;
    const model = m.model ?? f.mainModel ?? 'unknown';
    if (m.model !== null) {
      noteModel(f, m.model);
      f.mainModel = m.model;
    }
    const at = m.completedMs ?? m.ms ?? f.lastMs ?? 0;
    let tools: string[] = [];
    let newest: KiloTokens | null = null;
    for (const p of mine) {
      if (p.kind === 'tool') {
        tools.push(p.tool);
        tallyTool(f, p.tool);
        if (p.failed) tallyFailure(f, p.tool);
      } else if (p.kind === 'step' && some(p.tokens)) {
        request(ledger, p.id, at, model, p.tokens, p.cost, tools);
        newest = p.tokens;
        tools = [];
      }
    }
    if (newest === null && some(m.tokens)) {
      request(ledger, m.id, at, model, m.tokens, m.cost, tools);
      newest = m.tokens;
    }
    if (newest !== null) {
      noteModel(f, model);
      f.context = { prompt: newest.input + newest.cacheRead + newest.cacheWrite, model, atMs: m.ms };
    }
    const open = mine.find((p) => p.kind === 'tool' && IN_FLIGHT.has(p.status ?? ''));
    if (m.aborted) {
      f.aborts++;
      f.live = { state: 'idle', atMs: at, detail: 'aborted' };
    } else if (m.error !== null) f.live = { state: 'error', atMs: at, detail: oneLine(m.error) };
    else if (open?.kind === 'tool' && isAskUserTool(open.tool))
      f.live = { state: 'waiting', atMs: at, detail: open.tool };
    else if (open || m.completedMs === null || m.finish === 'tool-calls')
      f.live = { state: 'working', atMs: at, detail: null };
    else f.live = { state: 'idle', atMs: at, detail: m.finish ?? 'reply' };
  }
}
