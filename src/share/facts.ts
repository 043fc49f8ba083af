/**
 * What a handoff brief says, gathered from a session: its goal (the first thing the person asked),
 * its plan as the agent last wrote it, the commands it ran, and where it stopped (the person's last
 * message, the agent's last words), from one walk over every turn; the files, failures and
 * subagents from its report.
 *
 * Everything kept is bounded as it is gathered (the newest commands, one plan, a few texts), so a
 * conversation of any length costs one window of memory.
 *
 * Not here: how the brief reads (`brief.ts`).
 */
import type { Turn } from '../model/conversation.js';
import { parseJson } from '../model/json.js';
import { isPlanTool, isShellTool, type Plan, planOf } from '../model/tool-kinds.js';
import type { Provider } from '../providers/types.js';
import type { SessionReport } from '../report/types.js';
import { walkConversation } from './turns.js';

/** Commands kept, the newest: what the agent did last is what the next one needs to know. */
export const MAX_BRIEF_COMMANDS = 40;

export interface Command {
  command: string;
  /** The result said it failed. */
  failed: boolean;
  /** No result came back (the call was still running, or the session stopped there). */
  open: boolean;
}

export interface HandoffFacts {
  report: SessionReport;
  /** The person's first message (else the session's title). */
  goal: string | null;
  /** The plan or todo list as the agent last wrote it; null when it never wrote one. */
  plan: Plan | null;
  lastUser: string | null;
  lastAssistant: string | null;
  /** The newest `MAX_BRIEF_COMMANDS` shell commands, oldest first. */
  commands: Command[];
  /** Shell commands run in all. */
  commandCount: number;
  turns: number;
  /** Why the conversation could not be read (all or part of it); null when it was. */
  unread: string | null;
}

/** A plan tool's steps, from the argument the conversation keeps in full. */
function planIn(full: string | null): Plan | null {
  // An argument cut at its bound is not JSON any more: the plan is not known from that call.
  return full === null ? null : planOf(parseJson(full));
}

/** Gather the facts of the session `report` describes, reading its conversation once. */
export function gatherFacts(report: SessionReport, provider: Provider): HandoffFacts {
  const s = report.session;
  const f: HandoffFacts = {
    report,
    goal: null,
    plan: null,
    lastUser: null,
    lastAssistant: null,
    commands: [],
    commandCount: 0,
    turns: 0,
    unread: null,
  };
  const visit = (t: Turn) => {
    if (t.kind === 'message' && t.text.length > 0) {
      if (t.role === 'user') {
        f.goal ??= t.text;
        f.lastUser = t.text;
      } else if (t.role === 'assistant') f.lastAssistant = t.text;
    }
    for (const tool of t.tools) {
      if (isPlanTool(tool.name)) f.plan = planIn(tool.full) ?? f.plan;
      if (!isShellTool(tool.name) || tool.detail.length === 0) continue;
      f.commandCount++;
      f.commands.push({ command: tool.detail, failed: tool.failed, open: tool.result === null });
      if (f.commands.length > MAX_BRIEF_COMMANDS) f.commands.shift();
    }
  };
  if (s.deleted) f.unread = 'the transcript has been deleted; only its numbers remain';
  else {
    const walked = walkConversation(provider, s.file, null, visit);
    f.turns = walked.turns;
    if (walked.kind === 'unread') f.unread = walked.note;
  }
  f.goal ??= s.title;
  return f;
}
