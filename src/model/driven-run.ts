/**
 * A run that `cctop/drive` drives, as the runs' protocol carries it to running cctops
 * (`runtime/runs.ts` reads it, `drive/announce-fold.ts` makes it): facts only, already bounded.
 */

/** Where a run stands. `ended` runs are sent once, just before `bye`. */
export type RunPhase = 'starting' | 'working' | 'waiting' | 'ended';

/** An approval the run waits on: the tool and its input as the agent asked. */
export interface RunApproval {
  id: string;
  tool: string;
  /** The input, as compact JSON (or the text itself), cut to `MAX_RUN_INPUT_CHARS`. */
  input: string;
}

/** The last approval answered, and by whom (`the program`, `cctop table (pid 4242)`, `dashboard`). */
export interface RunAnswered {
  id: string;
  tool: string;
  behavior: 'allow' | 'deny';
  by: string;
}

export interface RunSnapshot {
  /** Random, per run: the key answers and `bye` use. */
  id: string;
  /** The drive agent (`claude`, `codex`, …) or an ACP agent's name. */
  agent: string;
  /**
   * The harness whose session files the run writes, as cctop names harnesses (`claude`, `gemini`,
   * …), when it can be told: the drive agent itself, or the program an ACP command starts. Null
   * when unknown (an ACP agent cctop does not read).
   */
  harness: string | null;
  /** The program that drives it (`cctop exec`, or the script's file name), and its pid. */
  program: string;
  pid: number;
  cwd: string;
  model: string | null;
  /** The agent's own session id, once it said it: the key to the session it writes on disk. */
  session: string | null;
  startedAtMs: number;
  phase: RunPhase;
  /** The newest tool call's name. */
  tool: string | null;
  toolCalls: number;
  toolFailures: number;
  /** Tokens so far as the run's usage events summed them; null until the first. */
  tokens: {
    input: number | null;
    output: number | null;
    cacheRead: number | null;
    cacheWrite: number | null;
  } | null;
  /** The run's cost as the agent priced it, once its outcome is known; null otherwise. */
  costUsd: number | null;
  pending: RunApproval[];
  answered: RunAnswered | null;
  /** Whether the program takes answers from running cctops (`approvals: 'remote'`). */
  remote: boolean;
  /** How the run ended: `completed`, `error`, `cancelled`, `timeout`, …; null while it runs. */
  end: string | null;
}
