/**
 * Qwen Code: `projects/<project>/chats/<session id>.jsonl` under its runtime directory, which is
 * `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen` (Qwen Code's documentation of its
 * environment variables: `QWEN_RUNTIME_DIR` "overrides the runtime output directory (conversations,
 * logs, todos); defaults to QWEN_HOME"). The project folder is the working directory with every
 * other character than letters and digits replaced by `-`; the records carry the real `cwd`.
 */
import { basename, join } from 'node:path';
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import type { ProblemLog } from '../../model/problems.js';
import { eachObject } from '../conversation-util.js';
import { home, isDir, isFile, list, sourceFile } from '../fsutil.js';
import { extracting, readJsonl } from '../read.js';
import {
  type ConversationOptions,
  type Env,
  type ParseResult,
  type Provider,
  type Root,
  reportedOrKnownWindow,
  type SourceFile,
} from '../types.js';
import { QwenConversation } from './conversation.js';
import { emptyQwenCarry, type QwenCarry, QwenParser } from './parser.js';
import { lineFromBytes, lineFromJson } from './record.js';

const first = (v: string | undefined): string | null => (v && v.length > 0 ? v : null);

export function qwenRoots(env: Env): Root[] {
  const runtime = first(env.QWEN_RUNTIME_DIR);
  if (runtime) return [{ path: runtime, origin: '$QWEN_RUNTIME_DIR' }];
  const qwenHome = first(env.QWEN_HOME);
  if (qwenHome) return [{ path: qwenHome, origin: '$QWEN_HOME' }];
  return [{ path: join(home(env), '.qwen'), origin: 'default' }];
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) {
    const projects = join(root.path, 'projects');
    for (const p of list(projects, problems) ?? []) {
      if (!isDir(projects, p)) continue;
      const chats = join(projects, p.name, 'chats');
      for (const e of list(chats, problems) ?? []) {
        if (!e.name.endsWith('.jsonl') || !isFile(chats, e)) continue;
        const path = join(chats, e.name);
        const sessionHint = basename(e.name, '.jsonl');
        const f = sourceFile(
          { provider: 'qwen', path, root: root.path, sessionHint, role: 'main' },
          problems,
        );
        if (f) out.push(f);
      }
    }
  }
  return out;
}

function parse(file: SourceFile, previous: ParseResult | null): ParseResult {
  return readJsonl(file, previous, (facts, carry, ledger) => {
    const parser = new QwenParser(facts, (carry as QwenCarry | null) ?? emptyQwenCarry(), ledger);
    const line = extracting(lineFromBytes, lineFromJson, (l) => parser.line(l));
    return { line, carry: () => parser.carry() };
  });
}

/** A subagent is named by its `agentId` (`explore-7f3c`): anything but a plain token is refused. */
const AGENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

function conversation(path: string, o: ConversationOptions): Conversation {
  if (o.agent !== null && !AGENT_ID.test(o.agent))
    return unsupported(`"${o.agent.slice(0, 40)}" is not an agent id`);
  const sink = new TurnSink(o.before);
  const reader = new QwenConversation(sink, o.agent);
  try {
    eachObject(path, (r) => reader.record(r));
  } catch (err) {
    return unsupported(`could not read the chat: ${(err as Error).message}`);
  }
  return sink.finish();
}

export const qwen: Provider = {
  id: 'qwen',
  label: 'Qwen Code',
  vendor: null,
  appendOnly: true,
  bundledUnderMax: false,
  roots: qwenRoots,
  discover,
  parse,
  compactRatio: () => null,
  contextWindow: reportedOrKnownWindow,
  conversation,
};
