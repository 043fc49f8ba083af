/**
 * Reading what another machine's `cctop report ID --json` printed, as hostile input, into the
 * `SessionReport` a local report is (the rules are `fetch-read.ts`'s: a wrong type is unknown, every
 * text and list bounded). Its session is rebuilt as a remote row is (`remote-doc.ts`).
 */
import type { Breakdown } from '../model/calls.js';
import { MAX_RESULT_CHARS } from '../model/conversation.js';
import type { ModelCost } from '../model/document.js';
import { arr, bool, count, num, obj } from '../model/json.js';
import { MAX_PROBLEM_DETAIL_CHARS, MAX_PROBLEMS, type Problem, type ProblemKind } from '../model/problems.js';
import { MAX_DETAIL_CHARS, MAX_FULL_CHARS } from '../model/tools.js';
import { TOKEN_FIELDS, type TokenCounts } from '../model/usage.js';
import { MAX_SERIES_POINTS, REPORT_VERSION, type SessionReport } from '../report/types.js';
import {
  type AnswerReading,
  answerObject,
  CUT_MARK_CHARS,
  isoText,
  listOf,
  oneOf,
  textOf,
  whole,
} from './fetch-read.js';
import { remoteSession } from './remote-doc.js';

/**
 * Rows kept from any one list of a remote report (its days, hours, files, failure groups). The
 * longest list a local report has is its hours: a session open for a year spends in at most 8,760.
 * The views draw the newest few dozen; past the bound the rest are not kept.
 */
export const MAX_REMOTE_REPORT_ROWS = 10_000;

function tokensOf(v: unknown): TokenCounts {
  const o = obj(v) ?? {};
  const t = {} as TokenCounts;
  for (const f of TOKEN_FIELDS) t[f] = count(o[f]);
  return t;
}

function modelCostOf(v: unknown): ModelCost | null {
  const o = obj(v);
  const model = o === null ? null : textOf(o.model);
  if (o === null || model === null) return null;
  return {
    model,
    ...(o.fast === true ? { fast: true } : {}),
    tokens: tokensOf(o.tokens),
    usd: num(o.usd),
    requests: whole(o.requests) ?? 0,
  };
}

/** A day's or an hour's spend: `key` names which (`day`, `hour`). */
function spendRow<K extends 'day' | 'hour'>(key: K) {
  return (v: unknown): ({ [k in K]: string } & { usd: number | null; tokens: number }) | null => {
    const o = obj(v);
    const at = o === null ? null : textOf(o[key], 40);
    if (o === null || at === null) return null;
    return { [key]: at, usd: num(o.usd), tokens: count(o.tokens) ?? 0 } as { [k in K]: string } & {
      usd: number | null;
      tokens: number;
    };
  };
}

const BREAKDOWN_FIELDS = [
  'window',
  'startup',
  'toolOutput',
  'toolInput',
  'attachments',
  'user',
  'assistant',
  'unaccounted',
] as const satisfies readonly (keyof Breakdown)[];

/** What fills the window: every part a number, or no breakdown at all (half of one would mislead). */
function breakdownOf(v: unknown): Breakdown | null {
  const o = obj(v);
  if (o === null) return null;
  const b = {} as Breakdown;
  for (const f of BREAKDOWN_FIELDS) {
    const n = num(o[f]);
    if (n === null) return null;
    b[f] = n;
  }
  return b;
}

function contextOf(v: unknown): SessionReport['context'] {
  const o = obj(v) ?? {};
  return {
    used: count(o.used),
    window: count(o.window),
    compactAt: count(o.compactAt),
    compactions: (arr(o.compactions) ?? []).slice(0, MAX_REMOTE_REPORT_ROWS).map(isoText),
    series: listOf(o.series, MAX_SERIES_POINTS, (x) => {
      const p = obj(x);
      const prompt = p === null ? null : count(p.prompt);
      return p === null || prompt === null ? null : { at: isoText(p.at), prompt };
    }),
    breakdown: breakdownOf(o.breakdown),
  };
}

/** A call's tool and one-line argument, which every table of calls shows. */
function callOf(v: unknown): { o: Record<string, unknown>; tool: string; detail: string } | null {
  const o = obj(v);
  const tool = o === null ? null : textOf(o.tool);
  if (o === null || tool === null) return null;
  return { o, tool, detail: textOf(o.detail, MAX_DETAIL_CHARS) ?? '' };
}

function toolsOf(v: unknown): SessionReport['tools'] {
  const o = obj(v) ?? {};
  const rows = MAX_REMOTE_REPORT_ROWS;
  return {
    calls: whole(o.calls) ?? 0,
    failed: whole(o.failed),
    byTool: listOf(o.byTool, rows, (x) => {
      const t = obj(x);
      const name = t === null ? null : textOf(t.name);
      if (t === null || name === null) return null;
      return { name, calls: whole(t.calls) ?? 0, failed: whole(t.failed) ?? 0 };
    }),
    failures: listOf(o.failures, rows, (x) => {
      const c = callOf(x);
      if (c === null) return null;
      const { o: f, tool, detail } = c;
      return {
        tool,
        detail,
        argument: textOf(f.argument, MAX_FULL_CHARS + CUT_MARK_CHARS) ?? '',
        count: whole(f.count) ?? 0,
        lastAt: isoText(f.lastAt),
        samples: listOf(f.samples, rows, (s) => textOf(s, MAX_RESULT_CHARS + CUT_MARK_CHARS)),
      };
    }),
    slowest: listOf(o.slowest, rows, (x) => {
      const c = callOf(x);
      const ms = c === null ? null : count(c.o.ms);
      if (c === null || ms === null) return null;
      return {
        tool: c.tool,
        detail: c.detail,
        ms,
        at: isoText(c.o.at),
        origin: textOf(c.o.origin) ?? 'main',
      };
    }),
    heaviest: listOf(o.heaviest, rows, (x) => {
      const c = callOf(x);
      const growth = c === null ? null : count(c.o.growth);
      if (c === null || growth === null) return null;
      return { tool: c.tool, detail: c.detail, growth, shared: bool(c.o.shared), at: isoText(c.o.at) };
    }),
    dropped: whole(o.dropped) ?? 0,
  };
}

function fileOf(v: unknown): SessionReport['files'][number] | null {
  const o = obj(v);
  const path = o === null ? null : textOf(o.path);
  if (o === null || path === null) return null;
  return {
    path,
    reads: whole(o.reads) ?? 0,
    writes: whole(o.writes) ?? 0,
    added: whole(o.added) ?? 0,
    removed: whole(o.removed) ?? 0,
  };
}

function subagentOf(v: unknown): SessionReport['subagents'][number] | null {
  const o = obj(v);
  const agent = o === null ? null : textOf(o.agent);
  if (o === null || agent === null) return null;
  return {
    agent,
    type: textOf(o.type),
    title: textOf(o.title),
    models: listOf(o.models, MAX_REMOTE_REPORT_ROWS, (m) => textOf(m)),
    requests: whole(o.requests) ?? 0,
    tokens: tokensOf(o.tokens),
    usd: num(o.usd),
    calls: whole(o.calls) ?? 0,
  };
}

const PROBLEM_KINDS: readonly ProblemKind[] = [
  'unreadable',
  'vanished',
  'bad-lines',
  'oversized-lines',
  'partial-line',
  'inconsistent-usage',
  'unpriced-model',
  'untimed-requests',
  'cache',
  'session-note',
];

function problemOf(v: unknown): Problem | null {
  const o = obj(v);
  const kind = o === null ? null : oneOf(PROBLEM_KINDS, o.kind);
  if (o === null || kind === null) return null;
  return {
    kind,
    path: textOf(o.path) ?? '',
    count: count(o.count),
    detail: textOf(o.detail, MAX_PROBLEM_DETAIL_CHARS) ?? '',
  };
}

/** `cctop report ID --json` from another machine, read as hostile input. */
export function readReportAnswer(bytes: Buffer): AnswerReading<SessionReport> {
  const a = answerObject(bytes);
  if (a.kind === 'not') return { kind: 'not-an-answer', why: a.why };
  const o = a.o;
  const version = num(o.version);
  if (version === null) return { kind: 'not-an-answer', why: 'its JSON has no report version' };
  if (version !== REPORT_VERSION) return { kind: 'version', remote: version, ours: REPORT_VERSION };
  const session = remoteSession(o.session);
  if (session === null)
    return { kind: 'not-an-answer', why: 'its report names no session of a harness this cctop knows' };
  const cost = obj(o.cost) ?? {};
  const rows = MAX_REMOTE_REPORT_ROWS;
  return {
    kind: 'read',
    value: {
      version,
      session,
      cost: {
        byModel: listOf(cost.byModel, rows, modelCostOf),
        // The newest days and hours, as the views draw them.
        byDay: listOf((arr(cost.byDay) ?? []).slice(-rows), rows, spendRow('day')),
        byHour: listOf((arr(cost.byHour) ?? []).slice(-rows), rows, spendRow('hour')),
      },
      context: contextOf(o.context),
      tools: toolsOf(o.tools),
      files: listOf(o.files, rows, fileOf),
      subagents: listOf(o.subagents, rows, subagentOf),
      problems: listOf(o.problems, MAX_PROBLEMS, problemOf),
    },
  };
}
