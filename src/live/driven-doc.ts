/**
 * Driven runs in the session document: the session a run writes on disk is marked `driven` (with
 * the run's snapshot: which program drives it, what it waits on) and takes the run's state, which is
 * the driver's own word and fresher than the transcript. A run whose session is not on disk yet (the
 * agent has not written its first line, or cctop has not read it) gets a row of its own built from
 * the snapshot, so it shows the moment it is announced.
 *
 * Pure: a new document from the index's document and the runs; the index's objects are not touched,
 * so a run that ends leaves no mark behind. The index's word on which rows changed is told in the
 * marked rows too (`drivenChanges`), so a page kept current by updates sees what a fresh one sees.
 * Not here: following runs (`driven.ts`).
 */
import type { SessionChanges, SessionDoc, SessionDocument, SessionRef } from '../model/document.js';
import { PROVIDERS, type ProviderId } from '../model/facts.js';
import type { SessionState } from '../model/state.js';
import type { RunSnapshot } from '../runtime/runs.js';

/** The harness whose files a driven run writes, when cctop reads that harness. */
export function providerOfRun(run: Pick<RunSnapshot, 'harness'>): ProviderId | null {
  const h = run.harness;
  return h !== null && (PROVIDERS as readonly string[]).includes(h) ? (h as ProviderId) : null;
}

/** How much of an approval's input the state line carries (the session page shows all of it). */
const DETAIL_INPUT_CHARS = 160;

function stateOf(run: RunSnapshot): { state: SessionState; detail: string | null } | null {
  switch (run.phase) {
    case 'starting':
    case 'working':
      return { state: 'working', detail: run.tool };
    case 'waiting': {
      const p = run.pending[0];
      return { state: 'waiting', detail: p ? `${p.tool}: ${p.input.slice(0, DETAIL_INPUT_CHARS)}` : null };
    }
    case 'ended':
      return null;
  }
}

function marked(s: SessionDoc, run: RunSnapshot): SessionDoc {
  const said = stateOf(run);
  return said === null
    ? { ...s, driven: run }
    : {
        ...s,
        driven: run,
        state: said.state,
        stateDetail: said.detail,
        stateSource: 'driven',
        inferred: null,
      };
}

/** A row for a run whose session cctop has not read (yet): what the snapshot says, nothing more. */
function rowOf(run: RunSnapshot, provider: ProviderId): SessionDoc {
  const said = stateOf(run) ?? { state: 'idle' as const, detail: null };
  const t = run.tokens;
  return {
    provider,
    id: run.session ?? `driven:${run.id}`,
    file: '',
    deleted: false,
    subagentFiles: 0,
    project: run.cwd || null,
    title: `driven by ${run.program}`,
    branch: null,
    model: run.model,
    models: run.model ? [run.model] : [],
    reasoningEffort: null,
    permissionMode: null,
    permission: null,
    startedAt: new Date(run.startedAtMs).toISOString(),
    lastActiveAt: new Date(run.startedAtMs).toISOString(),
    state: said.state,
    stateDetail: said.detail,
    stateSource: 'driven',
    running: true,
    process: null,
    pendingTool: run.pending[0]?.tool ?? null,
    inferred: null,
    tokens: {
      input: t?.input ?? null,
      output: t?.output ?? null,
      cacheRead: t?.cacheRead ?? null,
      cacheWrite: t?.cacheWrite ?? null,
      reasoning: null,
    },
    requests: 0,
    cost: {
      usd: run.costUsd,
      source: run.costUsd === null ? null : 'reported',
      included: false,
      unpriced: [],
      byModel: [],
      byHour: null,
      byDay: null,
    },
    context: { used: null, window: null, compactAt: null },
    tools: { calls: run.toolCalls, failed: run.toolFailures, byTool: {} },
    lines: { added: null, removed: null },
    compactions: null,
    aborts: 0,
    rateLimits: null,
    driven: run,
  };
}

/** The document with every run followed: its session marked, or a row of its own. */
export function withDriven(doc: SessionDocument, runs: readonly RunSnapshot[]): SessionDocument {
  if (runs.length === 0) return doc;
  const bySession = new Map<string, RunSnapshot>();
  const unmatched: RunSnapshot[] = [];
  const known = new Set(doc.sessions.map((s) => `${s.provider}\u0000${s.id}`));
  for (const run of runs) {
    const provider = providerOfRun(run);
    const key = provider !== null && run.session !== null ? `${provider}\u0000${run.session}` : null;
    if (key !== null && known.has(key)) bySession.set(key, run);
    else unmatched.push(run);
  }
  const sessions = doc.sessions.map((s) => {
    const run = bySession.get(`${s.provider}\u0000${s.id}`);
    return run === undefined ? s : marked(s, run);
  });
  for (const run of unmatched) {
    const provider = providerOfRun(run);
    if (provider !== null && run.phase !== 'ended') sessions.push(rowOf(run, provider));
  }
  return { ...doc, sessions, driven: [...runs] };
}

const keyOf = (s: SessionRef): string => `${s.provider}\u0000${s.id}`;

/**
 * The index's changes, told as `doc` (the document with the runs) holds those rows now. The index
 * names the rows it built again as it built them, without the runs' marks: a page that applied such
 * a row in place of a driven session's lost the run's card and the driver's state, and got them back
 * only when the run next moved (a run waiting for an answer does not). That happened whenever cctop
 * read more of a driven session's transcript after the page had opened. So a changed row goes out
 * marked, and a row the index dropped while a run still writes it goes out as the run's own row.
 *
 * Exact only while the runs are the ones `doc` was made with: a run that moved changes rows the
 * index did not name, and is told as everything (`engine.ts`).
 */
export function drivenChanges(changes: SessionChanges, doc: SessionDocument): SessionChanges {
  if (changes.kind === 'all' || doc.driven === undefined || doc.driven.length === 0) return changes;
  const rows = new Map(doc.sessions.map((s) => [keyOf(s), s]));
  const told = new Set<string>();
  const changed: SessionDoc[] = [];
  const removed: SessionRef[] = [];
  for (const r of [...changes.changed, ...changes.removed]) {
    const key = keyOf(r);
    if (told.has(key)) continue;
    told.add(key);
    const row = rows.get(key);
    if (row === undefined) removed.push({ provider: r.provider, id: r.id });
    else changed.push(row);
  }
  return { kind: 'some', changed, removed };
}
