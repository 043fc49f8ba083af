/**
 * One remote session in depth, for its page: its report and its conversation, fetched over ssh from
 * the machine it runs on when the page asks (`hosts/fetch.ts` runs `cctop report` / `cctop chat`
 * there and reads the answer as hostile input). Nothing is fetched ahead: a dashboard of a thousand
 * remote rows costs no round trip until someone opens one.
 *
 * Bounded on every side, since each ask is an ssh round trip and a process on another machine: one
 * ssh at a time per host and session (asks in a row wait their turn; the same ask twice shares one
 * round trip), a few asks waiting per session and a few sessions at once (past that the page is told
 * to try again), each round trip under the hosts' wait (`CCTOP_HOST_TIMEOUT`), and an answer kept
 * while the session's row says nothing moved, so a page that reloads does not ask again.
 *
 * Not here: the routes (`hosts-routes.ts`), or polling the hosts' rows (`hosts.ts`).
 */
import { createHash } from 'node:crypto';
import {
  explain,
  type Fetched,
  fetchConversation,
  fetchProblem,
  fetchReport,
  type HostSpec,
  hostWaitMs,
} from '../../hosts/index.js';
import type { Conversation } from '../../model/conversation.js';
import type { SessionDoc } from '../../model/document.js';
import type { Env } from '../../providers/types.js';
import type { SessionReport } from '../../report/types.js';
import type { ServedHosts } from './hosts.js';
import { IDLE_TIMEOUT_MS } from './limits.js';

/**
 * Asks waiting on one remote session: its report, the newest window of its conversation and an older
 * one being paged to, with one to spare. A page asks for two at a time; more means a page asking in
 * a loop, or many pages, and each waits for the one before it over ssh.
 */
export const MAX_FETCHES_PER_SESSION = 4;

/**
 * Remote sessions being fetched at once, over every host. Each is one ssh and one cctop on the other
 * machine; a handful covers several people opening sessions at the same moment without letting a
 * page (or a script) start a process per id on someone's devbox.
 */
export const MAX_SESSIONS_FETCHING = 8;

/**
 * Answers kept for sessions whose rows have not moved since: a report is tens of KiB, a
 * conversation window up to a few MiB (200 turns under `MAX_TEXT_CHARS`), so this holds a few pages'
 * worth and well under a hundred MiB at the very worst.
 */
export const MAX_REMOTE_ANSWERS_KEPT = 24;

/**
 * The longest a page's ask waits, in line and over ssh: the hosts' wait (`CCTOP_HOST_TIMEOUT`), but
 * under the server's idle-socket timeout, so the page is told "no answer" rather than losing its
 * connection.
 */
export const ASK_WAIT_MS = IDLE_TIMEOUT_MS - 5_000;

/** A conversation window asked for: before a turn, of a subagent. */
export interface WindowAsk {
  before: number | null;
  agent: string | null;
}

/** What an ask comes to. */
export type Fetch<T> =
  | { kind: 'read'; value: T }
  /** The host could not be asked or could not answer: why, with the fix. */
  | { kind: 'failed'; error: string }
  /** Too many asks already: try again in a moment. */
  | { kind: 'busy' };

/** What the remote reading needs: `hosts/fetch.ts`, or a stand-in under a test. */
export interface Fetchers {
  report(host: HostSpec, id: string, o: FetchOptions): Promise<Fetched<SessionReport>>;
  conversation(
    host: HostSpec,
    id: string,
    q: { before?: number; agent?: string },
    o: FetchOptions,
  ): Promise<Fetched<Conversation>>;
}
interface FetchOptions {
  env: Env;
  /** `--plan`, as this server was given it, so a remote report prices as its row does. */
  args?: readonly string[];
  waitMs?: number;
  signal?: AbortSignal;
}

const FROM_HOSTS: Fetchers = {
  report: (host, id, o) => fetchReport(host, id, o),
  conversation: (host, id, q, o) => fetchConversation(host, id, q, o),
};

/** What of a row says its transcript moved, so an answer kept for it is out of date. */
const moved = (s: SessionDoc): string =>
  JSON.stringify([s.lastActiveAt, s.state, s.requests, s.tools.calls, s.title, s.compactions]);

interface Lane {
  /** The last ask in line: the next one starts when it settles. */
  tail: Promise<unknown>;
  /** The asks in line or running, by what they ask: the same ask again joins. */
  asks: Map<string, Promise<Fetch<unknown>>>;
}

export class RemoteFetches {
  private readonly lanes = new Map<string, Lane>();
  private readonly kept = new Map<string, { moved: string; value: unknown }>();
  private readonly abort = new AbortController();
  /** `--plan X`, when the server was given one. */
  private readonly args: readonly string[];
  private readonly waitMs: number;

  constructor(
    readonly hosts: ServedHosts,
    private readonly env: Env,
    /** The flags the hosts' polls pass on (`--plan`, `--provider`, …); only `--plan` goes to report and chat. */
    passed: readonly string[] = [],
    private readonly from: Fetchers = FROM_HOSTS,
  ) {
    const plan = passed.indexOf('--plan');
    this.args = plan >= 0 && passed[plan + 1] !== undefined ? ['--plan', passed[plan + 1]!] : [];
    this.waitMs = Math.min(hostWaitMs(env), ASK_WAIT_MS);
  }

  /**
   * The stamp of a conversation window of `s` as its row stands: the page sends it back, and the
   * same stamp means nothing moved (no round trip).
   */
  stamp(host: HostSpec, s: SessionDoc, q: WindowAsk): string {
    return createHash('sha256')
      .update(JSON.stringify([host.name, s.provider, s.id, moved(s), q.before, q.agent]))
      .digest('hex')
      .slice(0, 32);
  }

  report(host: HostSpec, s: SessionDoc): Promise<Fetch<SessionReport>> {
    return this.ask(host, s, 'report', (o) => this.from.report(host, s.id, o));
  }

  conversation(host: HostSpec, s: SessionDoc, q: WindowAsk): Promise<Fetch<Conversation>> {
    const query = {
      ...(q.before !== null ? { before: q.before } : {}),
      ...(q.agent !== null ? { agent: q.agent } : {}),
    };
    return this.ask(host, s, `chat\u0000${q.before ?? ''}\u0000${q.agent ?? ''}`, (o) =>
      this.from.conversation(host, s.id, query, o),
    );
  }

  /** Stop every round trip under way (the server is closing). */
  stop(): void {
    this.abort.abort();
  }

  private ask<T>(
    host: HostSpec,
    s: SessionDoc,
    what: string,
    run: (o: FetchOptions) => Promise<Fetched<T>>,
  ): Promise<Fetch<T>> {
    const laneKey = `${host.name}\u0000${s.provider}\u0000${s.id}`;
    const key = `${laneKey}\u0000${what}`;
    const sig = moved(s);
    const kept = this.kept.get(key);
    if (kept !== undefined && kept.moved === sig)
      return Promise.resolve({ kind: 'read', value: kept.value as T });
    let lane = this.lanes.get(laneKey);
    const joined = lane?.asks.get(key);
    if (joined !== undefined) return joined as Promise<Fetch<T>>;
    if (lane === undefined && this.lanes.size >= MAX_SESSIONS_FETCHING)
      return Promise.resolve({ kind: 'busy' });
    if (lane !== undefined && lane.asks.size >= MAX_FETCHES_PER_SESSION)
      return Promise.resolve({ kind: 'busy' });
    if (lane === undefined) {
      lane = { tail: Promise.resolve(), asks: new Map() };
      this.lanes.set(laneKey, lane);
    }
    const l = lane;
    const asked = Date.now();
    const p: Promise<Fetch<T>> = l.tail.then(async () => {
      // The wait counts from the ask: time in line behind another ask of this session is part of it.
      const left = this.waitMs - (Date.now() - asked);
      if (left <= 0)
        return { kind: 'failed', error: explain(host.name, { kind: 'timeout', ms: this.waitMs }) };
      const r = await run({ env: this.env, args: this.args, waitMs: left, signal: this.abort.signal });
      if (r.kind === 'failed') return { kind: 'failed', error: fetchProblem(host.name, r) };
      this.keep(key, sig, r.value);
      return { kind: 'read', value: r.value };
    });
    l.asks.set(key, p);
    l.tail = p.catch(() => null);
    void l.tail.then(() => {
      l.asks.delete(key);
      if (l.asks.size === 0 && this.lanes.get(laneKey) === l) this.lanes.delete(laneKey);
    });
    return p;
  }

  private keep(key: string, moved: string, value: unknown): void {
    this.kept.delete(key);
    this.kept.set(key, { moved, value });
    while (this.kept.size > MAX_REMOTE_ANSWERS_KEPT) {
      const oldest = this.kept.keys().next().value;
      if (oldest === undefined) break;
      this.kept.delete(oldest);
    }
  }
}
