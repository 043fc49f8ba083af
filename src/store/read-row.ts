/**
 * Reading a queued row back from the queue file (`local.ts`), field by field. The file is cctop's
 * own, but anything could have been written over it: a row comes back only when every field is what
 * `build.ts` makes (the same bounds, the same types), else it is left out, and the queue's other
 * rows go on.
 *
 * Not here: making rows (`build.ts`).
 */
import { PROVIDERS } from '../model/facts.js';
import { QUOTA_WINDOWS } from '../model/quota.js';
import type { TokenCounts } from '../model/usage.js';
import { MAX_STORE_KEY_CHARS, MAX_STORE_TEXT_CHARS } from './build.js';
import type { PushItem } from './local.js';
import type { QuotaRow, SessionRow, SpendRow } from './rows.js';

const STATES = ['working', 'waiting', 'error', 'idle'];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Thrown inside a reader when a field is wrong; caught once, at the top. */
class Bad extends Error {}

const text = (v: unknown, max = MAX_STORE_TEXT_CHARS): string => {
  if (typeof v !== 'string' || v.length > max || v.includes('\u0000')) throw new Bad();
  return v;
};
const key = (v: unknown): string => {
  const s = text(v, MAX_STORE_KEY_CHARS);
  if (s.length === 0) throw new Bad();
  return s;
};
const optText = (v: unknown): string | null => (v === null ? null : text(v));
const count = (v: unknown): number => {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new Bad();
  return v;
};
const optCount = (v: unknown): number | null => (v === null ? null : count(v));
const optUsd = (v: unknown): number | null => {
  if (v === null) return null;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Bad();
  return v;
};
const optTime = (v: unknown): string | null => {
  if (v === null) return null;
  if (typeof v !== 'string' || v.length > 64 || !Number.isFinite(Date.parse(v))) throw new Bad();
  return v;
};
const harness = (v: unknown): string => {
  if (!PROVIDERS.some((p) => p === v)) throw new Bad();
  return v as string;
};

function tokens(v: unknown): TokenCounts {
  if (!isObj(v)) throw new Bad();
  return {
    input: optCount(v.input),
    output: optCount(v.output),
    cacheRead: optCount(v.cacheRead),
    cacheWrite: optCount(v.cacheWrite),
    reasoning: optCount(v.reasoning),
  };
}

function sessionRow(r: Obj, host: string): SessionRow {
  if (!STATES.includes(r.state as string) || !isObj(r.facts)) throw new Bad();
  return {
    host,
    harness: harness(r.harness),
    sessionId: key(r.sessionId),
    project: optText(r.project),
    title: optText(r.title),
    model: optText(r.model),
    state: r.state as string,
    startedAt: optTime(r.startedAt),
    lastActiveAt: optTime(r.lastActiveAt),
    requests: count(r.requests),
    tokens: tokens(r.tokens),
    costUsd: optUsd(r.costUsd),
    unpricedTokens: count(r.unpricedTokens),
    // Numbers and short names (`build.ts` factsOf); bounded by the file's own bound.
    facts: r.facts,
  };
}

function spendRow(r: Obj, host: string): SpendRow {
  const day = text(r.day, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new Bad();
  return {
    host,
    harness: harness(r.harness),
    day,
    model: key(r.model),
    project: text(r.project),
    requests: count(r.requests),
    tokens: tokens(r.tokens),
    costUsd: optUsd(r.costUsd),
    unpricedTokens: count(r.unpricedTokens),
  };
}

const QUOTA_SOURCES = ['agent-cache', 'statusline', 'rollout'];

function quotaRow(r: Obj, host: string): QuotaRow {
  const window = r.window;
  const source = r.source;
  if (!QUOTA_WINDOWS.some((w) => w === window) || !QUOTA_SOURCES.includes(source as string)) throw new Bad();
  const used = r.usedPercent;
  if (used !== null && (typeof used !== 'number' || !Number.isFinite(used) || used < 0)) throw new Bad();
  const account = text(r.account, MAX_STORE_KEY_CHARS);
  return {
    host,
    harness: harness(r.harness),
    account,
    window: window as string,
    plan: optText(r.plan),
    usedPercent: used as number | null,
    resetsAt: optTime(r.resetsAt),
    source: source as string,
    fetchedAt: optTime(r.fetchedAt),
  };
}

/** A queued item, or null when it is not one `build.ts` could have made. Its host is the queue's. */
export function readRow(v: unknown, host: string): PushItem | null {
  if (!isObj(v) || !isObj(v.row)) return null;
  try {
    if (v.kind === 'session') return { kind: 'session', row: sessionRow(v.row, host) };
    if (v.kind === 'spend') return { kind: 'spend', row: spendRow(v.row, host) };
    if (v.kind === 'quota') return { kind: 'quota', row: quotaRow(v.row, host) };
    return null;
  } catch (e) {
    if (e instanceof Bad) return null;
    throw e;
  }
}
