/**
 * An Amp thread → session facts and ledger records. A thread is read whole each time it changes
 * (Amp rewrites the file), so nothing is carried from one pass to the next.
 *
 * Each assistant message that carries `usage` is one request. Amp counts the uncached input, the
 * cache writes and the cache reads apart, as Anthropic's API does, so they go to the ledger as they
 * are. Where a request names only its total, the total is counted as output (what the tokens were
 * is unknown; ccusage does the same).
 */
import { type FileFacts, noteModel, noteTime, oneLine, tallyFailure, tallyTool } from '../../model/facts.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { noteFirstPrompt } from '../title.js';
import { type AmpRequest, type AmpThread, MAX_PROMPT_CHARS } from './record.js';

/** A request's tokens for the ledger; null when it says nothing at all. */
export function requestTokens(r: AmpRequest): {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
} | null {
  const t = r.tokens;
  const parts = (t.input ?? 0) + (t.output ?? 0) + (t.cacheWrite ?? 0) + (t.cacheRead ?? 0);
  if (parts === 0 && (t.total ?? 0) === 0) return null;
  return {
    input: t.input ?? 0,
    output: parts === 0 ? (t.total ?? 0) : (t.output ?? 0),
    cacheRead: t.cacheRead ?? 0,
    cacheWrite: t.cacheWrite ?? 0,
  };
}

export function readThread(thread: AmpThread, f: FileFacts, ledger: LedgerBuilder): void {
  f.sessionId = thread.id;
  f.cwd = thread.cwd;
  if (thread.title !== null) f.titles.ai = oneLine(thread.title);
  noteTime(f, thread.createdMs);
  const open = new Map<string, string>();
  let last: 'user' | 'assistant' | null = null;
  for (const m of thread.messages) {
    if (m.role === 'user') {
      let words = '';
      for (const b of m.blocks) {
        if (b.kind === 'text') words += b.text;
        else if (b.kind === 'result') {
          const name = (b.callId === null ? undefined : open.get(b.callId)) ?? '(unknown)';
          if (b.callId !== null) open.delete(b.callId);
          if (b.status === 'error') tallyFailure(f, name);
        }
      }
      if (words.trim().length > 0) noteFirstPrompt(f, words.slice(0, MAX_PROMPT_CHARS));
      last = 'user';
    } else if (m.role === 'assistant') {
      for (const b of m.blocks) {
        if (b.kind !== 'call') continue;
        tallyTool(f, b.name);
        if (b.id !== null) open.set(b.id, b.name);
      }
      if (m.state === 'cancelled') f.aborts++;
      last = 'assistant';
    }
  }
  for (const r of thread.requests) {
    const t = requestTokens(r);
    if (t === null) continue;
    noteTime(f, r.ms);
    noteModel(f, r.model);
    f.mainModel = r.model;
    ledger.push({
      key: thread.id === null || r.id === null ? null : hashString(`amp\u0000${thread.id}\u0000${r.id}`),
      request: 0,
      tsMs: r.ms,
      model: r.model,
      sidechain: false,
      tokens: {
        input: t.input,
        output: t.output,
        cacheRead: t.cacheRead,
        cacheWrite5m: t.cacheWrite,
        cacheWrite1h: null,
        reasoning: null,
      },
      tools: r.tools,
    });
    f.context = { prompt: t.input + t.cacheRead + t.cacheWrite, model: r.model, atMs: r.ms };
  }
  const at = f.lastMs;
  const tail = thread.messages.at(-1);
  if (tail === undefined || last === null) return;
  if (last === 'user') f.live = { state: 'working', atMs: at, detail: null };
  else {
    const calls = tail.blocks.flatMap((b) => (b.kind === 'call' ? [b.name] : []));
    const ask = calls.find((n) => isAskUserTool(n));
    if (ask !== undefined) f.live = { state: 'waiting', atMs: at, detail: ask };
    else if (calls.length > 0 || tail.state === 'running')
      f.live = { state: 'working', atMs: at, detail: null };
    else f.live = { state: 'idle', atMs: at, detail: 'reply' };
  }
}
