/**
 * What every harness provider offers the scan: where its data lives, which files it sees, and how
 * to read one of them (from a byte offset, for append-only transcripts).
 */
import type { CallLog } from '../model/calls.js';
import type { Conversation, TurnFeed } from '../model/conversation.js';
import type { FileFacts, ProviderId } from '../model/facts.js';
import type { Ledger } from '../model/ledger.js';
import type { VendorHint } from '../model/pricing.js';
import type { ProblemLog } from '../model/problems.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface Root {
  path: string;
  /** Where the path came from: an environment variable or the default. */
  origin: string;
}

export interface SourceFile {
  provider: ProviderId;
  path: string;
  /** The root it was found under. */
  root: string;
  /** The session the path names, when it names one (Claude's file stem, Codex's trailing uuid). */
  sessionHint: string | null;
  /**
   * A main transcript; a subagent's, counted toward its parent; or a part: another record of the
   * session's own requests (Copilot CLI's OpenTelemetry export beside its `session-state`), counted
   * with it (a request it shares with another file counts once) without speaking for it.
   */
  role: 'main' | 'subagent' | 'part';
  /**
   * Where the harness keeps copies of one session in several places and the provider knows which
   * speaks for it without reading them: of two main files of a session that both have one, the lower
   * rank is the session's (`index/group.ts`), whatever their sizes. Absent: the larger copy is, which
   * damage to a copy can change.
   */
  copyRank?: number;
  size: number;
  mtimeMs: number;
  ino: number;
}

/**
 * Where a parse stopped, with everything needed to continue from there. `C` is the provider's own
 * carried state; the index keeps results of every provider alike, as `ParseResult<unknown>`, and
 * hands one back only through the provider's `readCarry` (`readSource` in `fence.ts`).
 */
export interface ParseResult<C = unknown> {
  facts: FileFacts;
  /** Provider-specific state carried to the next pass (plain JSON). */
  carry: C;
  ledger: Ledger;
  /** Offset just past the last line consumed. */
  offset: number;
  size: number;
  mtimeMs: number;
  ino: number;
  /** Bytes of an unfinished last line left for the next pass. */
  pendingBytes: number;
}

/**
 * What finding a harness's files needs: where its data lives, which files it sees, and the rules
 * its sessions are sized by; and what else is known of the harness without reading a file (its
 * name, its processes, how to resume a session). Kept apart from `Provider` so that a run answering
 * from the index (no file changed) loads no parser: discovery and the window rules are all it touches.
 *
 * `K` is the id itself, so that the tables in `places.ts` and `index.ts` cannot file a harness
 * under another's id.
 */
export interface ProviderPlace<K extends ProviderId = ProviderId> {
  id: K;
  /** The harness's name for people: "Claude Code". */
  label: string;
  /** Which catalogue vendor its models are priced under first. */
  vendor: VendorHint;
  /** Whether `--plan max` bundles its usage (a Claude subscription). */
  bundledUnderMax: boolean;
  /**
   * Whether its files only ever grow (JSONL transcripts): a grown file is read from where the last
   * pass stopped. Otherwise a changed file is read again from the start.
   */
  appendOnly: boolean;
  roots(env: Env): Root[];
  discover(roots: Root[], problems: ProblemLog): SourceFile[];
  /** Where this agent auto-compacts, as a fraction of its window (null: it does not say). */
  compactRatio(env: Env): number | null;
  /** The context window of a session, from what its files and settings say. */
  contextWindow(q: WindowQuery): number | null;
  /** Why there is no conversation reader, when there is none. */
  noConversation?: string;
  /**
   * The command that resumes session `id`, as words for a shell (the caller quotes them and refuses
   * an id that reads as an option). Absent for a harness that cannot resume a session by its id.
   */
  resumeCommand?(id: string): readonly string[];
  /**
   * The command that starts a new interactive session whose first message is `prompt`, allowed to
   * read the files in `dirs` besides its working directory (a handoff brief in cctop's cache), as
   * words for a shell. Absent for a harness cctop does not start (`cctop handoff --to`).
   */
  startCommand?(prompt: string, dirs: readonly string[]): readonly string[];
  /** How its running processes are told apart; absent for a harness cctop cannot match to processes. */
  processes?: ProcessRule;
}

/** How a harness's processes are recognised and matched to its sessions, from their command lines. */
export interface ProcessRule {
  /** Whether this command line is the harness's own process (not a helper it runs, not an editor). */
  isAgent(argv: readonly string[]): boolean;
  /**
   * Words every command line `isAgent` accepts holds somewhere (its bytes, arguments joined by NUL):
   * a warm answer scans the process table for these alone, without loading the rules, and leaves the
   * answer to the full route when one shows up in a process that could run a session.
   */
  words: readonly string[];
  /** The session id the command line names (`--resume <id>`), or null. */
  sessionArg(argv: readonly string[]): string | null;
}

/**
 * A provider's carried state as it comes back from the index (JSON out of SQLite, or a copy sent to
 * a worker): read and checked against what the provider writes, or `undefined` when it is not that
 * (another parser version wrote it, or the row is damaged), and the file is then read from the start.
 * `undefined` rather than null, because null is a carry some providers write.
 */
export type CarryReader<C> = (stored: unknown) => C | undefined;

/**
 * A harness in full: its place, and how to read its files and its conversations. `C` is the state its
 * parser carries from one pass over a growing file to the next (null for one that re-reads a file).
 */
export interface Provider<K extends ProviderId = ProviderId, C = unknown> extends ProviderPlace<K> {
  /** Read `file` from the start, or continue from `previous`. */
  parse(file: SourceFile, previous: ParseResult<C> | null): ParseResult<C>;
  /** Check a carry the index hands back before `parse` continues from it. */
  readCarry: CarryReader<C>;
  /**
   * The conversation of the session whose main transcript is `path`, or of one of its subagents.
   * Absent for a harness cctop has no reader for: the caller answers `supported: false`, saying why.
   */
  conversation?(path: string, o: ConversationOptions): Conversation;
  /**
   * Every call, request and compaction of the session whose main transcript is `path` (its
   * subagents' calls included, wherever the harness keeps them), read in full for the report.
   * Absent for a harness whose files name no calls.
   */
  calls?(path: string): CallLog;
  /**
   * Who a subagent transcript of this harness is: its agent id (what `conversation`'s `agent`
   * takes) and the kind of agent, where the harness records one. Absent: the file's path names it.
   */
  subagent?(path: string): SubagentInfo;
  /**
   * Every finished tool call of the session whose main transcript is `path`, by the id the harness
   * gave it, and whether it failed as this provider reads it: what drive settles a run's stream
   * against once the run has ended (`drive/settle.ts`). Absent for a harness whose files name no
   * call ids.
   */
  callOutcomes?(path: string): CallOutcome[];
}

/** One finished tool call as a session's own file records it. */
export interface CallOutcome {
  /** The harness's id for the call, as its stream names it too. */
  id: string;
  name: string;
  failed: boolean;
  /** A shell command's exit code, where the file records one. */
  exitCode: number | null;
}

/** A subagent as its harness names it. */
export interface SubagentInfo {
  agent: string;
  type: string | null;
}

export interface ConversationOptions {
  /** End the window just before this turn (`?before=SEQ`). */
  before: number | null;
  /** A subagent's own conversation, by its agent id. */
  agent: string | null;
  /**
   * Every turn, handed over one by one, rather than the window (the search index); a reader whose
   * harness only appends may start where `feed.from` says.
   */
  feed?: TurnFeed;
}

/**
 * The window a harness reported, else the catalogue's; never smaller than the prompt it already held
 * (for harnesses that compact only when the next request would not fit).
 */
export function reportedOrKnownWindow(q: WindowQuery): number | null {
  const known = q.reportedWindow ?? q.catalogueWindow;
  return known !== null && q.used !== null && q.used > known ? q.used : known;
}

export interface WindowQuery {
  model: string | null;
  /** The newest prompt size: a window is never shown smaller than what it already held. */
  used: number | null;
  /** What the harness reported itself, if it did. */
  reportedWindow: number | null;
  /** What the price catalogue knows of the model. */
  catalogueWindow: number | null;
  cwd: string | null;
  root: string;
}
