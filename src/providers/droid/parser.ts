/**
 * A Droid session → facts and one ledger record.
 *
 * Droid keeps no figure per request: its settings file holds the session's running totals, so the
 * session is one record, dated when the session was bound to its provider (else when the settings
 * were last written), which is where ccusage dates it too. Thinking tokens are counted apart from
 * output by Droid and billed as output: they go into output, and are its reasoning. Where the
 * settings name a total larger than the parts, the rest is counted as output (what those tokens were
 * is unknown; ccusage prices them as output too).
 *
 * A copy of a session kept in a second sessions directory, or archived, names the same session and
 * has the same record key, so it counts once: the copy discovery ranks first (`place.ts`) speaks.
 */
import { type FileFacts, noteModel, noteTime, tallyFailure, tallyTool } from '../../model/facts.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { noteFirstPrompt } from '../title.js';
import { type DroidRecord, type DroidSettings, type DroidUsage, MAX_PROMPT_CHARS } from './record.js';

/** The ledger's tokens for a session's totals; null when they are all zero. */
export function sessionTokens(
  u: DroidUsage,
): { input: number; output: number; cacheRead: number; cacheWrite: number; reasoning: number } | null {
  const known = u.input + u.output + u.cacheWrite + u.cacheRead + u.thinking;
  const missing = u.total !== null && u.total > known ? u.total - known : 0;
  if (known + missing === 0) return null;
  return {
    input: u.input,
    output: u.output + u.thinking + missing,
    cacheRead: u.cacheRead,
    cacheWrite: u.cacheWrite,
    reasoning: u.thinking,
  };
}

/** Folds the conversation's records into the facts, as they come. */
export class DroidConversationFacts {
  private open = new Map<string, string>();
  private last: 'user' | 'assistant' | null = null;
  private lastCalls: string[] = [];

  constructor(private readonly f: FileFacts) {}

  record(r: DroidRecord): void {
    const f = this.f;
    switch (r.kind) {
      case 'start':
        f.sessionId ??= r.id;
        f.cwd ??= r.cwd;
        if (r.title !== null) f.titles.ai = r.title;
        return;
      case 'message':
        noteTime(f, r.ms);
        if (r.role === 'user') this.user(r.blocks);
        else if (r.role === 'assistant') this.assistant(r.blocks);
        return;
      case 'other':
        return;
    }
  }

  private user(blocks: Extract<DroidRecord, { kind: 'message' }>['blocks']): void {
    let words = '';
    for (const b of blocks) {
      if (b.kind === 'text') words += b.text;
      else if (b.kind === 'result') {
        const name = (b.callId === null ? undefined : this.open.get(b.callId)) ?? '(unknown)';
        if (b.callId !== null) this.open.delete(b.callId);
        if (b.failed) tallyFailure(this.f, name);
      }
    }
    // A message of tool results only is Droid answering the model, not the person.
    if (words.trim().length > 0) {
      noteFirstPrompt(this.f, words.slice(0, MAX_PROMPT_CHARS));
      this.last = 'user';
    } else if (blocks.some((b) => b.kind === 'result')) this.last = 'user';
  }

  private assistant(blocks: Extract<DroidRecord, { kind: 'message' }>['blocks']): void {
    this.lastCalls = [];
    for (const b of blocks) {
      if (b.kind !== 'call') continue;
      tallyTool(this.f, b.name);
      this.lastCalls.push(b.name);
      if (b.id !== null) this.open.set(b.id, b.name);
    }
    this.last = 'assistant';
  }

  finish(): void {
    const f = this.f;
    const at = f.lastMs;
    if (this.last === 'user') f.live = { state: 'working', atMs: at, detail: null };
    else if (this.last === 'assistant') {
      const ask = this.lastCalls.find((n) => isAskUserTool(n));
      if (ask !== undefined) f.live = { state: 'waiting', atMs: at, detail: ask };
      else if (this.lastCalls.length > 0) f.live = { state: 'working', atMs: at, detail: null };
      else f.live = { state: 'idle', atMs: at, detail: 'reply' };
    }
  }
}

/** The settings' part: the model, the effort, and the session's one ledger record. */
export function readSettings(
  s: DroidSettings,
  session: string,
  fallbackModel: string | null,
  mtimeMs: number,
  f: FileFacts,
  ledger: LedgerBuilder,
): void {
  f.reasoningEffort = s.reasoningEffort;
  const model = s.model ?? fallbackModel ?? 'unknown';
  if (s.model !== null || fallbackModel !== null) {
    noteModel(f, model);
    f.mainModel = model;
  }
  if (s.usage === null) return;
  const t = sessionTokens(s.usage);
  if (t === null) return;
  const tsMs = s.lockedMs ?? mtimeMs;
  noteTime(f, tsMs);
  noteModel(f, model);
  ledger.push({
    key: hashString(`droid\u0000${session}`),
    request: 0,
    tsMs,
    model,
    sidechain: false,
    tokens: {
      input: t.input,
      output: t.output,
      cacheRead: t.cacheRead,
      cacheWrite5m: t.cacheWrite,
      cacheWrite1h: null,
      reasoning: t.reasoning,
    },
    tools: null,
  });
}
