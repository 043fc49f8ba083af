/**
 * From parsed files to session records: group files into sessions, deduplicate billed requests
 * across files, price them, resolve titles and context. A record holds what the files say, not what
 * the clock makes of it: states and spend windows are read when a session is shown (`render.ts`).
 *
 * Pure apart from the providers' small settings lookups (a Claude project pinning a 1M window).
 */
import { addLedger, type CostClock, emptyTotals, spendBuckets, type Totals } from '../model/cost.js';
import { Digest } from '../model/digest.js';
import type { ModelCost, Plan } from '../model/document.js';
import type { FileFacts, ToolTally } from '../model/facts.js';
import { money } from '../model/money.js';
import type { PriceBook } from '../model/pricing.js';
import type { ProblemLog } from '../model/problems.js';
import type { LocalTime } from '../model/time.js';
import { compactRatioOf, sessionWindow, windowOrFallback } from '../providers/fence.js';
import { bundledBy, placeById } from '../providers/places.js';
import type { Env, ProviderPlace, WindowQuery } from '../providers/types.js';
import {
  FAST_SUFFIX,
  type KeptProblem,
  type ProblemSink,
  problemsOfFile,
  unpricedProblems,
} from './build-problems.js';
import { byPath, dedupeGroups, type Group, group, groupKey, isSubagent, type ParsedFile } from './group.js';
import { sortSessions } from './render.js';
import type { SessionFacts, SessionRecord } from './session-record.js';
import { deletedSummaries, type Summaries, summaryOf, titlesOf } from './titles.js';

export { addProblem, type KeptProblem, problemsOfFile, unpricedProblems } from './build-problems.js';
export {
  byPath,
  dedupeGroups,
  type Group,
  group,
  groupKey,
  isSubagent,
  type ParsedFile,
  sessionKey,
} from './group.js';
export { deletedSummaries, NO_SUMMARIES, type Summaries } from './titles.js';

export interface BuildOptions {
  env: Env;
  plan: Plan;
  book: PriceBook;
  time: LocalTime;
  nowMs: number;
  sinceMs: number | null;
  untilMs: number | null;
  problems: ProblemLog;
  /** Filled with what the build found and decided, to keep in the index for the next run. */
  record?: BuildRecord;
}

/** What a build decided beyond the document: kept so the next run can rebuild only what changed. */
export interface BuildRecord {
  /** Every problem found, including those not due yet (a partial line). */
  problems: KeptProblem[];
  groups: Group[];
  masks: Map<ParsedFile, Uint8Array>;
  /** The summaries files on disk give (`Summaries.onDisk`): what the next run's patch titles by. */
  summaries: Map<number, string>;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function mergeTools(files: readonly ParsedFile[]): SessionFacts['tools'] {
  const byTool: Record<string, ToolTally> = {};
  let calls = 0;
  let failed: number | null = null;
  for (const p of files) {
    for (const [name, t] of Object.entries(p.result.facts.tools)) {
      const into = byTool[name] ?? { calls: 0, failed: null };
      byTool[name] = into;
      into.calls += t.calls;
      calls += t.calls;
      if (t.failed !== null) {
        into.failed = (into.failed ?? 0) + t.failed;
        failed = (failed ?? 0) + t.failed;
      }
    }
    if (p.result.facts.recordsOutcomes && failed === null) failed = 0;
  }
  return { calls, failed, byTool };
}

function sumNullable(values: (number | null)[]): number | null {
  let out: number | null = null;
  for (const v of values) if (v !== null) out = (out ?? 0) + v;
  return out;
}

/**
 * Records built before (by a long-running cctop's last pass, or kept in the index): a session whose
 * files, dedupe outcome and title are what they were is not built again.
 */
export type SessionCache = Map<string, SessionRecord>;

/** A cheap fingerprint of which records of a file count. */
function maskHash(mask: Uint8Array | undefined): string {
  if (!mask) return '-';
  // Signatures are kept between runs: two different masks must not easily hash alike.
  const d = new Digest().int(mask.length);
  for (let i = 0; i < mask.length; i++) if (mask[i] === 1) d.int(i);
  return d.hex();
}

/** What a build decides sessions from, before any is titled. */
interface BuildInputs {
  o: BuildOptions;
  clock: CostClock;
  masks: Map<ParsedFile, Uint8Array>;
  summaries: Summaries;
}

interface BuildContext extends BuildInputs {
  /** Each session's title, redacted (`titlesOf`). */
  titles: ReadonlyMap<Group, string | null>;
}

/** When a session began and was last active (records' times), and its files' newest write. */
function spanOf(g: Group): { firstMs: number | null; lastMs: number | null; mtime: number } {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let mtime = 0;
  for (const p of g.files) {
    first = Math.min(first, p.result.facts.firstMs ?? Number.POSITIVE_INFINITY);
    last = Math.max(last, p.result.facts.lastMs ?? Number.NEGATIVE_INFINITY);
    mtime = Math.max(mtime, p.result.mtimeMs);
  }
  return {
    firstMs: Number.isFinite(first) ? first : null,
    lastMs: Number.isFinite(last) ? last : null,
    mtime,
  };
}

/** Whether `--since`/`--until` leave anything of a session. */
function inRange(span: ReturnType<typeof spanOf>, requests: number, o: BuildOptions): boolean {
  if (o.sinceMs !== null && (span.lastMs === null || span.lastMs < o.sinceMs) && requests === 0) return false;
  return !(o.untilMs !== null && span.firstMs !== null && span.firstMs >= o.untilMs);
}

/** A session's cost facts from its totals, and the tokens spent on models without a price. */
function costOf(
  totals: Totals,
  included: boolean,
): { cost: SessionFacts['cost']; unpriced: [string, number][] } {
  const unpriced: [string, number][] = [];
  const byModel: ModelCost[] = [...totals.byModel.values()].map((m) => ({
    model: m.model,
    // Only said when true, so a document without fast mode reads as it did.
    ...(m.fast ? { fast: true } : {}),
    tokens: m.tokens,
    usd: m.usd === null && m.reportedUsd === 0 ? null : money((m.usd ?? 0) + m.reportedUsd),
    requests: m.requests,
  }));
  for (const m of byModel) {
    if (m.usd !== null) continue;
    const t = m.tokens;
    // A fast request is unpriced when its model has no fast-mode multiple (`model/pricing-speed.ts`).
    unpriced.push([
      m.fast === true ? `${m.model}${FAST_SUFFIX}` : m.model,
      (t.input ?? 0) + (t.output ?? 0) + (t.cacheRead ?? 0) + (t.cacheWrite ?? 0),
    ]);
  }
  const usd = totals.priced ? money(totals.estimatedUsd + totals.reportedUsd) : null;
  const source: SessionFacts['cost']['source'] =
    usd === null
      ? null
      : totals.reportedUsd > 0 && totals.estimatedUsd > 0
        ? 'mixed'
        : totals.reportedUsd > 0
          ? 'reported'
          : 'estimated';
  const cost = {
    usd,
    source,
    included: included && usd !== null,
    unpriced: unpriced.map(([m]) => m),
    byModel,
  };
  return { cost, unpriced };
}

/** How full the session's context is: the newest main-thread prompt against its window. */
function contextOf(
  main: ParsedFile,
  model: string | null,
  provider: ProviderPlace,
  o: BuildOptions,
): SessionFacts['context'] {
  const f = main.result.facts;
  const used = f.context?.prompt ?? null;
  const catalogue = model ? o.book.lookup(model, provider.vendor) : null;
  const q: WindowQuery = {
    model,
    used,
    reportedWindow: f.reportedWindow,
    catalogueWindow: catalogue?.kind === 'priced' ? catalogue.pricing.contextWindow : null,
    cwd: f.cwd,
    root: main.file.root,
  };
  // A lookup that throws is reported with the main file's problems (`fileProblems`), every build alike.
  const window = windowOrFallback(sessionWindow(provider, q, main.file.path), q);
  const ratio = compactRatioOf(provider, o.env);
  const compactAt = window === null ? null : ratio === null ? window : Math.round(window * ratio);
  return { used, window, compactAt };
}

/** One session's record, or null when `--since`/`--until` leave nothing of it. */
function buildSession(g: Group, x: BuildContext): SessionRecord | null {
  const { o, clock, masks } = x;
  const provider = placeById(g.provider);
  const main = g.main ?? g.files[0]!;
  const f: FileFacts = main.result.facts;
  const totals: Totals = emptyTotals();
  for (const p of g.files)
    addLedger(totals, p.result.ledger, masks.get(p) ?? null, o.book, provider.vendor, clock);
  const span = spanOf(g);
  if (!inRange(span, totals.requests, o)) return null;
  const included = bundledBy(o.plan, g.provider);
  const { cost, unpriced } = costOf(totals, included);
  const model = f.mainModel ?? g.files.find((p) => p.result.facts.mainModel)?.result.facts.mainModel ?? null;
  const facts: SessionFacts = {
    provider: g.provider,
    id: g.id,
    file: main.file.path,
    deleted: g.files.every((p) => p.deleted === true),
    subagentFiles: g.files.filter(isSubagent).length,
    project: f.cwd,
    title: x.titles.get(g) ?? null,
    branch: f.gitBranch,
    model,
    models: [...new Set(g.files.flatMap((p) => p.result.facts.models))],
    reasoningEffort: f.reasoningEffort,
    permissionMode: f.permissionMode,
    permission: f.permission,
    startedAt: iso(span.firstMs),
    lastActiveAt: iso(span.lastMs),
    tokens: totals.tokens,
    requests: totals.requests,
    cost,
    context: contextOf(main, model, provider, o),
    tools: mergeTools(g.files),
    lines: {
      added: sumNullable(g.files.map((p) => p.result.facts.linesAdded)),
      removed: sumNullable(g.files.map((p) => p.result.facts.linesRemoved)),
    },
    compactions: f.compactions,
    aborts: f.aborts,
    rateLimits: f.rateLimits,
  };
  return {
    key: groupKey(g),
    signature: signatureOf(g, x),
    facts,
    spend: spendBuckets(totals),
    usage: totals.cells.list(),
    live: { signal: f.live, mtime: span.mtime, lastMs: span.lastMs },
    unpriced,
  };
}

/** What a built session must still match to be reused: its files, their dedupe outcome, its title. */
function signatureOf(g: Group, x: BuildInputs): string {
  const o = x.o;
  const epoch = `${o.plan}|${o.sinceMs}|${o.untilMs}|${o.time.timeZone}`;
  return `${epoch}|${summaryOf(g, x.summaries) ?? ''}|${g.files
    .map(
      (p) =>
        `${p.file.path}:${p.result.size}:${p.result.mtimeMs}:${p.result.offset}:${p.deleted === true}:${maskHash(x.masks.get(p))}`,
    )
    .join('|')}`;
}

/** Build the given groups (their masks decided elsewhere); null for a session the filters leave out. */
export function buildGroups(
  groups: readonly Group[],
  masks: Map<ParsedFile, Uint8Array>,
  summaries: Summaries,
  o: BuildOptions,
  titled?: ReadonlyMap<string, string | null>,
): Map<string, SessionRecord | null> {
  const titles = titlesOf(groups, summaries, titled);
  const x: BuildContext = { o, clock: clockOf(o), masks, summaries, titles };
  const out = new Map<string, SessionRecord | null>();
  for (const g of groups) out.set(groupKey(g), buildSession(g, x));
  return out;
}

const clockOf = (o: BuildOptions): CostClock => ({ time: o.time, sinceMs: o.sinceMs, untilMs: o.untilMs });

/** Where a build's problems go. */
export const sinkOf = (o: BuildOptions): ProblemSink => ({
  nowMs: o.nowMs,
  problems: o.problems,
  ...(o.record ? { found: o.record.problems } : {}),
});

/**
 * Every session's record, newest first; reuses from `cache` each record whose signature still holds
 * and leaves `cache` holding exactly this build's records.
 */
export function buildRecords(
  files: readonly ParsedFile[],
  o: BuildOptions,
  cache: SessionCache = new Map(),
): SessionRecord[] {
  // In path order, as a patch adds them: problems list (and, past the bound, drop) alike either way.
  for (const p of [...files].sort(byPath)) problemsOfFile(p, sinkOf(o));

  const groups = group(files);
  const masks = dedupeGroups(groups);

  // Claude writes summaries into whichever file is current; they name a session by its leaf message.
  const onDisk = new Map<number, string>();
  for (const p of files.filter((f) => f.deleted !== true).sort((a, b) => a.file.mtimeMs - b.file.mtimeMs)) {
    for (const [leaf, text] of p.result.facts.titles.summaries) onDisk.set(leaf, text);
  }
  const summaries: Summaries = { onDisk, deleted: deletedSummaries(files) };
  if (o.record) {
    o.record.groups = groups;
    o.record.masks = masks;
    o.record.summaries = onDisk;
  }

  const inputs: BuildInputs = { o, clock: clockOf(o), masks, summaries };
  // A session whose inputs are those of the record kept for it is not built again (nor titled).
  const hits = groups.map((g) => {
    const hit = cache.get(groupKey(g));
    return hit !== undefined && hit.signature === signatureOf(g, inputs) ? hit : null;
  });
  const x: BuildContext = {
    ...inputs,
    titles: titlesOf(
      groups.filter((_, i) => hits[i] === null),
      summaries,
    ),
  };
  const records: SessionRecord[] = [];
  const present = new Set<string>();
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i]!;
    const key = groupKey(g);
    present.add(key);
    const built = hits[i] ?? buildSession(g, x);
    if (built === null) {
      cache.delete(key);
      continue;
    }
    cache.set(key, built);
    records.push(built);
  }
  for (const key of cache.keys()) if (!present.has(key)) cache.delete(key);
  unpricedProblems(records, sinkOf(o));
  return sortRecords(records);
}

/** Records in the document's order (newest activity first). */
export const sortRecords = (records: SessionRecord[]): SessionRecord[] => {
  const keyed = records.map((r) => ({
    r,
    lastActiveAt: r.facts.lastActiveAt,
    id: r.facts.id,
    provider: r.facts.provider,
  }));
  return sortSessions(keyed).map((k) => k.r);
};
