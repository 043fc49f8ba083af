/**
 * Codex: `sessions/YYYY/MM/DD/rollout-*.jsonl` and `archived_sessions/` under each Codex home.
 * Finding them and the window rules are in `place.ts`; reading them is here.
 */
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { eachObject } from '../conversation-util.js';
import { extracting, readJsonl } from '../read.js';
import type { ConversationOptions, ParseResult, Provider, SourceFile } from '../types.js';
import { lineFromBytes } from './bytes.js';
import { codexCalls } from './calls.js';
import { CodexConversation } from './conversation.js';
import { type CodexCarry, CodexParser, emptyCodexCarry } from './parser.js';
import { codexPlace } from './place.js';
import { lineFromJson } from './record.js';

export { codexPlace, codexRoots } from './place.js';

function parse(file: SourceFile, previous: ParseResult | null): ParseResult {
  return readJsonl(file, previous, (facts, carry, ledger) => {
    const parser = new CodexParser(facts, (carry as CodexCarry | null) ?? emptyCodexCarry(), ledger);
    const line = extracting(lineFromBytes, lineFromJson, (l) => parser.line(l));
    return { line, carry: () => parser.carry() };
  });
}

function conversation(path: string, o: ConversationOptions): Conversation {
  if (o.agent !== null) return unsupported('Codex records no subagents of its own in a rollout');
  const sink = new TurnSink(o.before);
  const reader = new CodexConversation(sink);
  try {
    eachObject(path, (r) => reader.record(r));
  } catch (err) {
    return unsupported(`could not read the transcript: ${(err as Error).message}`);
  }
  return sink.finish();
}

export const codex: Provider = { ...codexPlace, parse, conversation, calls: codexCalls };
