/**
 * A Codebuff chat → session facts and ledger records. A chat is read whole each time it changes
 * (Codebuff rewrites the file), so nothing is carried from one pass to the next.
 *
 * Each response with usage is one request, dated by its own time, else by the chat's id (the time
 * it began), else by the file's mtime, as ccusage dates it. Tokens a total names beyond its parts
 * are counted as output. A response with an `id` is keyed by it, so the same response in a copy of
 * the chat counts once.
 *
 * Codebuff's chat records no tool calls or their outcomes that cctop can read, and no folder (the
 * project folder is named, not its path): those show `─`.
 */
import { type FileFacts, noteModel, noteTime } from '../../model/facts.js';
import { hashString, type LedgerBuilder } from '../../model/ledger.js';
import { noteFirstPrompt } from '../title.js';
import { type CodebuffMessage, chatIdMs, messageFrom } from './record.js';

export function readChat(
  messages: readonly unknown[],
  session: string,
  mtimeMs: number,
  f: FileFacts,
  ledger: LedgerBuilder,
): void {
  f.sessionId = session;
  f.recordsOutcomes = false;
  const chatId = session.slice(session.lastIndexOf('/') + 1);
  const began = chatIdMs(chatId);
  noteTime(f, began);
  let last: CodebuffMessage | null = null;
  for (const [ordinal, v] of messages.entries()) {
    const m = messageFrom(v);
    if (m === null || m.role === 'other') continue;
    noteTime(f, m.ms);
    if (m.role === 'user') {
      if (m.text.trim().length > 0) noteFirstPrompt(f, m.text);
    } else if (m.usage !== null) {
      const u = m.usage;
      const model = m.model ?? 'unknown';
      const tsMs = m.ms ?? began ?? mtimeMs;
      noteTime(f, tsMs);
      noteModel(f, model);
      f.mainModel = model;
      ledger.push({
        // No id: the message's place in the chat keeps two alike responses apart.
        key: hashString(`codebuff\u0000${session}\u0000${m.id ?? `#${ordinal}`}`),
        request: 0,
        tsMs,
        model,
        sidechain: false,
        tokens: {
          input: u.input,
          output: u.output + u.unnamed,
          cacheRead: u.cacheRead,
          cacheWrite5m: u.cacheWrite,
          cacheWrite1h: null,
          reasoning: null,
        },
        tools: null,
      });
      f.context = { prompt: u.input + u.cacheRead + u.cacheWrite, model, atMs: tsMs };
    }
    last = m;
  }
  if (last === null) return;
  f.live =
    last.role === 'user'
      ? { state: 'working', atMs: f.lastMs, detail: null }
      : { state: 'idle', atMs: f.lastMs, detail: 'reply' };
}
