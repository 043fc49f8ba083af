/**
 * What one transcript file says about its session, apart from billing (that is the ledger).
 *
 * Facts are plain JSON so the index can store them and a later pass can continue from them. Every
 * collection in here has a stated bound: a file is untrusted input and may be enormous.
 */
import { type BadLineReason, obj } from './json.js';
import type { LiveSignal } from './state.js';

/**
 * Every harness cctop reads, in the order the tables list them: the one list of provider ids. The
 * registries in `providers/` (places, full providers) are keyed by it with `satisfies Record<…>`, so
 * an id added here does not compile until its provider is written, and nothing else lists them.
 */
export const PROVIDERS = [
  'claude',
  'codex',
  'gemini',
  'copilot',
  'opencode',
  'pi',
  'cursor',
  'windsurf',
  'devin',
  'qwen',
  'amp',
  'droid',
  'codebuff',
  'hermes',
  'goose',
  'kilo',
  'antigravity',
  'kimi',
  'openclaw',
  'grok',
  'zcode',
] as const;

export type ProviderId = (typeof PROVIDERS)[number];

/**
 * How much a session may do without asking, as its harness recorded it: each provider maps its own
 * words to one of these (the words stay in `permissionMode`). Only Claude Code and Codex record a
 * mode; the other harnesses leave it null.
 */
export type Permission =
  /** Asks before it changes anything (Claude Code `default`; Codex approval `untrusted`). */
  | 'ask'
  /** Edits files without asking, asks for the rest (`acceptEdits`; Codex's workspace-write sandbox). */
  | 'edits'
  /** Plans and changes nothing (Claude Code `plan`). */
  | 'plan'
  /** Reads only: a sandbox fences every write off (Codex's read-only sandbox). */
  | 'read-only'
  /** The harness judges by itself what to ask about (Claude Code `auto`; Codex `on-request` unfenced). */
  | 'auto'
  /** Never asks: what its rules do not allow beforehand is refused (Claude Code `dontAsk`). */
  | 'deny'
  /** Never asks and nothing is fenced (`bypassPermissions`; Codex `never` with full access). */
  | 'bypass'
  /** A mode this cctop does not know; `permissionMode` has the harness's own words for it. */
  | 'unknown';

export interface ToolTally {
  calls: number;
  /** Failed calls, or null when the harness does not record outcomes. */
  failed: number | null;
}

/** Distinct tool names kept per file; past this, calls are tallied under `(other)`. */
export const MAX_TOOL_NAMES = 256;

/** Titles and summaries are for a table cell: longer text is cut here. */
export const MAX_TITLE_CHARS = 200;

/** Summaries remembered per file (they name other sessions too; the newest are kept). */
export const MAX_SUMMARIES = 64;

/** How many of the newest message uuids a file remembers to resolve a summary's `leafUuid`. */
export const TAIL_UUIDS = 16;

export interface ContextReading {
  /** Prompt size of the newest main-thread request: input + cache read + cache write. */
  prompt: number;
  model: string | null;
  atMs: number | null;
}

/** One unknown name: how often it was seen, and where first (a line number in the file, from 1). */
export interface Seen {
  count: number;
  line: number;
}

export interface VersionDrift {
  types: Record<string, Seen>;
  /** Fields are counted in the sampled records only: a count says "at least". */
  fields: Record<string, Seen>;
}

/**
 * Record types and fields the reader does not know (`providers/drift.ts`), per CLI version (`?`: the records named none) in one file.
 */
export type DriftFacts = Record<string, VersionDrift>;

export interface FileFacts {
  /** The session id the file's own records carry, when they carry one. */
  sessionId: string | null;
  /**
   * The session that spawned this file's agent, when the file says so itself (a Codex subagent's
   * rollout names its parent thread): the file is counted with that session, as its subagent.
   * Absent in facts kept before it was read.
   */
  parentSession?: string | null;
  cwd: string | null;
  gitBranch: string | null;
  titles: {
    custom: string | null;
    ai: string | null;
    firstPrompt: string | null;
    /** `[leafUuid, summary]`, newest last; the uuid as a number (`idNumber`). */
    summaries: [number, string][];
  };
  /** The newest message uuids of the main thread (as numbers), to match summaries against. */
  tailUuids: number[];
  /** Every model seen, in order of first use. */
  models: string[];
  /** The newest model used by the main thread (not a subagent). */
  mainModel: string | null;
  firstMs: number | null;
  lastMs: number | null;
  /** The permission mode in the harness's own words (Codex: `approval/sandbox`). */
  permissionMode: string | null;
  /** The same mode, as one of cctop's: what the table shows. */
  permission: Permission | null;
  reasoningEffort: string | null;
  compactions: number;
  tools: Record<string, ToolTally>;
  /** Whether this harness records tool outcomes at all (else failures are `─`). */
  recordsOutcomes: boolean;
  linesAdded: number | null;
  linesRemoved: number | null;
  context: ContextReading | null;
  /** A context window the harness reported itself (Codex's `model_context_window`). */
  reportedWindow: number | null;
  live: LiveSignal | null;
  /** Turns the user interrupted. */
  aborts: number;
  /** The newest rate-limit snapshot, as the harness wrote it (Codex). */
  rateLimits: unknown;
  /**
   * Lines read, as the file numbers them (blank and oversized lines included, an unfinished last
   * line not yet); lines that were not JSON objects; lines over the line bound.
   */
  lines: number;
  badLines: number;
  oversizedLines: number;
  /**
   * Where the first bad line is and why it is bad, for `cctop doctor`. Never its bytes: a transcript
   * can be anything a link points at, and a problem is printed and served.
   */
  firstBad: BadLine | null;
  /** Requests whose usage did not add up (counted, priced as far as possible). */
  inconsistentUsage: number;
  /** What the reader did not know in this file, per CLI version; absent in facts kept before. */
  drift?: DriftFacts | null;
  /** The CLI version the newest record that named one was written by (kept for the next pass). */
  cliVersion?: string | null;
}

export function emptyFacts(): FileFacts {
  return {
    sessionId: null,
    cwd: null,
    gitBranch: null,
    titles: { custom: null, ai: null, firstPrompt: null, summaries: [] },
    tailUuids: [],
    models: [],
    mainModel: null,
    firstMs: null,
    lastMs: null,
    permissionMode: null,
    permission: null,
    reasoningEffort: null,
    compactions: 0,
    tools: {},
    recordsOutcomes: true,
    linesAdded: null,
    linesRemoved: null,
    context: null,
    reportedWindow: null,
    live: null,
    aborts: 0,
    rateLimits: null,
    lines: 0,
    badLines: 0,
    oversizedLines: 0,
    firstBad: null,
    inconsistentUsage: 0,
  };
}

/**
 * Whether a value read back from the index (a provider's carried state holds facts) has the shape of
 * `FileFacts`: its counts, lists and tables, checked member by member where the parsers rely on them.
 */
export function isFileFacts(v: unknown): v is FileFacts {
  const o = obj(v);
  if (o === null) return false;
  const counts = [o.lines, o.badLines, o.oversizedLines, o.compactions, o.aborts, o.inconsistentUsage];
  const titles = obj(o.titles);
  return (
    counts.every((n) => typeof n === 'number' && Number.isFinite(n)) &&
    Array.isArray(o.models) &&
    o.models.every((m) => typeof m === 'string') &&
    Array.isArray(o.tailUuids) &&
    titles !== null &&
    Array.isArray(titles.summaries) &&
    obj(o.tools) !== null &&
    typeof o.recordsOutcomes === 'boolean'
  );
}

/** Count one tool call (and whether it failed, when known). */
export function tallyTool(facts: FileFacts, name: string): void {
  const key =
    facts.tools[name] !== undefined || Object.keys(facts.tools).length < MAX_TOOL_NAMES ? name : '(other)';
  let t = facts.tools[key];
  if (t === undefined) {
    t = { calls: 0, failed: facts.recordsOutcomes ? 0 : null };
    facts.tools[key] = t;
  }
  t.calls++;
}

export function tallyFailure(facts: FileFacts, name: string): void {
  const key = facts.tools[name] !== undefined ? name : '(other)';
  const t = facts.tools[key] ?? { calls: 0, failed: 0 };
  facts.tools[key] = t;
  t.failed = (t.failed ?? 0) + 1;
}

export function noteTime(facts: FileFacts, ms: number | null): void {
  if (ms === null) return;
  if (facts.firstMs === null || ms < facts.firstMs) facts.firstMs = ms;
  if (facts.lastMs === null || ms > facts.lastMs) facts.lastMs = ms;
}

export function noteModel(facts: FileFacts, model: string): void {
  if (!facts.models.includes(model)) facts.models.push(model);
}

/** Keep `s` to one line of at most `max` characters, marking a cut with an ellipsis. */
export function oneLine(s: string, max = MAX_TITLE_CHARS): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** Where a bad line is and why it is bad. */
export interface BadLine {
  /** Its number in its file, from 1. */
  line: number;
  reason: BadLineReason;
  /**
   * The file it is in, when that is not the session's own file: an OpenCode message or part in the
   * session's `storage/` tree, named from the tree.
   */
  file: string | null;
}

/** Count a bad line: `line` is its number in the file, from 1; `file` as in `BadLine`. */
export function noteBadLine(
  facts: FileFacts,
  line: number,
  reason: BadLineReason,
  file: string | null = null,
): void {
  facts.badLines++;
  if (facts.firstBad === null) facts.firstBad = { line, reason, file };
}
