/**
 * A Goose session → facts and one ledger record.
 *
 * Goose keeps no figure per request that lasts: the session row holds the running sums, so the
 * session is one record, dated when it was created (where ccusage dates it too). A total larger than
 * input and output (a provider that bills tokens it does not name) is counted as output, as ccusage
 * prices it. Goose keeps no split of cached input: cache reads and writes are unknown, not zero.
 */
import { type FileFacts, noteModel, noteTime, tallyFailure, tallyTool } from '../../model/facts.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { noteFirstPrompt } from '../title.js';
import type { GooseMessage, GooseSession } from './record.js';

/** A prompt is kept to its first characters: it names the session, nothing more. */
const MAX_PROMPT_CHARS = 4096;

export function foldSession(
  f: FileFacts,
  ledger: LedgerBuilder,
  s: GooseSession,
  messages: readonly GooseMessage[],
): void {
  f.sessionId = s.id;
  f.cwd = s.cwd;
  if (s.title !== null) f.titles.ai = s.title;
  noteTime(f, s.createdMs);
  noteTime(f, s.updatedMs);
  const open = new Map<string, string>();
  let last: GooseMessage | null = null;
  for (const m of messages) {
    noteTime(f, m.ms);
    let words = '';
    for (const item of m.items) {
      if (item.kind === 'text') words += item.text;
      else if (item.kind === 'call') {
        tallyTool(f, item.name);
        if (item.id !== null) open.set(item.id, item.name);
      } else if (item.kind === 'result' && item.failed) {
        tallyFailure(f, (item.id === null ? undefined : open.get(item.id)) ?? '(unknown)');
      }
    }
    if (m.role === 'user' && words.trim().length > 0) noteFirstPrompt(f, words.slice(0, MAX_PROMPT_CHARS));
    if (m.role === 'user' || m.role === 'assistant') last = m;
  }
  if (s.model !== null) {
    noteModel(f, s.model);
    f.mainModel = s.model;
  }
  const unnamed = Math.max(0, s.total - s.input - s.output);
  if (s.input + s.output + unnamed > 0) {
    const model = s.model ?? 'unknown';
    const tsMs = s.createdMs ?? f.firstMs ?? 0;
    ledger.push({
      key: hashString(`goose\u0000${s.id}`),
      request: 0,
      tsMs,
      model,
      sidechain: false,
      tokens: {
        input: s.input,
        output: s.output + unnamed,
        cacheRead: null,
        cacheWrite5m: null,
        cacheWrite1h: null,
        reasoning: null,
      },
      tools: null,
    });
    if (s.lastInput !== null) f.context = { prompt: s.lastInput, model, atMs: f.lastMs };
  }
  if (last === null) return;
  const at = f.lastMs;
  const calls = last.items.flatMap((i) => (i.kind === 'call' ? [i.name] : []));
  const ask = calls.find((name) => isAskUserTool(name));
  if (last.role === 'user') f.live = { state: 'working', atMs: at, detail: null };
  else if (ask !== undefined) f.live = { state: 'waiting', atMs: at, detail: ask };
  else if (calls.length > 0) f.live = { state: 'working', atMs: at, detail: null };
  else f.live = { state: 'idle', atMs: at, detail: 'reply' };
}
