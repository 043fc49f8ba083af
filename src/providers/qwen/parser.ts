/**
 * Qwen Code chat lines → session facts and ledger records, one line at a time, resumable.
 *
 * Each assistant line is one model response with its own usage. The same usage is repeated in a
 * `system`/`ui_telemetry` line; only the assistant line counts. `promptTokenCount` holds the cached
 * part, so the ledger's input is the difference. Whether `thoughtsTokenCount` is already inside
 * `candidatesTokenCount` depends on the backend (Gemini counts it apart, OpenAI-compatible ones
 * inside); the line's own `totalTokenCount` says which, and a request's tokens add up to it.
 *
 * A turn stopped at a tool call ends there in 0.24.4: the person refusing the call (checked in the
 * lab), or pressing Escape while it runs (read in the pinned build), records its result as
 * `cancelled`, and when every call of the response was cancelled Qwen Code asks the model nothing
 * more. That last cancelled result is where the turn ended. A turn stopped before the model said anything leaves no line at all (the
 * prompt stays the chat's last line), so that session still reads working (docs/act-terminal.md).
 */
import { type FileFacts, noteModel, noteTime, tallyFailure, tallyTool } from '../../model/facts.js';
import { obj } from '../../model/json.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { isAskUserTool } from '../../model/state.js';
import { added, booleanOf, carriedCalls, stringOf } from '../carry.js';
import { type CarriedCall, PendingCalls } from '../pending.js';
import { noteFirstPrompt } from '../title.js';
import type { CarryReader } from '../types.js';
import type { QwenLine, QwenUsage } from './record.js';

export interface QwenCarry {
  pending: CarriedCall<string>[];
  /**
   * Whether a call of the newest response ended otherwise than cancelled: Qwen Code then sends the
   * results to the model, so the turn goes on even if the response's last result was cancelled.
   */
  ran: boolean;
}

export const emptyQwenCarry = (): QwenCarry => ({ pending: [], ran: false });

/** A `QwenCarry` as the index hands it back, checked (`providers/carry.ts`). */
export const readQwenCarry: CarryReader<QwenCarry> = (stored) => {
  const o = obj(stored);
  if (o === null) return undefined;
  const pending = carriedCalls(o.pending, stringOf);
  const ran = added(o.ran, booleanOf, false);
  return pending === undefined || ran === undefined ? undefined : { pending, ran };
};

export function requestTokens(u: QwenUsage): { input: number; cacheRead: number; output: number } {
  const inside = u.total !== null && u.thoughts > 0 && u.total === u.prompt + u.candidates;
  const cached = Math.min(u.cached, u.prompt);
  return {
    input: u.prompt - cached,
    cacheRead: cached,
    output: inside ? u.candidates : u.candidates + u.thoughts,
  };
}

export class QwenParser {
  private pending: PendingCalls<string>;
  private ran: boolean;

  constructor(
    readonly facts: FileFacts,
    carry: QwenCarry,
    private readonly ledger: LedgerBuilder,
  ) {
    this.pending = new PendingCalls(carry.pending);
    this.ran = carry.ran;
  }

  carry(): QwenCarry {
    return { pending: this.pending.carry(), ran: this.ran };
  }

  line(l: QwenLine): void {
    const f = this.facts;
    noteTime(f, l.ms);
    f.sessionId ??= l.sessionId;
    f.cwd ??= l.cwd;
    switch (l.type) {
      case 'user':
        if (l.prompt !== null) {
          noteFirstPrompt(f, l.prompt);
          f.live = { state: 'working', atMs: l.ms, detail: null };
        }
        return;
      case 'assistant':
        this.assistant(l);
        return;
      case 'tool_result': {
        const r = l.result;
        const name = r?.callId ? this.pending.settle(r.callId) : undefined;
        if (name !== undefined) {
          if (r?.failed) tallyFailure(f, name);
        } else if (r?.failed) tallyFailure(f, '(unknown)');
        if (r?.cancelled !== true) this.ran = true;
        // Every call of the response cancelled, none left open: Qwen Code asks the model nothing
        // more, and the session waits for the person again.
        f.live =
          r?.cancelled === true && !this.ran && this.pending.size === 0
            ? { state: 'idle', atMs: l.ms, detail: 'interrupted' }
            : { state: 'working', atMs: l.ms, detail: null };
        return;
      }
      case 'system':
        if (l.subtype === 'chat_compression') f.compactions++;
        return;
      default:
        return;
    }
  }

  private assistant(l: QwenLine): void {
    const f = this.facts;
    if (l.model !== null) {
      noteModel(f, l.model);
      f.mainModel = l.model;
    }
    const model = l.model ?? f.mainModel ?? 'unknown';
    if (l.usage !== null) {
      const u = l.usage;
      if (u.cached > u.prompt) f.inconsistentUsage++;
      const t = requestTokens(u);
      noteModel(f, model);
      this.ledger.push({
        key: l.uuid === null ? null : hashString(`qwen\u0000${l.uuid}`),
        request: 0,
        tsMs: l.ms ?? f.lastMs ?? 0,
        model,
        sidechain: false,
        tokens: {
          input: t.input,
          output: t.output,
          cacheRead: t.cacheRead,
          cacheWrite5m: null,
          cacheWrite1h: null,
          reasoning: u.thoughts,
        },
        // The assistant line is the response: its calls are the ones it made.
        tools: l.calls.map(([, name]) => name),
      });
      f.context = { prompt: u.prompt, model, atMs: l.ms };
    }
    if (l.calls.length > 0) this.ran = false;
    for (const [id, name] of l.calls) {
      tallyTool(f, name);
      if (id !== null) this.pending.open(id, name);
    }
    const ask = l.calls.find(([, name]) => isAskUserTool(name));
    if (ask) f.live = { state: 'waiting', atMs: l.ms, detail: ask[1] };
    else if (l.calls.length > 0) f.live = { state: 'working', atMs: l.ms, detail: null };
    else if (l.hasText) f.live = { state: 'idle', atMs: l.ms, detail: 'reply' };
  }
}
