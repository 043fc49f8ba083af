/**
 * A driven run's snapshot (`runtime/runs.ts`), kept up to date from the run's own events: what the
 * announcer sends to running cctops. Pure: no sockets, no clock of its own.
 *
 * Not here: the connections (`announce.ts`), or anything a cctop does with a snapshot.
 */
import { basename } from 'node:path';
import { encodeMessage, MAX_MESSAGE_BYTES, PROTOCOL_VERSION } from '../runtime/protocol.js';
import {
  boundString,
  MAX_RUN_INPUT_CHARS,
  MAX_RUN_PENDING,
  type RunAnswered,
  type RunSnapshot,
} from '../runtime/runs.js';
import type { Event, Outcome } from './events.js';

/** How much of a tool input a snapshot keeps when the whole would not fit in one protocol line. */
const SHORT_INPUT_CHARS = 200;

/** The name a driver goes by when the caller gives none: the script's file name. */
export function defaultProgram(argv: readonly string[] = process.argv): string {
  const script = argv[1];
  return script ? basename(script) : 'node';
}

export interface RunStart {
  id: string;
  agent: string;
  harness: string | null;
  program: string;
  cwd: string;
  model: string | null;
  remote: boolean;
  startedAtMs: number;
}

export function startSnapshot(s: RunStart): RunSnapshot {
  return {
    id: s.id,
    agent: s.agent,
    harness: s.harness,
    program: boundString(s.program, 200),
    pid: process.pid,
    cwd: boundString(s.cwd, MAX_RUN_INPUT_CHARS),
    model: s.model,
    session: null,
    startedAtMs: s.startedAtMs,
    phase: 'starting',
    tool: null,
    toolCalls: 0,
    toolFailures: 0,
    tokens: null,
    costUsd: null,
    pending: [],
    answered: null,
    remote: s.remote,
    end: null,
  };
}

/** A tool input as a person deciding on it reads it: compact JSON (a string as itself), bounded. */
export function inputText(input: unknown): string {
  let text: string;
  try {
    text = typeof input === 'string' ? input : (JSON.stringify(input) ?? '');
  } catch {
    text = String(input);
  }
  return boundString(text, MAX_RUN_INPUT_CHARS);
}

const add = (a: number | null, b: number | null): number | null =>
  a === null && b === null ? null : (a ?? 0) + (b ?? 0);

/** The snapshot after one event. Returns the same object when the event changes nothing shown. */
export function foldEvent(s: RunSnapshot, e: Event): RunSnapshot {
  switch (e.kind) {
    case 'started':
      return {
        ...s,
        session: boundString(e.session, 200),
        model: e.model ?? s.model,
        phase: phaseOf(s.pending),
      };
    case 'text':
    case 'thinking':
      return s.phase === 'starting' ? { ...s, phase: 'working' } : s;
    case 'tool_call':
      return { ...s, tool: boundString(e.name, 200), toolCalls: s.toolCalls + 1, phase: phaseOf(s.pending) };
    case 'tool_result':
      return e.ok === false ? { ...s, toolFailures: s.toolFailures + 1 } : s;
    case 'usage': {
      const t = s.tokens;
      const u = e.usage;
      return {
        ...s,
        tokens: {
          input: add(t?.input ?? null, u.input),
          output: t?.output ?? null,
          cacheRead: add(t?.cacheRead ?? null, u.cacheRead),
          cacheWrite: add(t?.cacheWrite ?? null, u.cacheWrite),
        },
      };
    }
    case 'approval_request': {
      if (s.pending.length >= MAX_RUN_PENDING || s.pending.some((p) => p.id === e.id)) return s;
      const pending = [
        ...s.pending,
        { id: boundString(e.id, 200), tool: boundString(e.tool, 200), input: inputText(e.input) },
      ];
      return { ...s, pending, phase: 'waiting' };
    }
    case 'rate_limit':
    case 'compaction':
    case 'commands':
    case 'plan':
    case 'notice':
      return s;
  }
}

const phaseOf = (pending: readonly unknown[]): RunSnapshot['phase'] =>
  pending.length > 0 ? 'waiting' : 'working';

/** The snapshot after an approval was answered, by the program or from a cctop. */
export function foldAnswer(s: RunSnapshot, id: string, behavior: 'allow' | 'deny', by: string): RunSnapshot {
  const asked = s.pending.find((p) => p.id === id);
  if (asked === undefined) return s;
  const pending = s.pending.filter((p) => p !== asked);
  const answered: RunAnswered = { id: asked.id, tool: asked.tool, behavior, by: boundString(by, 200) };
  return { ...s, pending, answered, phase: phaseOf(pending) };
}

/** The snapshot of a run that ended: how, and its usage as the outcome settled it. */
export function foldEnd(s: RunSnapshot, o: { outcome: Outcome } | { failure: string }): RunSnapshot {
  if ('failure' in o) return { ...s, phase: 'ended', pending: [], end: boundString(o.failure, 200) };
  const u = o.outcome.usage;
  return {
    ...s,
    phase: 'ended',
    pending: [],
    end: o.outcome.stop.kind,
    session: o.outcome.session ?? s.session,
    model: o.outcome.model ?? s.model,
    tokens: { input: u.input, output: u.output, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite },
    costUsd: u.costUsd,
  };
}

/** The run's line of `kind`, made to fit `MAX_MESSAGE_BYTES` by cutting tool inputs shorter. */
export function runLine(kind: 'announce' | 'run-event', s: RunSnapshot): string {
  const line = encodeMessage({ v: PROTOCOL_VERSION, kind, run: s });
  if (Buffer.byteLength(line) <= MAX_MESSAGE_BYTES) return line;
  const short = (t: string) => boundString(t, SHORT_INPUT_CHARS);
  const smaller: RunSnapshot = {
    ...s,
    cwd: short(s.cwd),
    pending: s.pending.slice(0, 1).map((p) => ({ ...p, input: short(p.input) })),
  };
  return encodeMessage({ v: PROTOCOL_VERSION, kind, run: smaller });
}
