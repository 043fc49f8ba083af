/**
 * From parsed files to the session document: group files into sessions, deduplicate billed requests
 * across files, price them, resolve titles, context and state.
 *
 * Pure apart from the providers' small settings lookups (a Claude project pinning a 1M window).
 */
import { addLedger, type CostClock, emptyTotals, type Totals } from '../model/cost.js';
import { dedupe } from '../model/dedupe.js';
import { Digest } from '../model/digest.js';
import {
  DOCUMENT_VERSION,
  type ModelCost,
  type Plan,
  type SessionDoc,
  type SessionDocument,
} from '../model/document.js';
import type { FileFacts, ProviderId, ToolTally } from '../model/facts.js';
import { BAD_LINE_REASON } from '../model/json.js';
import type { PriceBook } from '../model/pricing.js';
import type { Problem, ProblemLog } from '../model/problems.js';
import { stateNow } from '../model/state.js';
import type { LocalTime } from '../model/time.js';
import { compactRatioOf, sessionWindow, windowOrFallback } from '../providers/fence.js';
import { placeById } from '../providers/places.js';
import type { Env, ParseResult, SourceFile, WindowQuery } from '../providers/types.js';
import { type KeptProblem, sortSessions } from './built.js';

export interface ParsedFile {
  file: SourceFile;
  result: ParseResult;
  /** The file is gone; its facts live on in the index so past spend does not shrink. */
  deleted?: boolean;
}

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
  summaries: Map<number, string>;
}

/** A last line still without its newline this long after the file was written is a truncated file. */
const PARTIAL_LINE_GRACE_MS = 60_000;

export interface Group {
  provider: ProviderId;
  id: string;
  main: ParsedFile | null;
  files: ParsedFile[];
}

export function sessionKey(p: ParsedFile): string {
  return p.file.sessionHint ?? p.result.facts.sessionId ?? p.file.path;
}

export function group(files: readonly ParsedFile[]): Group[] {
  const groups = new Map<string, Group>();
  for (const p of files) {
    const id = sessionKey(p);
    const key = `${p.file.provider}\u0000${id}`;
    let g = groups.get(key);
    if (!g) {
      g = { provider: p.file.provider, id, main: null, files: [] };
      groups.set(key, g);
    }
    if (p.file.role === 'main') {
      // Two main files for one session are copies (Codex archives a rollout it also keeps): the
      // larger one is the more complete; of two the same size, the first by path.
      const better =
        g.main === null ||
        p.file.size > g.main.file.size ||
        (p.file.size === g.main.file.size && p.file.path < g.main.file.path);
      if (better) g.main = p;
      else continue;
    }
    g.files.push(p);
  }
  for (const g of groups.values()) {
    if (g.main) g.files = g.files.filter((p) => p.file.role !== 'main' || p === g.main);
    // By path, so that a session reads the same whichever order its files were found or read in
    // (a cold read, a full build, a patch): its models, tools and spend by model list in that order.
    g.files.sort(byPath);
  }
  return [...groups.values()];
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** Files in one order whatever order they arrive in. */
export const byPath = (a: ParsedFile, b: ParsedFile): number =>
  a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0;

function mergeTools(files: readonly ParsedFile[]): SessionDoc['tools'] {
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

/** Add `problem` now or, with `after`, once the clock passes it; tell `found` either way. */
export function addProblem(
  problem: Problem,
  after: number | null,
  nowMs: number,
  problems: ProblemLog,
  found: KeptProblem[] | undefined,
): void {
  found?.push({ problem, after });
  if (after === null || nowMs > after) problems.add(problem);
}

/**
 * What `cctop doctor` says of a file's bad lines: how many, and where the first is and why. Never
 * what it says: the file may be a link to anything, and problems are printed and served.
 */
function badLinesDetail(f: FileFacts): string {
  const lines = `${f.badLines} of ${f.lines} line${f.lines === 1 ? '' : 's'} could not be read`;
  const first = f.firstBad;
  if (first === null) return lines;
  const where = first.file === null ? `line ${first.line}` : `line ${first.line} of ${first.file}`;
  return `${lines}; the first, ${where}, ${BAD_LINE_REASON[first.reason]}`;
}

function fileProblems(p: ParsedFile, o: BuildOptions): void {
  const f = p.result.facts;
  const path = p.file.path;
  const add = (problem: Problem, after: number | null = null) =>
    addProblem(problem, after, o.nowMs, o.problems, o.record?.problems);
  if (f.badLines > 0) {
    add({
      kind: 'bad-lines',
      path,
      count: f.badLines,
      detail: badLinesDetail(f),
    });
  }
  if (f.oversizedLines > 0) {
    add({
      kind: 'oversized-lines',
      path,
      count: f.oversizedLines,
      detail: 'lines over the line bound were skipped',
    });
  }
  if (f.inconsistentUsage > 0) {
    add({
      kind: 'inconsistent-usage',
      path,
      count: f.inconsistentUsage,
      detail: 'token counts that do not add up (cached more than input); clamped',
    });
  }
  if (p.file.role === 'main') {
    // Sizing the session reads the project's settings (Claude), found by the `cwd` the transcript
    // names: one no file can have (a NUL, a 300-character name) or may not be entered makes that
    // throw. Asked here, with the file's other problems, so that a full build, a patch and a run
    // answering from the index all list it alike; the session is sized without the settings.
    const w = sessionWindow(
      placeById(p.file.provider),
      {
        model: f.mainModel,
        used: f.context?.prompt ?? null,
        reportedWindow: f.reportedWindow,
        catalogueWindow: null,
        cwd: f.cwd,
        root: p.file.root,
      },
      path,
    );
    if (w.kind === 'failed') add(w.problem);
  }
  if (p.result.pendingBytes > 0) {
    add(
      {
        kind: 'partial-line',
        path,
        count: p.result.pendingBytes,
        detail: `the last ${p.result.pendingBytes} bytes are an unfinished line (a truncated file?)`,
      },
      p.result.mtimeMs + PARTIAL_LINE_GRACE_MS,
    );
  }
}

/** Which ledger records count, per file: deduplicated per provider, oldest file first. */
export function dedupeGroups(groups: readonly Group[]): Map<ParsedFile, Uint8Array> {
  const masks = new Map<ParsedFile, Uint8Array>();
  for (const provider of new Set(groups.map((g) => g.provider))) {
    const ordered = groups
      .filter((g) => g.provider === provider)
      .flatMap((g) => g.files)
      .sort((a, b) => a.file.mtimeMs - b.file.mtimeMs || (a.file.path < b.file.path ? -1 : 1));
    const m = dedupe(ordered.map((p) => p.result.ledger));
    for (const [i, p] of ordered.entries()) masks.set(p, m[i]!);
  }
  return masks;
}

/**
 * Built sessions kept between refreshes of a long-running cctop: a session whose files, dedupe
 * outcome and clock hour are what they were is not built again, only its state is re-read (a working
 * session lapses to idle with time alone).
 */
export type SessionCache = Map<
  string,
  { signature: string; doc: SessionDoc; unpriced: [string, number][]; live: LiveInputs }
>;

export interface LiveInputs {
  signal: FileFacts['live'];
  mtime: number;
  lastMs: number | null;
}

/** A cheap fingerprint of which records of a file count. */
function maskHash(mask: Uint8Array | undefined): string {
  if (!mask) return '-';
  // Signatures are kept between runs: two different masks must not easily hash alike.
  const d = new Digest().int(mask.length);
  for (let i = 0; i < mask.length; i++) if (mask[i] === 1) d.int(i);
  return d.hex();
}

interface BuildContext {
  o: BuildOptions;
  clock: CostClock;
  masks: Map<ParsedFile, Uint8Array>;
  summaries: Map<number, string>;
}

/** One session's document, or null when `--since`/`--until` leave nothing of it. */
function buildSession(
  g: Group,
  x: BuildContext,
): { doc: SessionDoc; unpriced: [string, number][]; live: LiveInputs } | null {
  const { o, clock, masks, summaries } = x;
  const provider = placeById(g.provider);
  const main = g.main ?? g.files[0]!;
  const f: FileFacts = main.result.facts;
  const totals: Totals = emptyTotals();
  for (const p of g.files)
    addLedger(totals, p.result.ledger, masks.get(p) ?? null, o.book, provider.vendor, clock);

  let firstMs = Number.POSITIVE_INFINITY;
  let lastMs = Number.NEGATIVE_INFINITY;
  let mtime = 0;
  for (const p of g.files) {
    firstMs = Math.min(firstMs, p.result.facts.firstMs ?? Number.POSITIVE_INFINITY);
    lastMs = Math.max(lastMs, p.result.facts.lastMs ?? Number.NEGATIVE_INFINITY);
    mtime = Math.max(mtime, p.result.mtimeMs);
  }
  if (
    o.sinceMs !== null &&
    (lastMs === Number.NEGATIVE_INFINITY || lastMs < o.sinceMs) &&
    totals.requests === 0
  )
    return null;
  if (o.untilMs !== null && firstMs !== Number.POSITIVE_INFINITY && firstMs >= o.untilMs) return null;

  const unpriced: [string, number][] = [];
  const byModel: ModelCost[] = [...totals.byModel.entries()].map(([model, m]) => ({
    model,
    tokens: m.tokens,
    usd: m.usd === null && m.reportedUsd === 0 ? null : money((m.usd ?? 0) + m.reportedUsd),
    requests: m.requests,
  }));
  for (const m of byModel) {
    if (m.usd !== null) continue;
    const t = m.tokens;
    unpriced.push([m.model, (t.input ?? 0) + (t.output ?? 0) + (t.cacheRead ?? 0) + (t.cacheWrite ?? 0)]);
  }
  const usd = totals.priced ? money(totals.estimatedUsd + totals.reportedUsd) : null;
  const source =
    usd === null
      ? null
      : totals.reportedUsd > 0 && totals.estimatedUsd > 0
        ? 'mixed'
        : totals.reportedUsd > 0
          ? 'reported'
          : 'estimated';

  const model = f.mainModel ?? g.files.find((p) => p.result.facts.mainModel)?.result.facts.mainModel ?? null;
  const models = [...new Set(g.files.flatMap((p) => p.result.facts.models))];
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
  const summary = summaryOf(g, summaries);
  const hourStart = o.time.hourStart(o.nowMs) - 47 * 3_600_000;
  const dayStart = o.time.dayNumber(o.nowMs) - 30;
  const included = o.plan === 'included' || (o.plan === 'max' && provider.bundledUnderMax);
  const last = Number.isFinite(lastMs) ? lastMs : null;

  const doc: SessionDoc = {
    provider: g.provider,
    id: g.id,
    file: main.file.path,
    deleted: g.files.every((p) => p.deleted === true),
    subagentFiles: g.files.filter((p) => p.file.role === 'subagent').length,
    project: f.cwd,
    title: f.titles.custom ?? f.titles.ai ?? summary ?? f.titles.firstPrompt,
    branch: f.gitBranch,
    model,
    models,
    reasoningEffort: f.reasoningEffort,
    permissionMode: f.permissionMode,
    startedAt: iso(Number.isFinite(firstMs) ? firstMs : null),
    lastActiveAt: iso(last),
    state: stateNow(f.live, mtime, last, o.nowMs),
    stateDetail: f.live?.detail ?? null,
    running: null,
    process: null,
    pendingTool: f.live?.pendingTool ?? null,
    inferred: null,
    tokens: totals.tokens,
    requests: totals.requests,
    cost: {
      usd,
      source,
      included: included && usd !== null,
      unpriced: unpriced.map(([m]) => m),
      byModel,
      byHour:
        usd === null
          ? null
          : { start: new Date(hourStart).toISOString(), usd: [...totals.byHour].map(money) },
      byDay: usd === null ? null : { start: dayKey(dayStart), usd: [...totals.byDay].map(money) },
    },
    context: { used, window, compactAt },
    tools: mergeTools(g.files),
    lines: {
      added: sumNullable(g.files.map((p) => p.result.facts.linesAdded)),
      removed: sumNullable(g.files.map((p) => p.result.facts.linesRemoved)),
    },
    compactions: f.compactions,
    aborts: f.aborts,
    rateLimits: f.rateLimits,
  };
  return { doc, unpriced, live: { signal: f.live, mtime, lastMs: last } };
}

function summaryOf(g: Group, summaries: Map<number, string>): string | null {
  if (summaries.size === 0) return null;
  for (const p of g.files) {
    for (const u of p.result.facts.tailUuids) {
      const s = summaries.get(u);
      if (s !== undefined) return s;
    }
  }
  return null;
}

/**
 * The same document a moment later, when no file changed: only the states move (a working session
 * lapses to idle with time alone). Cheap enough to run on every refresh.
 */
export function restate(doc: SessionDocument, cache: SessionCache, nowMs: number): SessionDocument {
  let changed = false;
  const sessions = doc.sessions.map((s) => {
    if (s.state !== 'working') return s;
    const hit = cache.get(`${s.provider}\u0000${s.id}`);
    if (!hit) return s;
    const state = stateNow(hit.live.signal, hit.live.mtime, hit.live.lastMs, nowMs);
    if (state === s.state) return s;
    changed = true;
    return { ...s, state };
  });
  return { ...doc, generatedAt: new Date(nowMs).toISOString(), sessions: changed ? sessions : doc.sessions };
}

/** The key of a session in a `SessionCache` and in the index. */
export const groupKey = (g: Pick<Group, 'provider' | 'id'>): string => `${g.provider}\u0000${g.id}`;

/** What a built session must still match to be reused: its files, their dedupe outcome, its title. */
function signatureOf(g: Group, x: BuildContext): string {
  const o = x.o;
  // The hour (spend windows move with it) and the options.
  const epoch = `${o.time.hourStart(o.nowMs)}|${o.plan}|${o.sinceMs}|${o.untilMs}|${o.time.timeZone}`;
  return `${epoch}|${summaryOf(g, x.summaries) ?? ''}|${g.files
    .map(
      (p) =>
        `${p.file.path}:${p.result.size}:${p.result.mtimeMs}:${p.result.offset}:${p.deleted === true}:${maskHash(x.masks.get(p))}`,
    )
    .join('|')}`;
}

type CacheEntry = NonNullable<ReturnType<SessionCache['get']>>;

/** Build the given groups (their masks decided elsewhere), as cache entries; null when filtered out. */
export function buildGroups(
  groups: readonly Group[],
  masks: Map<ParsedFile, Uint8Array>,
  summaries: Map<number, string>,
  o: BuildOptions,
): Map<string, CacheEntry | null> {
  const clock: CostClock = { time: o.time, nowMs: o.nowMs, sinceMs: o.sinceMs, untilMs: o.untilMs };
  const x: BuildContext = { o, clock, masks, summaries };
  const out = new Map<string, CacheEntry | null>();
  for (const g of groups) {
    const built = buildSession(g, x);
    out.set(groupKey(g), built && { signature: signatureOf(g, x), ...built });
  }
  return out;
}

/** The unpriced-model problems of a whole document, from its sessions' unpriced tokens. */
export function unpricedProblems(entries: Iterable<{ unpriced: [string, number][] }>, o: BuildOptions): void {
  const unpriced = new Map<string, number>();
  for (const e of entries)
    for (const [model, tokens] of e.unpriced) unpriced.set(model, (unpriced.get(model) ?? 0) + tokens);
  for (const [model, tokens] of [...unpriced].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    addProblem(
      {
        kind: 'unpriced-model',
        path: model,
        count: tokens,
        detail: `${tokens.toLocaleString('en-US')} tokens on a model the price catalogue does not know: shown as no price`,
      },
      null,
      o.nowMs,
      o.problems,
      o.record?.problems,
    );
  }
}

/** Problems of one file's own (bad lines, oversized lines, a partial last line). */
export function problemsOfFile(p: ParsedFile, o: BuildOptions): void {
  if (!p.deleted) fileProblems(p, o);
}

export function buildDocument(
  files: readonly ParsedFile[],
  o: BuildOptions,
  cache?: SessionCache,
): SessionDocument {
  const clock: CostClock = { time: o.time, nowMs: o.nowMs, sinceMs: o.sinceMs, untilMs: o.untilMs };
  // In path order, as a patch adds them: problems list (and, past the bound, drop) alike either way.
  for (const p of [...files].sort(byPath)) problemsOfFile(p, o);

  const groups = group(files);
  const masks = dedupeGroups(groups);

  // Claude writes summaries into whichever file is current; they name a session by its leaf message.
  const summaries = new Map<number, string>();
  for (const p of [...files].sort((a, b) => a.file.mtimeMs - b.file.mtimeMs)) {
    for (const [leaf, text] of p.result.facts.titles.summaries) summaries.set(leaf, text);
  }
  if (o.record) {
    o.record.groups = groups;
    o.record.masks = masks;
    o.record.summaries = summaries;
  }

  const x: BuildContext = { o, clock, masks, summaries };
  const entries: CacheEntry[] = [];
  const sessions: SessionDoc[] = [];
  const live = new Set<string>();
  for (const g of groups) {
    const key = groupKey(g);
    live.add(key);
    let built: ReturnType<typeof buildSession> = null;
    let signature = '';
    if (cache) {
      signature = signatureOf(g, x);
      const hit = cache.get(key);
      if (hit && hit.signature === signature) {
        const state = stateNow(hit.live.signal, hit.live.mtime, hit.live.lastMs, o.nowMs);
        built = {
          doc: state === hit.doc.state ? hit.doc : { ...hit.doc, state },
          unpriced: hit.unpriced,
          live: hit.live,
        };
      }
    }
    built ??= buildSession(g, x);
    if (built === null) continue;
    const entry = { signature, ...built };
    if (cache) cache.set(key, entry);
    entries.push(entry);
    sessions.push(built.doc);
  }
  if (cache) for (const key of cache.keys()) if (!live.has(key)) cache.delete(key);
  unpricedProblems(entries, o);

  return assemble(sessions, o);
}

function assemble(
  sessions: SessionDoc[],
  o: Pick<BuildOptions, 'plan' | 'time' | 'nowMs' | 'problems'>,
): SessionDocument {
  sortSessions(sessions);
  return {
    version: DOCUMENT_VERSION,
    generatedAt: new Date(o.nowMs).toISOString(),
    plan: o.plan,
    timeZone: o.time.timeZone,
    sessions,
    problems: o.problems.list,
  };
}

/** Dollars to the micro-dollar: the document should not carry floating-point noise. */
const money = (usd: number): number => Math.round(usd * 1e6) / 1e6;

function dayKey(dayNumber: number): string {
  return new Date(dayNumber * 86_400_000).toISOString().slice(0, 10);
}
