/**
 * The bare `cctop`'s one-shot outputs: `--list` (the table) and `--json` (the session document), with
 * the sessions of other machines (`--host`) beside this one's when any are named. Those are read while
 * the local index refreshes, so a slow host costs its own wait, not the sum of both.
 *
 * Not here: the live table (`../tui/`), or how a list is drawn (`list.ts`).
 */

import type { ListedSession } from '../../index/held.js';
import type { LiveSession } from '../../live/collisions-once.js';
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import type { RunSnapshot } from '../../model/driven-run.js';
import type { QuotaFigure } from '../../model/quota.js';
import { type Paint, paint } from './color.js';
import { namesHosts } from './hosts-named.js';
import type { Io } from './main.js';
import type { CommonOptions } from './options.js';
import { nothingListed, snapshot, warmSnapshot } from './snapshots.js';

/** Other machines being read, or null when nothing names any (see `namesHosts`). */
async function remoteOf(io: Io, values: Record<string, unknown>, demo: boolean) {
  if (demo || !namesHosts(io, values)) return null;
  return (await import('./hosts.js')).startRemote(io, values, demo);
}

/**
 * The runs `cctop/drive` drives now, as the live views see them (`runtime/run-files.ts`), narrowed by
 * the flags that leave sessions out: a run of a harness `--harness` leaves out, or one started after
 * `--until`, is not listed. None for the demo, whose sessions no program drives.
 */
async function drivenRuns(o: CommonOptions, io: Io): Promise<RunSnapshot[]> {
  if (o.demo) return [];
  const runs = (await import('../../runtime/run-files.js')).announcedRuns(io.env);
  if (runs.length === 0) return runs;
  const { providerOfRun } = await import('../../live/driven-doc.js');
  return runs.filter((r) => {
    const p = providerOfRun(r);
    return (
      (o.providers === null || (p !== null && o.providers.includes(p))) &&
      (o.untilMs === null || r.startedAtMs <= o.untilMs)
    );
  });
}

/** The document with the driven runs joined as a live view joins them: marked sessions, rows of their own. */
async function withRuns(doc: SessionDocument, runs: readonly RunSnapshot[]): Promise<SessionDocument> {
  if (runs.length === 0) return doc;
  return (await import('../../live/driven-doc.js')).withDriven(doc, runs);
}

export async function listCommand(
  io: Io,
  o: CommonOptions,
  values: Record<string, unknown>,
): Promise<number> {
  // Other machines (`--host`) are read while this one's index refreshes.
  const remote = await remoteOf(io, values, o.demo);
  const columns = io.isTty ? (io.columns ?? 80) : Number(io.env.COLUMNS) || 80;
  const colors = paint(io.isTty, io.env);
  const runs = await drivenRuns(o, io);
  // Nothing changed since the last answer: the rows from the warm snapshot's kept facts, no document
  // built. Known limit: a driven run's mark and state are joined to a document, which the snapshot's
  // kept facts are not: while a run is driven, the list is answered by the index.
  const warm = remote === null && runs.length === 0 ? await warmSnapshot(o, io.env) : null;
  const listed = warm !== null && warm.count > 0 ? warm.listed() : [];
  // Known limit: a `cctop run` mark comes from the processes, which the snapshot's kept facts do not
  // hold: while `cctop run` holds an agent, the list is answered by the index.
  const warmServes =
    warm !== null &&
    listed.length > 0 &&
    (await import('../../runtime/pty-runs.js')).ptyRuns(io.env).length === 0;
  if (warm !== null && warmServes) {
    const lines = await listedLines(o, io, listed, columns, colors);
    if (o.filters.length === 0) {
      const { budgetLine } = await import('./money.js');
      const line = await budgetLine(io, () => warm.usage(), warm.time, colors);
      if (line !== null) lines.push(line);
    }
    io.out(lines.join('\n'));
    return 0;
  }
  const s = await snapshot(o, io.env);
  let lines: string[];
  if (remote === null && runs.length === 0) {
    // Only this machine's sessions, none driven: the rows from each session's facts and live fields,
    // as from the warm snapshot, with no session document made (no spend, usage or windows read).
    const local = s.index.listed();
    if (local.length === 0) {
      io.out(await nothingListed(s, o, io.env));
      return 0;
    }
    lines = await listedLines(o, io, local, columns, colors);
  } else {
    const local = await withRuns(s.document, runs);
    const doc = remote ? await remote.merged(local) : local;
    if (doc.sessions.length === 0) {
      io.out(await nothingListed(s, o, io.env));
      return 0;
    }
    const { renderList } = await import('./list.js');
    const nowMs = Date.now();
    lines = renderList(doc, columns, colors, nowMs, await listQuota(o, io, s.document.sessions, nowMs));
  }
  // Budgets count every session: a list some flag narrowed does not hold what they count.
  if (o.filters.length === 0 && !o.demo) {
    const { budgetLine } = await import('./money.js');
    const line = await budgetLine(io, () => s.index.usage(), s.time, colors);
    if (line !== null) lines.push(line);
  }
  // The table as one answer, written at once.
  io.out(lines.join('\n'));
  return 0;
}

/** The table of sessions listed from their facts (`ListedSession`), with the quota in its headings. */
async function listedLines(
  o: CommonOptions,
  io: Io,
  listed: readonly ListedSession[],
  columns: number,
  colors: Paint,
): Promise<string[]> {
  const { renderRows, rowOfFacts } = await import('./list.js');
  const nowMs = Date.now();
  // Codex's quota is its newest rollout's rate limits, kept with each session's --list facts.
  const quota = await listQuota(o, io, listed, nowMs);
  return renderRows(
    listed.map((f) => rowOfFacts(f, f)),
    o.plan,
    columns,
    colors,
    nowMs,
    quota,
  );
}

/**
 * The quota in the list's headings: the agents' own figures, without the pace (the list shows none).
 * Loaded only here, so `--json` and the other one-shots do not load the quota readers.
 */
async function listQuota(
  o: CommonOptions,
  io: Io,
  sessions: readonly Pick<SessionDoc, 'provider' | 'id' | 'running' | 'rateLimits' | 'lastActiveAt'>[],
  nowMs: number,
): Promise<QuotaFigure[]> {
  if (o.demo) return [];
  const { gatherQuota } = await import('../../quota/gather.js');
  return gatherQuota({
    env: io.env,
    sessions,
    usage: [],
    providers: o.providers,
    nowMs,
    startOfTodayMs: nowMs,
  }).quota;
}

export async function jsonCommand(
  io: Io,
  o: CommonOptions,
  values: Record<string, unknown>,
): Promise<number> {
  const remote = await remoteOf(io, values, o.demo);
  const running: LiveSession[] = [];
  const runs = await drivenRuns(o, io);
  // Nothing changed since the last answer: printed from the warm snapshot, the index not opened. A
  // driven run is joined to a document (as in the live views), so while one runs the index answers.
  const warm = remote === null && runs.length === 0 ? await warmSnapshot(o, io.env, running) : null;
  if (warm !== null && warm.count > 0) {
    const { collisionsFor } = await import('../../live/collisions-once.js');
    const collisions = await collisionsFor(running, () => warm.titles(), { nowMs: Date.now() });
    if (io.write) io.write([warm.json({ collisions }, '\n')]);
    else io.out(warm.json({ collisions }));
    return 0;
  }
  running.length = 0;
  const s = await snapshot(o, io.env, false, running);
  const { collisionsFor } = await import('../../live/collisions-once.js');
  // Titles from each session's facts (`listed`): no session document is made for them.
  const collisions = await collisionsFor(running, () => s.index.listed(), { nowMs: Date.now() });
  if (remote || runs.length > 0) {
    const { asciiJson } = await import('../../index/ascii.js');
    const local = await withRuns(s.document, runs);
    io.out(asciiJson(JSON.stringify({ ...(remote ? await remote.merged(local) : local), collisions })));
  } else if (io.write) io.write(s.jsonParts({ collisions }, '\n'));
  else io.out(s.json({ collisions }));
  return 0;
}
