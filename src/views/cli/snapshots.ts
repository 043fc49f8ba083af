/**
 * The one-shot commands' picture: the index's snapshot with processes matched and the agents' own
 * word on states applied, and what to say when it holds nothing.
 *
 * Not here: printing any of it (each command's module).
 */
import type { Snapshot } from '../../index/snapshot.js';
import type { WarmSnapshot } from '../../index/warm-snapshot.js';
import type { LiveSession } from '../../live/collisions-once.js';
import type { Annotator } from '../../model/document.js';
import { home } from '../../providers/fsutil.js';
import type { Env } from '../../providers/types.js';
import { demoEnv } from './demo.js';
import { counted, tildify } from './format.js';
import type { CommonOptions } from './options.js';

/**
 * Processes matched to sessions and the agents' own word on states (the hook journal, the
 * registries), or for the demo (whose sessions no process runs) states settled without.
 */
async function annotator(demo: boolean, env: Env, inferredOnly: boolean): Promise<Annotator> {
  const { processAnnotator, withoutProcesses } = await import('../../live/annotate.js');
  if (demo) return withoutProcesses();
  const { ptyRuns } = await import('../../runtime/pty-runs.js');
  // The agents `cctop run` holds, marked in every view.
  const runs = () => ptyRuns(env);
  if (inferredOnly) return processAnnotator(undefined, undefined, null, runs);
  if (!(await import('../../live/agent-word.js')).agentsMaySpeak(env))
    return processAnnotator(undefined, undefined, null, runs);
  const { AgentStates } = await import('../../live/agent-state.js');
  return processAnnotator(undefined, undefined, AgentStates.fromJournal(env).overlay, runs);
}

/** Keeping answers warm that waits for the running command's answer to be printed; null when none does. */
let keepAfter: (() => Promise<void>)[] | null = null;

/**
 * Run a one-shot command that prints one answer (`--json`, `--list`): the answers its snapshots take
 * are kept warm (`index/keep-one-shot.ts`) once it returns, after its answer is written, rather than
 * before it is printed. Only around a command that ends: a long-running one (`mcp`) would hold them.
 */
export async function keepingAfter<T>(command: () => Promise<T>): Promise<T> {
  const jobs: (() => Promise<void>)[] = [];
  keepAfter = jobs;
  try {
    return await command();
  } finally {
    keepAfter = null;
    for (const job of jobs) await job();
  }
}

/** `needFiles` for what needs every parsed file (doctor, a report); `running` gets the running sessions. */
export async function snapshot(
  o: CommonOptions,
  env: Env,
  needFiles = false,
  running?: LiveSession[],
  /** The states as inferred, without the agents' word (`cctop explain` weighs that itself). */
  inferredOnly = false,
): Promise<Snapshot> {
  const { takeSnapshot } = await import('../../index/snapshot.js');
  let annotate = await annotator(o.demo, env, inferredOnly);
  if (running) annotate = (await import('../../live/collisions-once.js')).noteRunning(annotate, running);
  const progress = (await import('./progress.js')).stderrProgress();
  const s = await takeSnapshot({
    env: o.demo ? demoEnv(env) : env,
    plan: o.plan,
    providers: o.providers,
    timeZone: o.timeZone,
    sinceMs: o.sinceMs,
    untilMs: o.untilMs,
    useIndex: o.useIndex,
    threads: o.threads,
    needFiles,
    annotate,
    ...(progress ? { onBuilding: progress.onBuilding } : {}),
    ...(keepAfter === null ? {} : { keepLater: keepLaterIn(keepAfter) }),
  }).finally(() => progress?.done());
  if (s.notice) process.stderr.write(`cctop: ${s.notice}\n`);
  return s;
}

const keepLaterIn =
  (jobs: (() => Promise<void>)[]) =>
  (keep: () => Promise<void>): void => {
    jobs.push(keep);
  };

/**
 * The warm snapshot of these options with the live fields joined, when it is fresh (see
 * `index/warm.ts`); null when it declines (the caller then asks the index), or for what it does not
 * serve: `--no-cache`, `--demo`.
 */
export async function warmSnapshot(
  o: CommonOptions,
  env: Env,
  running?: LiveSession[],
): Promise<WarmSnapshot | null> {
  if (!o.useIndex || o.demo) return null;
  const { readWarm } = await import('../../index/warm.js');
  let annotate = await annotator(false, env, false);
  if (running) annotate = (await import('../../live/collisions-once.js')).noteRunning(annotate, running);
  const r = readWarm({
    env,
    plan: o.plan,
    providers: o.providers,
    timeZone: o.timeZone,
    sinceMs: o.sinceMs,
    untilMs: o.untilMs,
    nowMs: Date.now(),
    annotate,
  });
  return r.kind === 'answered' ? r.snapshot : null;
}

export function nothingFound(s: Snapshot, env: Env): string {
  const h = home(env);
  const where = s.discovery.roots.map((r) => tildify(r.path, h)).join(', ');
  return `No agent sessions found. Looked in ${where}. Run \`cctop --demo\` to see what cctop shows, or \`cctop doctor\` for details.`;
}

/** The same options without the flags that leave sessions out. */
export const unfiltered = (o: CommonOptions): CommonOptions => ({
  ...o,
  providers: null,
  sinceMs: null,
  untilMs: null,
  filters: [],
});

/** `no session matches --harness gemini (12 sessions without this filter)` */
export function nothingMatches(filters: readonly string[], total: number): string {
  const sessions = `${counted(total, 'session')}`;
  return `no session matches ${filters.join(' ')} (${sessions} without ${filters.length === 1 ? 'this filter' : 'these filters'})`;
}

/**
 * What to say when nothing is listed: that the filters matched nothing and how many sessions there
 * are without them, or, when there are none at all, where cctop looked.
 */
export async function nothingListed(s: Snapshot, o: CommonOptions, env: Env): Promise<string> {
  if (o.filters.length === 0) return nothingFound(s, env);
  const all = await snapshot(unfiltered(o), env);
  const total = all.document.sessions.length;
  if (total === 0) return nothingFound(all, env);
  const text = nothingMatches(o.filters, total);
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}
