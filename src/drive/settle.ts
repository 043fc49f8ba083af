/**
 * One truth about a driven run: once it has ended, the session file the agent wrote is read by the
 * harness's own provider, and what the stream left open is settled from it. Gemini's stream calls a
 * shell command that exited 3 a success and carries no exit code, while its chat file records the
 * exit; Copilot's stream carries no tokens, while its session file does. Without this, `cctop exec`
 * and `cctop chat` of the same session said different things.
 *
 * The stream's word stands where it gave one; the file fills what it left open, and the outcome says
 * which fact came from where (`Outcome.truth`). Where both spoke and disagree, the disagreement is a
 * problem on the outcome, never resolved in silence.
 *
 * Not here: reading any harness's files (its provider does, through `Provider.parse` and
 * `Provider.callOutcomes`), or judging how the run ended (`verdict.ts`).
 */

import { PROVIDERS } from '../model/facts.js';
import { F, FLAG, type Ledger, RECORD_FIELDS } from '../model/ledger.js';
import { ProblemLog } from '../model/problems.js';
import type { TokenCounts } from '../model/usage.js';
import { discoverSources, readSource } from '../providers/fence.js';
import { providerById } from '../providers/index.js';
import type { CallOutcome, Env, Provider, SourceFile } from '../providers/types.js';
import { wrappedAgent } from './acp/spec.js';
import type { AgentId, Outcome, SettledResult, Truth, TruthProblem } from './events.js';

/**
 * Session files parsed to find the run's own: those whose name does not say their session and that
 * changed since the run began. One run writes one; a handful more are other runs in the same home.
 */
export const MAX_CANDIDATES = 16;

/**
 * How long before the run's start a file may have last changed and still be its session file: file
 * times and the clock can differ by the file system's granularity (a second or two on some).
 */
export const MTIME_SLACK_MS = 2_000;

/**
 * Tool results of one run kept to settle: a run of thousands of calls is a fan-out; past this the
 * rest stay as the stream gave them, and are not listed in `Outcome.truth`.
 */
export const MAX_STREAM_RESULTS = 10_000;

/** A tool result as the stream gave it, in order. */
export interface StreamResult {
  id: string;
  ok: boolean | null;
}

export interface SettleInput {
  agent: AgentId;
  /** The program an `acp` run started: its provider is the one of that name, when there is one. */
  acpProgram: string | null;
  outcome: Outcome;
  /** The environment the agent ran under: where its files are. */
  env: Env;
  /** When the run was spawned (ms since the epoch): the run's requests are the file's since then. */
  startedMs: number;
  results: readonly StreamResult[];
}

/** The provider that reads the files of the agent that ran, or null when cctop reads none of its. */
function providerFor(agent: AgentId, acpProgram: string | null): Provider | null {
  // An ACP agent's files are those of the CLI it starts or wraps (`claude-code-acp`: Claude Code's).
  const name =
    agent === 'acp' ? (acpProgram === null ? null : (wrappedAgent(acpProgram) ?? acpProgram)) : agent;
  const id = PROVIDERS.find((known) => known === name);
  return id === undefined ? null : providerById(id);
}

/** The main transcript of `session` under the agent's roots, with its facts; null when none is found. */
function findSession(
  p: Provider,
  env: Env,
  session: string,
  startedMs: number,
): { file: SourceFile; ledger: Ledger; mainModel: string | null } | null {
  // Through the fence, as every reader outside the providers is: a reader that throws is not this run's.
  const files = discoverSources(p, env, new ProblemLog()).files.filter((f) => f.role === 'main');
  const named = files.filter((f) => f.sessionHint === session);
  const recent = files
    .filter((f) => f.sessionHint === null && f.mtimeMs >= startedMs - MTIME_SLACK_MS)
    .sort((a, b) => b.mtimeMs - a.mtimeMs)
    .slice(0, MAX_CANDIDATES);
  for (const file of [...named, ...recent]) {
    const read = readSource(p, file, null);
    // A file that went away or is not one of the harness's sessions: it is not this run's.
    if (read.kind === 'failed') continue;
    const parsed = read.value;
    if (
      parsed.facts.sessionId === session ||
      (file.sessionHint === session && parsed.facts.sessionId === null)
    )
      return { file, ledger: parsed.ledger, mainModel: parsed.facts.mainModel };
  }
  return null;
}

/** The token figures of the file's requests made since `fromMs`; a figure no request knew is null. */
function tokensSince(l: Ledger, fromMs: number): TokenCounts {
  const sums: TokenCounts = { input: null, output: null, cacheRead: null, cacheWrite: null, reasoning: null };
  const add = (k: keyof TokenCounts, n: number) => {
    sums[k] = (sums[k] ?? 0) + n;
  };
  const fromSec = Math.floor((fromMs - MTIME_SLACK_MS) / 1000);
  for (let at = 0; at + RECORD_FIELDS <= l.data.length; at += RECORD_FIELDS) {
    const d = l.data;
    // An untimed record (0) cannot be told to be this run's; a resumed session's older ones are not.
    if (d[at + F.TS]! < fromSec) continue;
    const flags = d[at + F.FLAGS]!;
    if (flags & FLAG.INPUT_KNOWN) add('input', d[at + F.INPUT]!);
    if (flags & FLAG.OUTPUT_KNOWN) add('output', d[at + F.OUTPUT]!);
    if (flags & FLAG.CACHE_READ_KNOWN) add('cacheRead', d[at + F.CACHE_READ]!);
    if (flags & FLAG.CACHE_WRITE_KNOWN)
      add('cacheWrite', d[at + F.CACHE_WRITE_5M]! + d[at + F.CACHE_WRITE_1H]!);
    if (flags & FLAG.REASONING_KNOWN) add('reasoning', d[at + F.REASONING]!);
  }
  return sums;
}

/**
 * Whether two names are one model: the same, or one the other under its provider's prefix (OpenCode's
 * stream names `lab/lab-model`, its session file `lab-model`).
 */
const sameModel = (a: string, b: string): boolean => a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);

const TOKEN_KEYS = ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'] as const;

/** Each stream result, settled by the file's record of the same call where the stream left it open. */
function settleResults(
  stream: readonly StreamResult[],
  file: readonly CallOutcome[],
  problems: TruthProblem[],
): SettledResult[] {
  const byId = new Map(file.map((c) => [c.id, c]));
  return stream.map((r) => {
    const c = byId.get(r.id);
    if (c === undefined) return { id: r.id, name: null, ok: r.ok, from: 'stream', exitCode: null };
    const fileOk = !c.failed;
    if (r.ok === null) return { id: r.id, name: c.name, ok: fileOk, from: 'file', exitCode: c.exitCode };
    if (r.ok !== fileOk) problems.push({ kind: 'result', id: r.id, stream: r.ok, file: fileOk });
    return { id: r.id, name: c.name, ok: r.ok, from: 'stream', exitCode: c.exitCode };
  });
}

/**
 * The outcome with what the session file settled: the results, tokens and model the stream left
 * open, and where each came from. An outcome with no session, or of an agent cctop reads no files
 * of, is handed back with the stream's word alone.
 */
export function settle(i: SettleInput): Outcome {
  const o = i.outcome;
  const p = providerFor(i.agent, i.acpProgram);
  if (p === null || o.session === null) return o;
  let found: ReturnType<typeof findSession>;
  try {
    found = findSession(p, i.env, o.session, i.startedMs);
  } catch {
    // The agent's directories could not be listed (gone, unreadable): nothing to settle from.
    found = null;
  }
  if (found === null) return o;
  const problems: TruthProblem[] = [...o.truth.problems];
  let calls: CallOutcome[] = [];
  try {
    calls = p.callOutcomes?.(found.file.path) ?? [];
  } catch {
    // The file changed under the read: the results stay the stream's, as they were.
  }
  const results = settleResults(i.results, calls, problems);
  const usage = { ...o.usage };
  const usageFromFile: (keyof TokenCounts)[] = [];
  const fromFile = tokensSince(found.ledger, i.startedMs);
  for (const k of TOKEN_KEYS) {
    const n = fromFile[k];
    if (usage[k] === null && n !== null) {
      usage[k] = n;
      usageFromFile.push(k);
    }
  }
  let model = o.model;
  let modelFrom = o.truth.model;
  if (model === null && found.mainModel !== null) {
    model = found.mainModel;
    modelFrom = 'file';
  } else if (model !== null && found.mainModel !== null && !sameModel(model, found.mainModel)) {
    problems.push({ kind: 'model', stream: model, file: found.mainModel });
  }
  const truth: Truth = { file: found.file.path, model: modelFrom, usageFromFile, results, problems };
  return { ...o, model, usage, truth };
}
