/**
 * The messages that go between cctop processes through the runtime directory's sockets: one JSON
 * object per line, each with the protocol's version `v` and a `kind`. `docs/protocol.md` is the
 * description for anyone writing a client; this module is its one codec.
 *
 * Two families of kinds. `hook`: a `HookEvent` that `cctop hook` hands to every running cctop, one
 * line a connection. Driven runs (`announce`, `run-event`, `bye` from a driver, `answer` back from a
 * cctop): a connection a driver keeps open for its run, both ways (`runs.ts` has their content).
 * A reader meets other kinds and other versions (a newer cctop beside an older one) and passes them
 * over, counted, rather than failing: the sender cannot know who listens.
 *
 * Not here: sockets, connections and line framing (`peers.ts`), the event's fields (`hooks/reduce.ts`
 * reads them back with the checks they were made with).
 */
import { readHookEvent } from '../hooks/reduce.js';
import type { HookEvent } from '../hooks/types.js';
import { obj, readJson } from '../model/json.js';
import { type RunAnswer, type RunSnapshot, readRunAnswer, readRunSnapshot } from './runs.js';

/** Bumped when a message's meaning changes; a reader skips lines of another version. */
export const PROTOCOL_VERSION = 1;

/**
 * The longest line a peer reads. A `hook` line is about 400 bytes; its largest possible one is
 * under 25 KiB (eight strings of `MAX_HOOK_FIELD_CHARS` characters, each at most six bytes once
 * JSON-escaped, and the numbers). 64 KiB leaves room for the kinds to come, and bounds what a
 * client that never sends a newline makes a peer hold.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024;

/** A message of this version. One variant per kind. */
export type Message = { v: typeof PROTOCOL_VERSION } & (
  | /** A hook ran (`cctop hook`): what it said about its session. */
  { kind: 'hook'; event: HookEvent }
  /** A driver's first line on a connection: the run as it stands. */
  | { kind: 'announce'; run: RunSnapshot }
  /** The run moved (an event, an answer): the run as it stands now. */
  | { kind: 'run-event'; run: RunSnapshot }
  /** A cctop's answer to one of the run's approvals. */
  | { kind: 'answer'; answer: RunAnswer }
  /** The run is over (from a driver), or the cctop stops following it; the connection closes. */
  | { kind: 'bye'; run: string }
);

/** The one kind `cctop hook` sends. */
export type HookMessage = Extract<Message, { kind: 'hook' }>;
/** The kinds about driven runs. */
export type RunMessage = Exclude<Message, { kind: 'hook' }>;

/** What a line read as. */
export type Decoded =
  | { kind: 'message'; message: Message }
  /** Well-formed, but not for this reader: another version, or a kind it does not know. */
  | { kind: 'ignored'; why: 'version' | 'kind' }
  /** Not a message: not a JSON object, or a known kind whose content does not read. */
  | { kind: 'bad'; why: 'not-json' | 'bad-content' };

/** A message as the line that carries it, newline included. */
export function encodeMessage(m: Message): string {
  return `${JSON.stringify(m)}\n`;
}

/** One line (without its newline) as a message, or why it is not one. Never throws. */
export function decodeMessage(line: string): Decoded {
  const read = line.length <= MAX_MESSAGE_BYTES ? readJson(line) : null;
  const o = read?.kind === 'read' ? obj(read.value) : null;
  if (o === null) return { kind: 'bad', why: 'not-json' };
  if (o.v !== PROTOCOL_VERSION) return { kind: 'ignored', why: 'version' };
  switch (o.kind) {
    case 'hook': {
      const event = readHookEvent(o.event);
      return event === null
        ? { kind: 'bad', why: 'bad-content' }
        : { kind: 'message', message: { v: PROTOCOL_VERSION, kind: 'hook', event } };
    }
    case 'announce':
    case 'run-event': {
      const run = readRunSnapshot(o.run);
      return run === null
        ? { kind: 'bad', why: 'bad-content' }
        : { kind: 'message', message: { v: PROTOCOL_VERSION, kind: o.kind, run } };
    }
    case 'answer': {
      const answer = readRunAnswer(o.answer);
      return answer === null
        ? { kind: 'bad', why: 'bad-content' }
        : { kind: 'message', message: { v: PROTOCOL_VERSION, kind: 'answer', answer } };
    }
    case 'bye':
      return typeof o.run === 'string' && o.run.length > 0 && o.run.length <= 200
        ? { kind: 'message', message: { v: PROTOCOL_VERSION, kind: 'bye', run: o.run } }
        : { kind: 'bad', why: 'bad-content' };
    default:
      return { kind: 'ignored', why: 'kind' };
  }
}
