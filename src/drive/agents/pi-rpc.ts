/**
 * One Pi run through `pi --mode rpc` (JSON lines both ways), as a conversation the runner drives
 * (`conversation.ts`), for a run that takes input mid-run: the session asked for (`get_state`, whose
 * `sessionId` stands in for the session header `--mode json` prints first), the prompt, and each
 * `send` as a `steer` command. Pi's events on stdout are the same records `--mode json` prints, read
 * by the same dialect; the replies to commands and extensions' dialogs are this module's. Once
 * `agent_end` arrives the turn is over: stdin is ended and Pi exits (0.73.1 does so at once).
 *
 * Recorded from @mariozechner/pi-coding-agent 0.73.1 in the lab: a steer sent while a model call is
 * in flight is queued (`queue_update`, then `{"type":"response","command":"steer","success":true}`)
 * and delivered after the call's tools ran, before the next model call, as a user message; a steer
 * that arrives when the last call needed no tools makes Pi call the model once more.
 *
 * What it does not do: answer an extension's dialog (each is dismissed at once, `cancelled`, so Pi
 * never waits on one), or keep Pi for a second prompt.
 */
import type { Writable } from 'node:stream';
import { obj, str } from '../../model/json.js';
import { headBytes, usableId } from '../bounds.js';
import type { Breakdown, Conversation, ConversationHost } from '../conversation.js';
import { DriveError } from '../errors.js';
import type { Decision, Event } from '../events.js';
import { type Dialect, enforceBounds, StreamParser, type Terminal } from '../parser.js';

/** How much of Pi's word on a refused command the run quotes: it came from the agent. */
const SHOWN_ERROR_BYTES = 300;

/** The extensions' dialogs that block until answered (0.73.1); the others expect no answer. */
const DIALOGS = new Set(['select', 'confirm', 'input', 'editor']);

type Phase = 'starting' | 'running' | 'settled' | 'over';

export class PiRpc implements Conversation {
  private readonly parser: StreamParser;
  private stdin: Writable | null = null;
  private phase: Phase = 'starting';
  private steers = 0;
  breakdown: Breakdown | null = null;

  /** `dialect`: Pi's `--mode json` reader (`pi.ts`), which reads the same events. */
  constructor(
    private readonly prompt: string,
    private readonly host: ConversationHost,
    dialect: Dialect,
    /** Whether a refusal's words say Pi has no login (the spec's `authFailure`). */
    private readonly authFailure: (text: string) => boolean,
  ) {
    this.parser = new StreamParser(dialect, 'stream');
  }

  begin(stdin: Writable): void {
    this.stdin = stdin;
    stdin.on('error', () => {
      // EPIPE once Pi has exited: the run is ending, and its exit says how.
    });
    this.phase = 'running';
    this.write({ id: 'state', type: 'get_state' });
    this.write({ id: 'prompt', type: 'prompt', message: this.prompt });
  }

  read(line: string): Event[] {
    // Pi writes `type` first on its events and `id` first on replies to commands that carried one,
    // so a line is told by its head without parsing a long `message_update` twice.
    const head = line.trimStart();
    if (head.startsWith('{"id":') || head.startsWith('{"type":"response"')) return this.reply(line);
    if (head.startsWith('{"type":"extension_ui_request"')) {
      this.dismiss(line);
      return [];
    }
    const events = this.parser.push(line);
    // `agent_end` repeats the whole run and may arrive cut at the line bound; its head still says it.
    if (head.startsWith('{"type":"agent_end"')) this.settle();
    return events;
  }

  answer(_id: string, _decision: Decision): boolean {
    // Pi asks nothing: no request ever waits.
    return false;
  }

  send(text: string): void {
    if (this.phase !== 'running') {
      throw new DriveError({ kind: 'invalid_request', what: 'Pi is not running a turn to steer' });
    }
    this.steers++;
    this.write({ id: `steer-${this.steers}`, type: 'steer', message: text });
  }

  get open(): boolean {
    return this.phase === 'running' && this.stdin !== null && this.stdin.writable;
  }

  close(): void {
    if (this.phase === 'running') this.write({ type: 'abort' });
    this.phase = 'over';
    this.stdin?.end();
  }

  abandon(): void {
    this.phase = 'over';
  }

  terminal(): Terminal {
    return this.parser.terminal();
  }

  get sawTerminal(): boolean {
    return this.parser.sawTerminal;
  }

  private write(command: Record<string, unknown>): void {
    if (this.stdin === null || !this.stdin.writable) return;
    this.stdin.write(`${JSON.stringify(command)}\n`);
  }

  /** A reply to one of the commands sent: the session's id, or a refusal. */
  private reply(line: string): Event[] {
    let r: ReturnType<typeof obj> = null;
    try {
      r = obj(JSON.parse(line));
    } catch {
      // Cut at the line bound or not JSON: counted by the parser as any line that does not parse.
      return this.parser.push(line);
    }
    if (r === null) return [];
    const command = str(r.command);
    if (r.success !== true) {
      const said = headBytes(str(r.error) ?? 'no reason given', SHOWN_ERROR_BYTES);
      if (command === 'steer') {
        return [enforceBounds({ kind: 'notice', text: `Pi did not take the message: ${said}` })];
      }
      if (command === 'prompt' || command === 'get_state') this.refused(command, said);
      return [];
    }
    if (command !== 'get_state') return [];
    const id = str(obj(r.data)?.sessionId);
    if (id === null || !usableId(id)) return [];
    // The header `--mode json` prints first, so the session is announced the same way.
    return this.parser.push(JSON.stringify({ type: 'session', id }));
  }

  private refused(command: string, said: string): void {
    if (this.breakdown !== null || this.phase === 'over') return;
    this.breakdown = this.authFailure(said)
      ? { kind: 'not_authenticated', message: said }
      : { kind: 'protocol', message: `pi refused ${command}: ${said}` };
    this.host.broke();
  }

  /** An extension's dialog: dismissed, so Pi goes on without an answer nobody here can give. */
  private dismiss(line: string): void {
    let r: ReturnType<typeof obj> = null;
    try {
      r = obj(JSON.parse(line));
    } catch {
      // A dialog cut at the line bound has no readable id to answer; Pi's own timeout, if any, resolves it.
      return;
    }
    const id = str(r?.id);
    if (id !== null && DIALOGS.has(str(r?.method) ?? '')) {
      this.write({ type: 'extension_ui_response', id, cancelled: true });
    }
  }

  /** The run's loop ended: nothing more goes to Pi, which exits once its stdin ends. */
  private settle(): void {
    if (this.phase !== 'running') return;
    this.phase = 'settled';
    this.stdin?.end();
    this.host.settled();
  }
}
