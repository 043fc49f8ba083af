/**
 * A driven run as running cctops see it: what `cctop/drive` (a library caller or `cctop exec`) tells
 * them about each run it starts, and the answers they may send back. Every message about a run
 * carries the whole snapshot, not a delta: a cctop that starts late, or a slow one that missed lines,
 * is right again with the next line it reads.
 *
 * The snapshot is facts, never display: text is bounded and stripped of control characters here,
 * when it is read, because every byte of it came from another process (and through it, from an
 * agent's stream). Not here: the sockets (`peers.ts`), the message framing (`protocol.ts`), and what
 * a cctop does with a run (`live/driven.ts`).
 */
import type { RunAnswered, RunApproval, RunPhase, RunSnapshot } from '../model/driven-run.js';
import { arr, count, num, obj, str } from '../model/json.js';

export type { RunAnswered, RunApproval, RunPhase, RunSnapshot };

const PHASES: readonly RunPhase[] = ['starting', 'working', 'waiting', 'ended'];

/**
 * The longest text a snapshot field carries: the tool input of an approval (a shell command, a
 * path, a patch's head) is shown to a person deciding on it, so it gets a screenful; names and ids
 * get far less.
 */
export const MAX_RUN_INPUT_CHARS = 2_000;
const MAX_RUN_NAME_CHARS = 200;

/**
 * The most approvals a snapshot lists as waiting. Drive itself keeps at most
 * `MAX_PENDING_APPROVALS` (16) per run; a snapshot claiming more is cut here.
 */
export const MAX_RUN_PENDING = 16;

const HAS_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** A string from another process, made safe to keep: control characters replaced, length cut. */
export function boundString(v: string, max: number): string {
  const cut = v.length > max ? `${v.slice(0, max - 1)}…` : v;
  return cut.replace(HAS_CONTROL, '\ufffd');
}

const name = (v: unknown): string | null => {
  const s = str(v);
  return s === null || s.length === 0 ? null : boundString(s, MAX_RUN_NAME_CHARS);
};
const longText = (v: unknown): string => boundString(str(v) ?? '', MAX_RUN_INPUT_CHARS);

function readApproval(v: unknown): RunApproval | null {
  const o = obj(v);
  const id = name(o?.id);
  const tool = name(o?.tool);
  return id === null || tool === null ? null : { id, tool, input: longText(o?.input) };
}

function readAnswered(v: unknown): RunAnswered | null {
  const o = obj(v);
  const base = readApproval(o);
  const by = name(o?.by);
  const behavior = o?.behavior === 'allow' || o?.behavior === 'deny' ? o.behavior : null;
  return base === null || by === null || behavior === null
    ? null
    : { id: base.id, tool: base.tool, behavior, by };
}

function readTokens(v: unknown): RunSnapshot['tokens'] {
  const o = obj(v);
  if (o === null) return null;
  return {
    input: count(o.input),
    output: count(o.output),
    cacheRead: count(o.cacheRead),
    cacheWrite: count(o.cacheWrite),
  };
}

/** A snapshot read back from a line, or null when it is not one. Never throws. */
export function readRunSnapshot(v: unknown): RunSnapshot | null {
  const o = obj(v);
  if (o === null) return null;
  const id = name(o.id);
  const agent = name(o.agent);
  const pid = count(o.pid);
  const phase = PHASES.find((p) => p === o.phase);
  const startedAtMs = num(o.startedAtMs);
  if (id === null || agent === null || pid === null || phase === undefined || startedAtMs === null)
    return null;
  const pending = (arr(o.pending) ?? []).slice(0, MAX_RUN_PENDING).flatMap((a) => readApproval(a) ?? []);
  return {
    id,
    agent,
    harness: name(o.harness),
    program: name(o.program) ?? 'a program',
    pid,
    cwd: boundString(str(o.cwd) ?? '', MAX_RUN_INPUT_CHARS),
    model: name(o.model),
    session: name(o.session),
    startedAtMs,
    phase,
    tool: name(o.tool),
    toolCalls: count(o.toolCalls) ?? 0,
    toolFailures: count(o.toolFailures) ?? 0,
    tokens: readTokens(o.tokens),
    costUsd: num(o.costUsd),
    pending,
    answered: readAnswered(o.answered),
    remote: o.remote === true,
    end: name(o.end),
  };
}

/** A person's (or a program's) answer to one approval of one run. */
export interface RunAnswer {
  run: string;
  request: string;
  behavior: 'allow' | 'deny';
  /** Who answered, in words for the other watchers. */
  by: string;
}

export function readRunAnswer(v: unknown): RunAnswer | null {
  const o = obj(v);
  const run = name(o?.run);
  const request = name(o?.request);
  const by = name(o?.by);
  const behavior = o?.behavior === 'allow' || o?.behavior === 'deny' ? o.behavior : null;
  return run === null || request === null || by === null || behavior === null
    ? null
    : { run, request, behavior, by };
}
