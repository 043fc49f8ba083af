/**
 * A session's state as the agent itself reports it, which outranks what cctop infers from files.
 *
 * Two sources, best first: the agent's hooks (`cctop hook` lines, from the journal and from the
 * running cctop's socket) and the agent's own registry of running sessions (Claude Code's
 * `~/.claude/sessions`). Each gives a `Claim`; `decide` weighs a claim against the inferred state.
 *
 * The rules, from the issue that brought hooks in:
 * - working from a submitted prompt or a tool event until the turn ends; waiting on a permission
 *   request or a notification that the agent needs its user; idle when the turn or the session
 *   ends; error when the turn failed;
 * - a claim holds while the session's process runs; when none does, or cctop cannot look, it lapses
 *   after `WORKING_TTL_MS` with no newer event, the same lapse as a working file;
 * - a permission request answered within `PERMISSION_HOLD_MS` (auto modes settle them in
 *   milliseconds) never shows as waiting: until then the session keeps the state it had.
 *
 * Not here: reading the journal or the socket (`hooks/`), what each agent's events mean (its
 * provider's `hooks.ts`), or the waiting rule for inferred states (`model/state.ts`).
 */
import { agentHooks } from '../hooks/agents.js';
import { type HookEvent, type HookMeaning, providerOfAgent } from '../hooks/types.js';
import type { ProviderId } from '../model/facts.js';
import {
  isAskUserTool,
  type SessionState,
  type StateSource,
  UNRUN_WORKING_GRACE_MS,
  WORKING_TTL_MS,
} from '../model/state.js';

/** A permission request answered sooner than this is never shown as waiting (see the module comment). */
export const PERMISSION_HOLD_MS = 1_500;

/** Hook events kept per session: the evidence `cctop explain` prints, and what a claim is read from. */
export const MAX_EVENTS_PER_SESSION = 24;

/** Sessions whose hook events are kept; past it the one heard from longest ago is forgotten. */
export const MAX_HOOK_SESSIONS = 4_096;

/** What a source says a session's state is, and why. */
export interface Claim {
  state: SessionState;
  source: Exclude<StateSource, 'inferred'>;
  /** What is asked, the error, or the event that decided it. */
  detail: string | null;
  /** When the deciding event happened (ms). */
  atMs: number;
}

/** One entry of an agent's own registry, as its provider read it. */
export interface RegistryClaim {
  provider: ProviderId;
  sessionId: string;
  state: SessionState;
  detail: string | null;
  atMs: number | null;
}

/** How sessions are keyed here and in the registries' index. */
export const registryKey = (provider: ProviderId, id: string): string => `${provider}\u0000${id}`;
const keyOf = registryKey;

/** The state each meaning gives; `none` gives nothing. */
function stateOfMeaning(e: HookEvent): SessionState | null {
  const meaning = meaningOf(e);
  switch (meaning) {
    case 'working':
      return 'working';
    case 'waiting':
      return 'waiting';
    case 'error':
      return 'error';
    case 'idle':
    case 'started':
    case 'ended':
      return 'idle';
    case 'none':
      return null;
  }
}

/** What one event says, as its agent's provider reads it. */
export function meaningOf(e: HookEvent): HookMeaning {
  return agentHooks(e.agent).meaning(e);
}

/** What a waiting or error event says is asked or went wrong. */
function detailOf(e: HookEvent, state: SessionState): string {
  if (state === 'waiting') {
    const what = e.tool === null ? [e.notification] : [e.tool, e.input];
    const said = what.filter((x): x is string => x !== null && x !== '');
    return said.length > 0 ? said.join(': ') : e.event;
  }
  return e.tool !== null && state === 'working' ? `${e.event} ${e.tool}` : e.event;
}

/**
 * The event a wait is best told by: of the events since the wait began (newest first, back to the
 * last one that was not a wait), the one that names the tool asked for. Claude Code follows a
 * permission request with a notification that names no tool six seconds later; the request says
 * more (`Bash: rm -rf build` rather than `permission_prompt`).
 */
function waitTeller(trail: readonly HookEvent[], newest: HookEvent): HookEvent {
  for (let i = trail.length - 1; i >= 0; i--) {
    const e = trail[i]!;
    const said = stateOfMeaning(e);
    if (said !== null && said !== 'waiting') break;
    if (said === 'waiting' && e.tool !== null) return e;
  }
  return newest;
}

/** Every session's recent hook events, as they arrive. */
export class HookStates {
  private readonly trails = new Map<string, HookEvent[]>();

  /** Keep one event; returns whether it could change a session's state. */
  add(e: HookEvent): boolean {
    if (e.session === null) return false;
    const key = keyOf(providerOfAgent(e.agent), e.session);
    let trail = this.trails.get(key);
    if (trail === undefined) {
      trail = [];
      if (this.trails.size >= MAX_HOOK_SESSIONS) this.forgetOldest();
    } else this.trails.delete(key); // re-inserted below: the map stays in order of last heard
    this.trails.set(key, trail);
    // Hook runs finish in any order: keep the events in the order they happened (`at`).
    let at = trail.length;
    while (at > 0 && trail[at - 1]!.at > e.at) at--;
    trail.splice(at, 0, e);
    if (trail.length > MAX_EVENTS_PER_SESSION) trail.splice(0, trail.length - MAX_EVENTS_PER_SESSION);
    return stateOfMeaning(e) !== null;
  }

  private forgetOldest(): void {
    const first = this.trails.keys().next();
    if (!first.done) this.trails.delete(first.value);
  }

  /** The events kept for one session, oldest first. */
  trail(provider: ProviderId, id: string): readonly HookEvent[] {
    return this.trails.get(keyOf(provider, id)) ?? [];
  }

  /** How many sessions the hooks have told about. */
  get size(): number {
    return this.trails.size;
  }

  /**
   * What the hooks say the session's state is at `nowMs`, or null when they say nothing (no event,
   * or the claim lapsed: see the module comment).
   */
  claim(provider: ProviderId, id: string, running: boolean | null, nowMs: number): Claim | null {
    const trail = this.trails.get(keyOf(provider, id));
    if (trail === undefined) return null;
    let newest: HookEvent | null = null;
    let state: SessionState | null = null;
    for (let i = trail.length - 1; i >= 0 && state === null; i--) {
      const e = trail[i]!;
      const said = stateOfMeaning(e);
      if (said === null) continue;
      newest ??= e;
      // A request still inside its hold shows the state before it (see the module comment).
      if (said === 'waiting' && nowMs - e.at < PERMISSION_HOLD_MS) continue;
      state = said;
    }
    if (newest === null) return null;
    // Only held requests: the session was mid-turn (an agent asks for permission only while working).
    state ??= 'working';
    if (running !== true && nowMs - newest.at > WORKING_TTL_MS) return null;
    // A turn whose process cctop looked for and did not find was cut off (a timeout, Ctrl-C): the
    // hooks' last word is not news past the grace, as for a transcript (`shownState`).
    if (state === 'working' && running === false && nowMs - newest.at > UNRUN_WORKING_GRACE_MS) return null;
    const teller = state === 'waiting' ? waitTeller(trail, newest) : newest;
    return { state, source: 'hook', detail: detailOf(teller, state), atMs: newest.at };
  }

  /** The soonest moment a claim changes with time alone (a hold ending), so a view can look again. */
  nextChange(nowMs: number): number | null {
    let soonest: number | null = null;
    for (const trail of this.trails.values()) {
      const last = trail.at(-1);
      if (last === undefined || stateOfMeaning(last) !== 'waiting') continue;
      const ends = last.at + PERMISSION_HOLD_MS;
      if (ends > nowMs && (soonest === null || ends < soonest)) soonest = ends;
    }
    return soonest;
  }
}

/** What the overlay reads of a session. */
export interface Claimed {
  provider: ProviderId;
  id: string;
  running: boolean | null;
  /** The state inferred from the files and the process table (the waiting rule applied). */
  inferred: SessionState;
  pendingTool: string | null;
}

/** The registry's claims, keyed for lookup. */
export function registryIndex(entries: readonly RegistryClaim[]): Map<string, RegistryClaim> {
  const out = new Map<string, RegistryClaim>();
  for (const e of entries) out.set(keyOf(e.provider, e.sessionId), e);
  return out;
}

/**
 * The state to show and where it came from: the hooks' claim, else the registry's, else the
 * inferred one. One refinement: the hooks see a tool start, not that the tool is a question to the
 * user; when the files say the session waits on exactly the ask tool the hooks saw start, it waits.
 */
export function decide(
  s: Claimed,
  hooks: HookStates | null,
  registry: ReadonlyMap<string, RegistryClaim> | null,
  nowMs: number,
): Claim | null {
  const hook = hooks?.claim(s.provider, s.id, s.running, nowMs) ?? null;
  if (hook !== null) {
    const asks =
      hook.state === 'working' &&
      s.inferred === 'waiting' &&
      s.pendingTool !== null &&
      isAskUserTool(s.pendingTool) &&
      hook.detail?.endsWith(` ${s.pendingTool}`) === true;
    return asks ? { ...hook, state: 'waiting', detail: s.pendingTool } : hook;
  }
  const reg = registry?.get(keyOf(s.provider, s.id));
  if (reg === undefined) return null;
  return { state: reg.state, source: 'registry', detail: reg.detail, atMs: reg.atMs ?? nowMs };
}
