/**
 * Other machines for a long-running view (the live table): each host polled on its own schedule,
 * the next poll `everyMs` after the last one ended, so a slow or dead host delays only itself. A host
 * that stops answering keeps the rows of its last answer, with when that was and why the polls since
 * failed; a view greys them rather than dropping them, since a network blip is not the end of a
 * session.
 *
 * Not here: this machine's sessions (`live/engine.ts`), or drawing (the views merge with `merge.ts`).
 */
import { EventEmitter } from 'node:events';
import type { HostStatus, SessionDoc } from '../model/document.js';
import type { Env } from '../providers/types.js';
import { explain } from './failure.js';
import type { HostView } from './merge.js';
import { readHost } from './read.js';
import type { HostSpec } from './target.js';

/** How often each host is asked: a round trip over a warm master connection is a few tens of ms of
 * CPU on each side, so four a minute per host costs little and keeps a remote row under 20 s old. */
export const HOST_POLL_MS = 15_000;

/** What is known of one host. */
export type HostState =
  /** Not answered yet (the first poll is on its way). */
  | { kind: 'waiting' }
  /** Its last poll answered: these are its sessions now. */
  | { kind: 'answered'; sessions: SessionDoc[]; at: number }
  /** Its last poll failed: the rows of its last answer (none if it never answered), and why. */
  | { kind: 'silent'; sessions: SessionDoc[]; answeredAt: number | null; error: string };

export interface PollerOptions {
  hosts: readonly HostSpec[];
  env: Env;
  /** Passed on to each remote cctop after `--json` (`--plan`, `--provider`). */
  args?: readonly string[];
  everyMs?: number;
  /** The wait on each poll (default `hostWaitMs`). */
  waitMs?: number;
  now?: () => number;
}

interface Polled {
  host: HostSpec;
  state: HostState;
  timer: NodeJS.Timeout | null;
}

export class HostPoller extends EventEmitter<{ changed: [] }> {
  private readonly polled: Polled[];
  private readonly abort = new AbortController();
  private stopped = true;

  constructor(private readonly o: PollerOptions) {
    super();
    this.polled = o.hosts.map((host) => ({ host, state: { kind: 'waiting' }, timer: null }));
  }

  /** The hosts polled, as given (a view fetching one remote session's detail needs each one's cctop path). */
  get hosts(): readonly HostSpec[] {
    return this.o.hosts;
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  /** Poll every host now, then each again `everyMs` after its poll ends, until `stop()`. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    for (const p of this.polled) void this.poll(p);
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
    for (const p of this.polled) if (p.timer) clearTimeout(p.timer);
  }

  private async poll(p: Polled): Promise<void> {
    const r = await readHost(p.host, {
      env: this.o.env,
      ...(this.o.args ? { args: this.o.args } : {}),
      ...(this.o.waitMs !== undefined ? { waitMs: this.o.waitMs } : {}),
      signal: this.abort.signal,
    });
    if (this.stopped) return;
    const before = p.state;
    switch (r.kind) {
      case 'read':
        p.state = { kind: 'answered', sessions: r.sessions, at: this.now() };
        break;
      case 'failed':
        p.state = {
          kind: 'silent',
          sessions: before.kind === 'waiting' ? [] : before.sessions,
          answeredAt:
            before.kind === 'answered' ? before.at : before.kind === 'silent' ? before.answeredAt : null,
          error: explain(p.host.name, r.failure),
        };
        break;
    }
    this.emit('changed');
    p.timer = setTimeout(() => void this.poll(p), this.o.everyMs ?? HOST_POLL_MS);
    p.timer.unref();
  }

  /** Each host's rows and status, in the order the hosts were given. */
  views(): HostView[] {
    return this.polled.map(({ host, state }) => ({ status: statusOf(host, state), sessions: rowsOf(state) }));
  }
}

const rowsOf = (s: HostState): SessionDoc[] => (s.kind === 'waiting' ? [] : s.sessions);

function statusOf(host: HostSpec, s: HostState): HostStatus {
  const base = { host: host.name, sessions: rowsOf(s).length };
  switch (s.kind) {
    case 'waiting':
      return { ...base, ok: false, error: null, answeredAt: null };
    case 'answered':
      return { ...base, ok: true, error: null, answeredAt: new Date(s.at).toISOString() };
    case 'silent':
      return {
        ...base,
        ok: false,
        error: s.error,
        answeredAt: s.answeredAt === null ? null : new Date(s.answeredAt).toISOString(),
      };
  }
}
