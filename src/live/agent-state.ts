/**
 * The agents' own word on their sessions' states, gathered for one cctop process: hook events (the
 * journal once, then the socket while the process runs) and the agents' registries of running
 * sessions, read at most every `REGISTRY_EVERY_MS`. It hands the annotator a `StateOverlay`, and a
 * long-running view a nudge when a state changed so it redraws at once rather than at its next tick.
 *
 * Not here: the rules that weigh a claim (`hook-state.ts`), the socket and journal (`hooks/`).
 */
import { EventEmitter } from 'node:events';
import type { HookFeed } from '../hooks/feed.js';
import { readJournal } from '../hooks/journal.js';
import type { HookEvent } from '../hooks/types.js';
import type { Annotator } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { readClaudeRegistry } from '../providers/claude/registry.js';
import type { Env } from '../providers/types.js';
import { ptyRuns } from '../runtime/pty-runs.js';
import { processAnnotator, type StateOverlay } from './annotate.js';
import { DrivenRuns } from './driven.js';
import { decide, HookStates, type RegistryClaim, registryIndex, registryKey } from './hook-state.js';

/** The least time between two reads of the agents' registries (a directory of small files each). */
export const REGISTRY_EVERY_MS = 2_000;

export interface AgentStateEvents {
  /** A hook event arrived that may change a session's state (or a hold ended), or a driven run moved: look again. */
  changed: [];
}

export class AgentStates extends EventEmitter<AgentStateEvents> {
  readonly hooks = new HookStates();
  /** The runs `cctop/drive` announces to this process (they come on the same socket as hooks). */
  readonly driven = new DrivenRuns();
  private feed: HookFeed | null = null;
  private started = false;
  private registry: ReturnType<typeof registryIndex> = new Map();
  private registryRead = -Infinity;
  private holdTimer: NodeJS.Timeout | null = null;
  /** Registry files that could not be read, as of the last read (for `cctop doctor`). */
  registryBad = 0;

  constructor(
    private readonly env: Env,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.driven.on('changed', () => this.emit('changed'));
  }

  /** For a one-shot command: what the journal holds now. */
  static fromJournal(env: Env, now: () => number = Date.now): AgentStates {
    const a = new AgentStates(env, now);
    for (const e of readJournal(env)) a.hooks.add(e);
    return a;
  }

  /**
   * For a long-running view: the journal, then every event as it arrives, until `stop()`. The feed
   * (sockets, a journal watch) is loaded here, not with this module: a one-shot command reads the
   * journal alone and should not pay for it.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    void import('../hooks/feed.js').then(({ HookFeed }) => {
      if (!this.started) return;
      this.feed = new HookFeed(this.env);
      this.feed.on('event', this.onEvent);
      this.feed.on('run', this.driven.handle);
      this.feed.start();
    });
  }

  stop(): void {
    this.started = false;
    this.feed?.off('event', this.onEvent);
    this.feed?.off('run', this.driven.handle);
    this.feed?.stop();
    this.feed = null;
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = null;
  }

  private readonly onEvent = (e: HookEvent): void => {
    if (!this.hooks.add(e)) return;
    this.emit('changed');
    this.armHold();
  };

  /** A permission request inside its hold shows once the hold ends, with no event to say so. */
  private armHold(): void {
    const next = this.hooks.nextChange(this.now());
    if (next === null) return;
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = setTimeout(
      () => {
        this.holdTimer = null;
        this.emit('changed');
        this.armHold();
      },
      Math.max(0, next - this.now()) + 20,
    );
    this.holdTimer.unref();
  }

  private registryNow(nowMs: number): ReturnType<typeof registryIndex> {
    if (nowMs - this.registryRead < REGISTRY_EVERY_MS) return this.registry;
    this.registryRead = nowMs;
    const read = readClaudeRegistry(this.env);
    this.registryBad = read.bad;
    const claims: RegistryClaim[] = [];
    for (const r of read.entries) {
      if (!r.alive || r.status === null || r.sessionId === null) continue;
      claims.push({
        provider: 'claude',
        sessionId: r.sessionId,
        state: r.status === 'busy' ? 'working' : r.status,
        detail: r.detail,
        atMs: r.updatedAtMs,
      });
    }
    this.registry = registryIndex(claims);
    return this.registry;
  }

  /** What the registries say of one session now, or null when they do not list it. */
  registryClaim(provider: ProviderId, id: string, nowMs: number): RegistryClaim | null {
    return this.registryNow(nowMs).get(registryKey(provider, id)) ?? null;
  }

  /** The overlay the annotator applies: hooks first, then the registries. */
  readonly overlay: StateOverlay = (s, nowMs) => decide(s, this.hooks, this.registryNow(nowMs), nowMs);
}

/** What a long-running view settles states with: the process table, and the agents' own word. */
export function watchedStates(env: Env): { agents: AgentStates; annotate: Annotator } {
  const agents = new AgentStates(env);
  return { agents, annotate: processAnnotator(undefined, undefined, agents.overlay, () => ptyRuns(env)) };
}
