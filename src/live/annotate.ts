/**
 * Filling in what transcripts cannot say: which sessions have a live process, what that process
 * costs, and which "working" sessions are probably blocked on a permission prompt (prompts are not
 * written to transcripts, so without agent hooks a blocked call looks like a long one).
 */
import type { Annotator } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { type AgentProcess, matchSessions, ProcessTable } from './processes.js';

/** The harnesses whose processes can be recognised and matched to sessions. */
export const MATCHED_PROVIDERS: ReadonlySet<ProviderId> = new Set(['claude', 'codex']);

/** A pending call this quiet, with its process this idle, reads as probably waiting on the user. */
export const PROBABLY_WAITING_AFTER_MS = 30_000;
export const IDLE_CPU_PERCENT = 2;

/** The command line shown for a process, cut to a table cell's worth. */
const MAX_COMMAND_CHARS = 200;

/**
 * An annotator for the session document. Returns whether anything a view shows as state changed
 * (running, inferred), so a refresh can decide to announce it; CPU and memory always move.
 */
export function processAnnotator(table = new ProcessTable(), now: () => number = Date.now): Annotator {
  return (doc) => {
    const agents = table.agents();
    if (agents === null) return false;
    // With no agent running (most of the time on most machines) there is nothing to match.
    const matched: Map<string, AgentProcess> =
      agents.length === 0
        ? new Map()
        : matchSessions(
            agents,
            doc.sessions
              .filter((s) => MATCHED_PROVIDERS.has(s.provider) && !s.deleted)
              .map((s) => ({
                provider: s.provider,
                id: s.id,
                project: s.project,
                lastActiveMs: s.lastActiveAt ? Date.parse(s.lastActiveAt) : null,
              })),
          );
    let changed = false;
    const t = now();
    for (const s of doc.sessions) {
      if (!MATCHED_PROVIDERS.has(s.provider)) continue;
      const a = matched.get(`${s.provider}\u0000${s.id}`);
      const running = a !== undefined;
      const inferred =
        a &&
        s.state === 'working' &&
        s.pendingTool !== null &&
        (s.lastActiveAt ? t - Date.parse(s.lastActiveAt) : 0) >= PROBABLY_WAITING_AFTER_MS &&
        (a.cpu ?? 0) < IDLE_CPU_PERCENT
          ? 'probably-waiting'
          : null;
      if (s.running !== running || s.inferred !== inferred) changed = true;
      s.running = running;
      s.inferred = inferred;
      s.process = a
        ? {
            pids: a.tree,
            cpu: a.cpu === null ? null : Math.round(a.cpu * 10) / 10,
            memory: a.rssBytes,
            command: a.argv.join(' ').slice(0, MAX_COMMAND_CHARS),
          }
        : null;
    }
    return changed;
  };
}
