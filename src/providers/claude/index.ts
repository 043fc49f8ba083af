/**
 * Claude Code: `projects/<slug>/<session>.jsonl` under each config directory, with subagent
 * transcripts in `<session>/subagents/` (and the older `agent-*.jsonl` beside the main file) counted
 * toward their parent. Finding them and the window rules are in `place.ts`; reading them into facts
 * is `parse.ts`; their conversations, calls and subagents are here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import { obj, parseJson, str } from '../../model/json.js';
import { eachObject } from '../conversation-util.js';
import type { ConversationOptions, Provider, SubagentInfo } from '../types.js';
import { claudeCalls } from './calls.js';
import { claudeRecord } from './conversation.js';
import { parse } from './parse.js';
import { type ClaudeCarry, readClaudeCarry } from './parser.js';
import { claudePlace } from './place.js';

export { claudePlace, claudeRoots, DEFAULT_COMPACT_RATIO, DEFAULT_WINDOW, LONG_WINDOW } from './place.js';

/** An agent id names a file: anything but a plain token is refused rather than resolved. */
export const AGENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The transcripts of a session's subagents: `<session>/subagents/agent-<id>.jsonl`, or beside it. */
export function subagentFiles(mainPath: string): { agent: string; path: string }[] {
  const dir = dirname(mainPath);
  const id = basename(mainPath, '.jsonl');
  const out: { agent: string; path: string }[] = [];
  for (const where of [join(dir, id, 'subagents')]) {
    try {
      for (const name of readdirSync(where)) {
        const m = /^agent-(.+)\.jsonl$/.exec(name);
        if (m && AGENT_ID.test(m[1]!)) out.push({ agent: m[1]!, path: join(where, name) });
      }
    } catch {
      // no subagents directory
    }
  }
  return out;
}

/**
 * A subagent transcript's agent id (`agent-<id>.jsonl`) and its kind, from the `.meta.json` Claude
 * Code writes beside it (older versions write none: no kind).
 */
function subagent(path: string): SubagentInfo {
  const agent = /agent-(.+)\.jsonl$/.exec(path)?.[1] ?? path;
  let type: string | null = null;
  try {
    type = str(obj(parseJson(readFileSync(path.replace(/\.jsonl$/, '.meta.json'), 'utf8')))?.agentType);
  } catch {
    // No meta file (older Claude Code), or one that does not read: the kind is not known.
  }
  return { agent, type };
}

function conversation(path: string, o: ConversationOptions): Conversation {
  let file = path;
  if (o.agent !== null) {
    if (!AGENT_ID.test(o.agent)) return unsupported(`"${o.agent.slice(0, 40)}" is not an agent id`);
    const found = subagentFiles(path).find((s) => s.agent === o.agent) ?? null;
    const beside = join(dirname(path), `agent-${o.agent}.jsonl`);
    file = found?.path ?? (statSync(beside, { throwIfNoEntry: false })?.isFile() ? beside : '');
    if (file === '') return unsupported(`this session has no subagent ${o.agent}`);
  }
  const sink = new TurnSink(o.before, o.feed);
  try {
    // A subagent's own transcript is all sidechain records: those are its conversation.
    const sidechain = o.agent !== null;
    eachObject(
      file,
      (r, at) => {
        sink.at(at);
        claudeRecord(sink, r, sidechain);
      },
      sink.startAt(),
    );
  } catch (err) {
    return unsupported(`could not read the transcript: ${(err as Error).message}`);
  }
  return sink.finish();
}

export const claude: Provider<'claude', ClaudeCarry> = {
  ...claudePlace,
  parse,
  readCarry: readClaudeCarry,
  conversation,
  calls: (path) => claudeCalls(path, subagentFiles(path)),
  subagent,
};
