/**
 * The bare `cctop`'s one-shot outputs: `--list` (the table) and `--json` (the session document), with
 * the sessions of other machines (`--host`) beside this one's when any are named. Those are read while
 * the local index refreshes, so a slow host costs its own wait, not the sum of both.
 *
 * Not here: the live table (`../tui/`), or how a list is drawn (`list.ts`).
 */
import type { LiveSession } from '../../live/collisions-once.js';
import type { SessionDoc } from '../../model/document.js';
import type { QuotaFigure } from '../../model/quota.js';
import { paint } from './color.js';
import { namesHosts } from './hosts-named.js';
import type { Io } from './main.js';
import type { CommonOptions } from './options.js';
import { nothingListed, snapshot, warmSnapshot } from './snapshots.js';

/** Other machines being read, or null when nothing names any (see `namesHosts`). */
async function remoteOf(io: Io, values: Record<string, unknown>, demo: boolean) {
  if (demo || !namesHosts(io, values)) return null;
  return (await import('./hosts.js')).startRemote(io, values, demo);
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
  // Nothing changed since the last answer: the rows from the warm snapshot's kept facts, no document built.
  const warm = remote === null ? await warmSnapshot(o, io.env) : null;
  const listed = warm !== null && warm.count > 0 ? warm.listed() : [];
  // Known limit: a `cctop run` mark comes from the processes, which the snapshot's kept facts do not
  // hold: while `cctop run` holds an agent, the list is answered by the index.
  const warmServes =
    warm !== null &&
    listed.length > 0 &&
    (await import('../../runtime/pty-client.js')).ptyRuns(io.env).length === 0;
  if (warm !== null && warmServes) {
    const { renderRows, rowOfFacts } = await import('./list.js');
    const rows = listed.map((f) => rowOfFacts(f, f));
    const nowMs = Date.now();
    // Codex's quota is its newest rollout's rate limits, kept with each session's --list facts.
    const quotaSessions = listed.map((f) => ({ ...f, running: null }));
    const lines = renderRows(
      rows,
      o.plan,
      columns,
      colors,
      nowMs,
      await listQuota(o, io, quotaSessions, nowMs),
    );
    if (o.filters.length === 0) {
      const { budgetLine } = await import('./money.js');
      const line = await budgetLine(io, () => warm.usage(), warm.time, colors);
      if (line !== null) lines.push(line);
    }
    io.out(lines.join('\n'));
    return 0;
  }
  const s = await snapshot(o, io.env);
  const doc = remote ? await remote.merged(s.document) : s.document;
  if (doc.sessions.length === 0) {
    io.out(await nothingListed(s, o, io.env));
    return 0;
  }
  const { renderList } = await import('./list.js');
  const nowMs = Date.now();
  const lines = renderList(doc, columns, colors, nowMs, await listQuota(o, io, s.document.sessions, nowMs));
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
  // Nothing changed since the last answer: printed from the warm snapshot, the index not opened.
  const warm = remote === null ? await warmSnapshot(o, io.env, running) : null;
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
  const collisions = await collisionsFor(running, () => s.document.sessions, { nowMs: Date.now() });
  if (remote) {
    const { asciiJson } = await import('../../index/ascii.js');
    io.out(asciiJson(JSON.stringify({ ...(await remote.merged(s.document)), collisions })));
  } else if (io.write) io.write([...s.jsonChunks({ collisions }), '\n']);
  else io.out(s.json({ collisions }));
  return 0;
}
