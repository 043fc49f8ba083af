/**
 * One OpenCode run through `opencode serve` (HTTP and server-sent events), as a conversation the
 * runner drives (`conversation.ts`): the server prints where it listens on stdout; drive subscribes
 * to its `/event` stream, opens the session (`POST /session`, or the one resumed, or a fork of it),
 * sends the prompt (`POST /session/{id}/prompt_async`), reads the session's parts off the stream into
 * the same records `opencode run --format json` prints (`opencode-serve-parts.ts`), and turns
 * `permission.asked` into `approval_request` events, answered with `POST /permission/{id}/reply`.
 * Once the session goes idle the turn is over and the server, which never exits by itself, is
 * stopped (`RunnerHost.done`). The HTTP itself (where the server listens, its password, bounded
 * requests) is `opencode-serve-http.ts`'s.
 *
 * Why a second transport for OpenCode: `opencode run` has no channel back, so whatever OpenCode would
 * ask about is rejected headless. Runs that want no approvals keep `opencode run` (`opencode.ts`),
 * the one verified longest, which needs no port and exits by itself.
 *
 * Recorded from opencode-ai 1.18.33 in the lab: the routes are those of its `/doc` (OpenAPI);
 * `permission.asked` carries `{ id, sessionID, permission, patterns, metadata, always, tool }`; a
 * rejection with a `message` reaches the model as the refused call's error ("The user rejected
 * permission to use this specific tool call with the following feedback: …") and the turn goes on,
 * while one without a message ends the turn.
 *
 * known limit: the server's password is in its environment, which 1.18.33 may pass on to the
 * commands it runs; a command already allowed could read it and answer a later question itself.
 *
 * What it does not do: take mid-run input (`send`), change a tool's input on an allow, answer "always"
 * (every answer is for one call), or read subagents' parts (as `opencode run` does not; their
 * questions are asked, since the run waits on them).
 */
import type { Writable } from 'node:stream';
import { type JsonObject, obj, str } from '../../model/json.js';
import { MAX_PENDING_APPROVALS, usableId } from '../bounds.js';
import type { Breakdown, Conversation, RunnerHost } from '../conversation.js';
import { DriveError } from '../errors.js';
import type { Decision, Event } from '../events.js';
import { LineReader } from '../lines.js';
import { type Dialect, enforceBounds, StreamParser, type Terminal } from '../parser.js';
import { type Plan, withSystem } from '../request.js';
import { events, listeningOn, post, Refused, type Server } from './opencode-serve-http.js';
import { PartRecords } from './opencode-serve-parts.js';

/**
 * How long `opencode serve` has, from its start, to say where it listens, open the session and take
 * the prompt. 1.18.33 listens after 4 to 19 seconds in the lab (two cores, a fresh database, load
 * near 14 while other tests ran); an executable that is not an OpenCode with a server (a wrong `bin`)
 * would otherwise hold the run until its own timeout, or for ever.
 */
export const OPENCODE_START_MS = 60_000;

/** Subagent sessions of this run whose questions are asked too; a run spawning more is refused for the rest. */
const MAX_CHILD_SESSIONS = 64;

/** What the model is told when a call is denied without a reason (OpenCode ends the turn on a bare rejection). */
export const DENIED_WITHOUT_REASON = 'The caller denied this call and gave no reason.';

/** What the prompt request carries besides the words: the model, the agent, the variant. */
export function promptBody(plan: Plan): JsonObject {
  const body: JsonObject = { parts: [{ type: 'text', text: withSystem(plan) }] };
  if (plan.model !== null) {
    const slash = plan.model.indexOf('/');
    body.model = { providerID: plan.model.slice(0, slash), modelID: plan.model.slice(slash + 1) };
  }
  if (plan.permission === 'plan') body.agent = 'plan';
  if (plan.effort !== null) body.variant = plan.effort;
  return body;
}

/** Where the run stands; the start-up deadline covers everything before `running`. */
type Phase = 'starting' | 'connecting' | 'opening' | 'running' | 'settled' | 'over';

export class OpenCodeServe implements Conversation {
  private readonly parser: StreamParser;
  /** Ends every request of the run's: the event stream and any request in flight. */
  private readonly requests = new AbortController();
  private phase: Phase = 'starting';
  /** The server, once it said where it listens. */
  private server: Server | null = null;
  private session: string | null = null;
  /** Subagent sessions started from this run's session (their questions are this run's too). */
  private readonly children = new Set<string>();
  /** Permission requests waiting for the caller. */
  private readonly waiting = new Set<string>();
  private readonly parts = new PartRecords();
  /** The session went busy after the prompt: an idle after that ends the turn. */
  private busy = false;
  private idle = false;
  private timer: NodeJS.Timeout | null = null;
  breakdown: Breakdown | null = null;

  /** `dialect`: `opencode run`'s reader (`opencode.ts`), which reads the records made here. */
  constructor(
    private readonly plan: Plan,
    private readonly host: RunnerHost,
    dialect: Dialect,
    private readonly password: string,
    private readonly startMs = OPENCODE_START_MS,
  ) {
    this.parser = new StreamParser(dialect, 'stream');
  }

  begin(stdin: Writable): void {
    // Nothing goes on stdin: the server is spoken to over HTTP.
    stdin.end();
    this.timer = setTimeout(() => this.overdue(), this.startMs);
  }

  read(line: string): Event[] {
    if (this.phase !== 'starting') return [];
    const base = listeningOn(line);
    if (base === null) return [];
    this.server = { base, password: this.password, signal: this.requests.signal };
    this.phase = 'connecting';
    void this.subscribe();
    return [];
  }

  answer(id: string, decision: Decision): boolean {
    if (!this.waiting.has(id)) return false;
    if (decision.behavior === 'allow' && decision.updatedInput !== undefined) {
      throw new DriveError({
        kind: 'unsupported',
        agent: 'opencode',
        what: "changing a tool's input when allowing it (opencode serve's answer is once, always or reject)",
      });
    }
    this.waiting.delete(id);
    const reason = decision.behavior === 'deny' ? decision.reason || DENIED_WITHOUT_REASON : null;
    this.reply(id, reason);
    return true;
  }

  send(_text: string): void {
    throw new DriveError({
      kind: 'unsupported',
      agent: 'opencode',
      what: 'mid-run input (drive sends OpenCode one prompt a run)',
    });
  }

  get open(): boolean {
    return this.phase === 'connecting' || this.phase === 'opening' || this.phase === 'running';
  }

  close(): void {
    // Nothing to tell the server: the runner stops it, and its turn with it.
    this.end();
  }

  abandon(): void {
    this.end();
  }

  terminal(): Terminal {
    return this.parser.terminal();
  }

  get sawTerminal(): boolean {
    return this.idle && this.parser.sawTerminal;
  }

  /** The turn settled or the run is over: nothing more is read or sent (read afresh after an await). */
  private get ended(): boolean {
    return this.phase === 'over' || this.phase === 'settled';
  }

  private end(): void {
    this.stopTimer();
    this.phase = 'over';
    this.waiting.clear();
    this.requests.abort();
  }

  private fail(breakdown: Breakdown): void {
    if (this.breakdown !== null || this.phase === 'over' || this.phase === 'settled') return;
    this.breakdown = breakdown;
    this.stopTimer();
    this.host.broke();
  }

  private overdue(): void {
    this.timer = null;
    if (this.phase === 'running' || this.phase === 'settled' || this.phase === 'over') return;
    const what =
      this.phase === 'starting'
        ? 'did not say where it listens'
        : 'did not open the session and take the prompt';
    this.fail({
      kind: 'protocol',
      message: `opencode serve ${what} within ${Math.round(this.startMs / 1000)} s: is this an OpenCode with a server (opencode-ai 1.18 or later)?`,
    });
  }

  private stopTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** A request to the server (`opencode-serve-http.ts`), once it said where it listens. */
  private post(path: string, body: unknown): Promise<unknown> {
    if (this.server === null)
      return Promise.reject(new Refused(`POST ${path}: the server never said where it listens`));
    return post(this.server, path, body);
  }

  /** What went wrong talking to the server, unless the run is over (then nothing is wrong). */
  private broken(e: unknown): void {
    if (this.phase === 'over' || this.phase === 'settled') return;
    // `fetch` says only "fetch failed"; what failed (a refused or reset connection) is its cause.
    const cause = e instanceof Error && e.cause instanceof Error ? ` (${e.cause.message})` : '';
    const message = e instanceof Error ? `${e.message}${cause}` : String(e);
    this.fail({ kind: 'protocol', message: `opencode serve: ${message}` });
  }

  /** Subscribe to the server's events; the session is opened once the stream says it is connected. */
  private async subscribe(): Promise<void> {
    try {
      if (this.server === null) return;
      const reader = await events(this.server);
      const lines = new LineReader();
      for (;;) {
        // Back-pressure: the next chunk is read only once the caller's queue has room.
        await this.host.room();
        if (this.ended) return;
        const next = await reader.next();
        if (next.done === true) break;
        for (const line of lines.feed(next.value)) this.line(line);
      }
      if (!this.ended) throw new Refused('the event stream ended before the turn did');
    } catch (e) {
      this.broken(e);
    }
  }

  /** One line of the event stream: only `data:` lines carry events (1.18.33 sends each on one line). */
  private line(line: string): void {
    if (!line.startsWith('data:')) return;
    let event: JsonObject | null = null;
    try {
      event = obj(JSON.parse(line.slice(5)));
    } catch {
      // A line cut at its bound, or not JSON: not an event, and nothing this run can act on.
      return;
    }
    if (event !== null) this.event(str(event.type), obj(event.properties));
  }

  private event(type: string | null, p: JsonObject | null): void {
    const sid = str(p?.sessionID);
    switch (type) {
      case 'server.connected':
        if (this.phase === 'connecting') void this.openSession();
        return;
      case 'session.created': {
        const info = obj(p?.info);
        const parent = str(info?.parentID);
        const id = str(info?.id);
        const ours = parent !== null && (parent === this.session || this.children.has(parent));
        if (ours && id !== null && this.children.size < MAX_CHILD_SESSIONS) this.children.add(id);
        return;
      }
      case 'message.part.updated': {
        const part = obj(p?.part);
        if (part !== null && str(part.sessionID) === this.session) this.part(part);
        return;
      }
      case 'session.error':
        if (sid === this.session && this.session !== null)
          this.push({ type: 'error', sessionID: sid, error: p?.error ?? null });
        return;
      case 'session.status':
        if (sid === this.session && str(obj(p?.status)?.type) === 'busy') this.busy = true;
        return;
      case 'session.idle':
        if (sid === this.session && this.busy) this.settle();
        return;
      case 'permission.asked':
        if (sid !== null && (sid === this.session || this.children.has(sid))) this.asked(p);
        return;
      case 'permission.replied': {
        // Answered elsewhere (another client of the same server): nothing waits for the caller.
        const id = str(p?.requestID);
        if (id !== null) this.waiting.delete(id);
        return;
      }
      default:
        return;
    }
  }

  private part(part: JsonObject): void {
    const record = this.parts.take(part);
    if (record !== null) this.push(record);
  }

  /** A record read as `opencode run`'s line would be, its events to the caller. */
  private push(record: JsonObject): void {
    if (this.phase === 'over') return;
    const events = this.parser.push(JSON.stringify(record));
    if (events.length > 0) this.host.emit(events);
  }

  private async openSession(): Promise<void> {
    this.phase = 'opening';
    try {
      const s = this.plan.session;
      const opened =
        s.kind !== 'resume'
          ? await this.post('/session', {})
          : s.fork
            ? await this.post(`/session/${encodeURIComponent(s.id)}/fork`, {})
            : { id: s.id };
      const id = str(obj(opened)?.id);
      if (id === null || !usableId(id)) throw new Refused('the session it opened has no usable id');
      this.session = id;
      await this.post(`/session/${encodeURIComponent(id)}/prompt_async`, promptBody(this.plan));
      if (this.ended) return;
      this.phase = 'running';
      this.stopTimer();
    } catch (e) {
      this.broken(e);
    }
  }

  private asked(p: JsonObject | null): void {
    const id = str(p?.id);
    if (id === null || !usableId(id) || this.waiting.has(id)) return;
    // `bypass` asks nobody: what OpenCode asks about is approved, as `opencode run --auto` does.
    if (this.plan.permission === 'bypass') {
      this.reply(id, null);
      return;
    }
    if (this.waiting.size >= MAX_PENDING_APPROVALS) {
      this.reply(id, `More than ${MAX_PENDING_APPROVALS} questions at once: this one was refused.`);
      return;
    }
    this.waiting.add(id);
    const metadata = obj(p?.metadata);
    const input =
      metadata !== null && Object.keys(metadata).length > 0 ? metadata : { patterns: p?.patterns ?? null };
    const tool = str(p?.permission) ?? 'tool';
    this.host.emit([enforceBounds({ kind: 'approval_request', id, tool, input })]);
  }

  /** Allow once (no reason), or reject with the words the model gets. */
  private reply(id: string, reason: string | null): void {
    const body = reason === null ? { reply: 'once' } : { reply: 'reject', message: reason };
    this.post(`/permission/${encodeURIComponent(id)}/reply`, body).catch((e: unknown) => this.broken(e));
  }

  /** The session went idle after the prompt: the turn is over, and the server goes. */
  private settle(): void {
    if (this.phase !== 'running' && this.phase !== 'opening') return;
    this.idle = true;
    this.waiting.clear();
    this.phase = 'settled';
    this.stopTimer();
    this.requests.abort();
    this.host.done();
  }
}
