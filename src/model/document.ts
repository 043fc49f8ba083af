/**
 * The session document: what `cctop --json` prints, `/api/sessions` serves and other machines send
 * over ssh. One schema, versioned; `docs/session-document.md` describes it field by field.
 *
 * Every number the harness does not record is `null`, never `0`.
 */
import type { Collision } from './collision.js';
import type { RunSnapshot } from './driven-run.js';
import type { Permission, ProviderId, ToolTally } from './facts.js';
import type { Problem } from './problems.js';
import type { SessionState, StateSource } from './state.js';
import type { DocumentTotals } from './totals.js';
import type { TokenCounts } from './usage.js';

/** Bumped when a field changes meaning or is removed; adding a field does not bump it. */
export const DOCUMENT_VERSION = 1;

export type Plan = 'retail' | 'max' | 'included';

/** Spend per clock hour, oldest first; the last entry is the current hour. */
export interface HourSeries {
  /** Start of the oldest hour (ISO, UTC). */
  start: string;
  usd: number[];
}

/** Spend per local day, oldest first; the last entry is today. */
export interface DaySeries {
  /** The oldest day, `YYYY-MM-DD` in the report's time zone. */
  start: string;
  usd: number[];
}

export interface ModelCost {
  model: string;
  /**
   * True: this row is the model's requests served in fast mode, priced at its multiple of the
   * standard price (`model/pricing-speed.ts`); its standard requests are another row. Absent: standard.
   */
  fast?: boolean;
  tokens: TokenCounts;
  /** null when the model has no known price. */
  usd: number | null;
  requests: number;
}

export interface SessionCost {
  /** Estimated or reported spend; null when nothing the session used has a known price. */
  usd: number | null;
  source: 'estimated' | 'reported' | 'mixed' | null;
  /** True when the plan bundles this usage: `usd` is what it would have cost at retail. */
  included: boolean;
  /** Models with usage but no known price (their tokens are not in `usd`). */
  unpriced: string[];
  byModel: ModelCost[];
  byHour: HourSeries | null;
  byDay: DaySeries | null;
}

export interface SessionContext {
  /** Prompt size of the newest main-thread request. */
  used: number | null;
  window: number | null;
  /** Where the agent compacts automatically; every "context %" in cctop is `used / compactAt`. */
  compactAt: number | null;
}

export interface SessionDoc {
  provider: ProviderId;
  id: string;
  /** The main transcript (or the first file found, when only subagent files remain). */
  file: string;
  /**
   * The transcript is gone (Claude Code deletes them after 30 days); what the index learned from it
   * stays, so last month's spend does not shrink.
   */
  deleted: boolean;
  /** Subagent transcripts counted toward this session. */
  subagentFiles: number;
  /** The working directory the session started in. */
  project: string | null;
  title: string | null;
  branch: string | null;
  /** The newest main-thread model. */
  model: string | null;
  models: string[];
  reasoningEffort: string | null;
  permissionMode: string | null;
  /** What the permission mode means, whatever the harness calls it (`permissionMode` is its own word). */
  permission: Permission | null;
  startedAt: string | null;
  lastActiveAt: string | null;
  state: SessionState;
  /** Why the state reads as it does (the ask tool, the error, `turn_duration`, what a hook says is asked). */
  stateDetail: string | null;
  /** Which source the state came from: the agent's hooks, its own registry, or cctop's inference. */
  stateSource: StateSource;
  /** Whether a live process runs it; null where processes cannot be looked at. */
  running: boolean | null;
  /** The agent's process tree, when one runs it: CPU (% of one core) and memory summed over it. */
  process: {
    pids: number[];
    cpu: number | null;
    memory: number;
    command: string;
    /** The run's id when `cctop run` holds the agent on its own pty (`cctop attach ID`); absent otherwise. */
    cctopRun?: string;
  } | null;
  /** The newest tool call still without a result (a long one, or one blocked on a permission prompt). */
  pendingTool: string | null;
  /**
   * A state inferred rather than read: `probably-waiting` when a tool call has been pending with a
   * quiet file and an idle process for a while (permission prompts are not written to transcripts).
   */
  inferred: 'probably-waiting' | null;
  tokens: TokenCounts;
  requests: number;
  cost: SessionCost;
  context: SessionContext;
  tools: { calls: number; failed: number | null; byTool: Record<string, ToolTally> };
  lines: { added: number | null; removed: number | null };
  compactions: number | null;
  /** Turns the user interrupted. */
  aborts: number;
  /** The newest rate-limit snapshot the harness wrote (Codex), as it wrote it. */
  rateLimits: unknown;
  /**
   * Present while `cctop/drive` drives this session and told this cctop so (`live/driven.ts`): which
   * program, what the run waits on, whether it takes answers from here. Absent otherwise.
   */
  driven?: RunSnapshot;
  /**
   * The machine this session runs on, as named to `--host` (`[user@]host`); absent for this machine.
   * A remote row is shown, never acted on (`docs/hosts.md`).
   */
  host?: string;
}

/** What deciding a session's process fields reads, and those fields: all an annotator touches. */
export type SessionLiveFields = Pick<
  SessionDoc,
  | 'provider'
  | 'id'
  | 'file'
  | 'project'
  | 'lastActiveAt'
  | 'deleted'
  | 'state'
  | 'stateDetail'
  | 'stateSource'
  | 'pendingTool'
  | 'running'
  | 'inferred'
  | 'process'
>;

/**
 * Fills in the process fields (running, inferred, process) of every session and settles its state
 * with them (`live/annotate.ts`); returns whether anything a view shows as state changed.
 */
export type Annotator = (doc: { sessions: SessionLiveFields[] }) => boolean;

export interface SessionDocument {
  version: number;
  generatedAt: string;
  plan: Plan;
  timeZone: string;
  sessions: SessionDoc[];
  problems: Problem[];
  /** Per harness and overall, over `sessions` (`model/totals.ts`). */
  totals: DocumentTotals;
  /**
   * Running sessions that lately wrote the same file, or in the same repository (`live/collisions.ts`):
   * present where cctop looked (`--json`, `serve`), absent where it did not (a document from an older
   * cctop, a library caller that asked for none).
   */
  collisions?: Collision[];
  /**
   * The runs `cctop/drive` drives now: announced to this cctop (a live table, `serve`) or read from
   * their files by a one-shot (`--json`); absent when there are none.
   */
  driven?: RunSnapshot[];
  /** The other machines read over ssh (`--host`), and how each answered; absent when none were asked. */
  hosts?: HostStatus[];
}

/** How one host answered (`docs/hosts.md`). */
export interface HostStatus {
  /** `[user@]host` as given. */
  host: string;
  /** Whether its last read answered. */
  ok: boolean;
  /** Its sessions in this document (a live view keeps a silent host's last rows). */
  sessions: number;
  /** Why its last read failed, with the fix; null when it answered (or has not been asked yet). */
  error: string | null;
  /** When it last answered (ISO); null when it never has. */
  answeredAt: string | null;
}

/** A session's identity across documents. */
export interface SessionRef {
  provider: ProviderId;
  id: string;
}

/**
 * What changed between two documents of one live view: every session (the first document, or one
 * built anew), or the sessions that changed (built again, or whose live fields moved) and the ones
 * that went away. A page that misses one asks for the whole document again.
 */
export type SessionChanges = { kind: 'all' } | { kind: 'some'; changed: SessionDoc[]; removed: SessionRef[] };
