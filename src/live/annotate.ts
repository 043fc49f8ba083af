/**
 * Filling in what transcripts cannot say: which sessions have a live process, what that process
 * costs, which "working" sessions are probably blocked on a permission prompt (prompts are not
 * written to transcripts, so without agent hooks a blocked call looks like a long one), and so which
 * questions can still be answered: every annotator ends by settling each session's state with the
 * waiting rule (`shownState` in `model/state.ts`), the one place that rule is applied to a document.
 */
import type { Annotator, SessionLiveFields } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { type SessionState, shownState } from '../model/state.js';
import { PLACE_LIST } from '../providers/places.js';
import type { Claim, Claimed } from './hook-state.js';
import { type AgentProcess, matchSessions, ProcessTable } from './processes.js';

/** The harnesses whose processes can be recognised and matched to sessions (their places say how). */
export const MATCHED_PROVIDERS: ReadonlySet<ProviderId> = new Set(
  PLACE_LIST.filter((p) => p.processes !== undefined).map((p) => p.id),
);

/** A pending call this quiet, with its process this idle, reads as probably waiting on the user. */
export const PROBABLY_WAITING_AFTER_MS = 30_000;
export const IDLE_CPU_PERCENT = 2;

/** The command line shown for a process, cut to a table cell's worth. */
const MAX_COMMAND_CHARS = 200;

/**
 * The state each session object carried when an annotator first saw it: what its files said. The
 * settled state is written over `state`, and a long-running cctop annotates the same objects again
 * on every refresh; without this, a question that lapsed while its process was out of sight could not
 * reopen when the process is seen again. A rebuilt session is a new object, read afresh.
 */
const fromFiles = new WeakMap<SessionLiveFields, { state: SessionState; detail: string | null }>();

/**
 * What the agents themselves say of a session (`live/hook-state.ts`: its hooks, its own registry),
 * which outranks what cctop infers; null when they say nothing.
 */
export type StateOverlay = (s: Claimed, nowMs: number) => Claim | null;

/**
 * Settle every session's state: the waiting rule applied to what its files said and what is now
 * known of its process, then overruled by what the agent itself says (`overlay`), with the source
 * noted; returns whether any state changed.
 */
export function settleStates(
  sessions: readonly SessionLiveFields[],
  nowMs: number,
  overlay: StateOverlay | null = null,
): boolean {
  let changed = false;
  for (const s of sessions) {
    let said = fromFiles.get(s);
    if (said === undefined) {
      said = { state: s.state, detail: s.stateDetail };
      fromFiles.set(s, said);
    }
    const inferred = shownState(
      { state: said.state, running: s.running, lastActiveAt: s.lastActiveAt },
      nowMs,
    );
    const claim = s.deleted
      ? null
      : (overlay?.(
          { provider: s.provider, id: s.id, running: s.running, inferred, pendingTool: s.pendingTool },
          nowMs,
        ) ?? null);
    const state = claim?.state ?? inferred;
    const detail = claim === null ? said.detail : claim.detail;
    const source = claim?.source ?? 'inferred';
    if (state !== s.state || detail !== s.stateDetail || source !== s.stateSource) {
      s.state = state;
      s.stateDetail = detail;
      s.stateSource = source;
      changed = true;
    }
    // The agent said what it does: nothing is left to guess.
    if (claim !== null && s.inferred !== null) {
      s.inferred = null;
      changed = true;
    }
  }
  return changed;
}

/** For a cctop that does not look at processes (the demo): states are settled, `running` stays null. */
export function withoutProcesses(
  now: () => number = Date.now,
  overlay: StateOverlay | null = null,
): Annotator {
  return (doc) => settleStates(doc.sessions, now(), overlay);
}

/**
 * An annotator for the session document. Returns whether anything a view shows as state changed
 * (running, inferred, the settled state), so a refresh can decide to announce it; CPU and memory
 * always move. Harnesses outside `MATCHED_PROVIDERS` keep `running: null`: cctop cannot look.
 */
export function processAnnotator(
  table = new ProcessTable(),
  now: () => number = Date.now,
  overlay: StateOverlay | null = null,
  /** The agents `cctop run` holds (their pids), to mark their sessions as run by cctop. */
  cctopRuns: () => readonly { id: string; pid: number }[] = () => [],
): Annotator {
  return (doc) => {
    const t = now();
    const agents = table.agents();
    // A table that cannot be read this time leaves the process fields as they were.
    if (agents === null) return settleStates(doc.sessions, t, overlay);
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
    const runs = matched.size === 0 ? [] : cctopRuns();
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
      const run = a ? runs.find((r) => r.pid === a.pid) : undefined;
      s.process = a
        ? {
            pids: a.tree,
            cpu: a.cpu === null ? null : Math.round(a.cpu * 10) / 10,
            memory: a.rssBytes,
            command: a.argv.join(' ').slice(0, MAX_COMMAND_CHARS),
            ...(run ? { cctopRun: run.id } : {}),
          }
        : null;
    }
    return settleStates(doc.sessions, t, overlay) || changed;
  };
}
