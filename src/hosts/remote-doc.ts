/**
 * Reading the session document another machine's cctop printed. It crossed a network from a program
 * cctop does not control, so it is read as hostile input: parsed under the depth bound, its version
 * checked, and each session rebuilt field by field from what narrows cleanly. A session missing what
 * every view needs (a known harness, an id, a state) is dropped and counted; a field of the wrong
 * type reads as unknown (`null`), never as zero. Text is cut to `MAX_REMOTE_TEXT_CHARS`, so one
 * oversized title cannot slow every redraw.
 *
 * What a remote row loses on the way: its process ids (they name processes on another machine, and
 * a remote row is never acted on) and its driven run (answered only where it runs).
 *
 * Not here: running ssh (`ssh.ts`) or marking rows with their host (`merge.ts`).
 */
import { DOCUMENT_VERSION, type SessionDoc } from '../model/document.js';
import { type Permission, PROVIDERS, type ProviderId, type ToolTally } from '../model/facts.js';
import { arr, bool, count, type JsonObject, num, obj, str } from '../model/json.js';
import type { SessionState, StateSource } from '../model/state.js';
import { TOKEN_FIELDS, type TokenCounts } from '../model/usage.js';
import { printedJson } from './printed.js';

/** The longest text kept from a remote field (a title, a path, a state's detail); longer is cut. */
export const MAX_REMOTE_TEXT_CHARS = 4096;

/** Distinct tools kept per remote session, as the local index keeps them (`MAX_TOOL_NAMES`). */
const TOOLS_KEPT = 256;

export type RemoteReading =
  | { kind: 'read'; sessions: SessionDoc[]; skipped: number; generatedAt: string | null; problems: number }
  /** Not a session document at all (not JSON, a list as another cctop prints, an error page). */
  | { kind: 'not-a-document'; why: string }
  /** A document of another version: `remote` is what it says, ours is `DOCUMENT_VERSION`. */
  | { kind: 'version'; remote: number };

const STATES: readonly SessionState[] = ['working', 'waiting', 'error', 'idle'];
const SOURCES: readonly StateSource[] = ['hook', 'registry', 'driven', 'inferred'];
const PERMISSIONS: readonly Permission[] = [
  'ask',
  'edits',
  'plan',
  'read-only',
  'auto',
  'deny',
  'bypass',
  'unknown',
];
const COST_SOURCES = ['estimated', 'reported', 'mixed'] as const;

const oneOf = <T extends string>(list: readonly T[], v: unknown): T | null =>
  typeof v === 'string' && (list as readonly string[]).includes(v) ? (v as T) : null;

/** Text, cut to the bound; null when not text. */
const text = (v: unknown): string | null => {
  const s = str(v);
  return s === null ? null : s.length > MAX_REMOTE_TEXT_CHARS ? s.slice(0, MAX_REMOTE_TEXT_CHARS) : s;
};

/** An ISO timestamp, or null. */
const iso = (v: unknown): string | null => {
  const s = str(v);
  return s !== null && s.length <= 40 && Number.isFinite(Date.parse(s)) ? s : null;
};

function tokensOf(v: unknown): TokenCounts {
  const o = obj(v) ?? {};
  const t = {} as TokenCounts;
  for (const f of TOKEN_FIELDS) t[f] = count(o[f]);
  return t;
}

function seriesOf(v: unknown): { start: string; usd: number[] } | null {
  const o = obj(v);
  const start = o === null ? null : text(o.start);
  const usd = o === null ? null : arr(o.usd);
  // 48 hours and 31 days; a longer series is not one this cctop draws.
  if (start === null || usd === null || usd.length > 64) return null;
  return { start, usd: usd.map((x) => num(x) ?? 0) };
}

function costOf(v: unknown): SessionDoc['cost'] {
  const o = obj(v) ?? {};
  const byModel = (arr(o.byModel) ?? []).slice(0, TOOLS_KEPT).flatMap((m) => {
    const x = obj(m);
    const model = x === null ? null : text(x.model);
    if (x === null || model === null) return [];
    return [
      {
        model,
        ...(x.fast === true ? { fast: true } : {}),
        tokens: tokensOf(x.tokens),
        usd: num(x.usd),
        requests: count(x.requests) ?? 0,
      },
    ];
  });
  return {
    usd: num(o.usd),
    source: oneOf(COST_SOURCES, o.source),
    included: bool(o.included),
    unpriced: (arr(o.unpriced) ?? []).slice(0, TOOLS_KEPT).flatMap((m) => text(m) ?? []),
    byModel,
    byHour: seriesOf(o.byHour),
    byDay: seriesOf(o.byDay),
  };
}

function toolsOf(v: unknown): SessionDoc['tools'] {
  const o = obj(v) ?? {};
  const byTool: Record<string, ToolTally> = {};
  for (const [name, t] of Object.entries(obj(o.byTool) ?? {}).slice(0, TOOLS_KEPT)) {
    const x = obj(t);
    if (x === null || name.length > MAX_REMOTE_TEXT_CHARS) continue;
    byTool[name] = { calls: count(x.calls) ?? 0, failed: count(x.failed) };
  }
  return { calls: count(o.calls) ?? 0, failed: count(o.failed), byTool };
}

function processOf(v: unknown): SessionDoc['process'] {
  const o = obj(v);
  if (o === null) return null;
  return { pids: [], cpu: num(o.cpu), memory: count(o.memory) ?? 0, command: text(o.command) ?? '' };
}

/** One session, rebuilt from what narrows; null when it lacks what every view needs. */
export function remoteSession(v: unknown): SessionDoc | null {
  const o = obj(v);
  if (o === null) return null;
  const provider: ProviderId | null = oneOf(PROVIDERS, o.provider);
  const id = text(o.id);
  const state = oneOf(STATES, o.state);
  if (provider === null || id === null || id === '' || state === null) return null;
  const context = obj(o.context) ?? {};
  const lines = obj(o.lines) ?? {};
  return {
    provider,
    id,
    file: text(o.file) ?? '',
    deleted: bool(o.deleted),
    subagentFiles: count(o.subagentFiles) ?? 0,
    project: text(o.project),
    title: text(o.title),
    branch: text(o.branch),
    model: text(o.model),
    models: (arr(o.models) ?? []).slice(0, TOOLS_KEPT).flatMap((m) => text(m) ?? []),
    reasoningEffort: text(o.reasoningEffort),
    permissionMode: text(o.permissionMode),
    permission: oneOf(PERMISSIONS, o.permission),
    startedAt: iso(o.startedAt),
    lastActiveAt: iso(o.lastActiveAt),
    state,
    stateDetail: text(o.stateDetail),
    stateSource: oneOf(SOURCES, o.stateSource) ?? 'inferred',
    running: typeof o.running === 'boolean' ? o.running : null,
    process: processOf(o.process),
    pendingTool: text(o.pendingTool),
    inferred: o.inferred === 'probably-waiting' ? 'probably-waiting' : null,
    tokens: tokensOf(o.tokens),
    requests: count(o.requests) ?? 0,
    cost: costOf(o.cost),
    context: {
      used: count(context.used),
      window: count(context.window),
      compactAt: count(context.compactAt),
    },
    tools: toolsOf(o.tools),
    lines: { added: count(lines.added), removed: count(lines.removed) },
    compactions: count(o.compactions),
    aborts: count(o.aborts) ?? 0,
    rateLimits: o.rateLimits ?? null,
  };
}

/** Why `v` is not a document of ours, in words a user can act on. */
function notOurs(v: unknown): string {
  if (Array.isArray(v))
    return 'it printed a list of sessions, as the Rust cctop does, not a session document';
  if (obj(v) === null) return 'it printed something that is not a JSON object';
  return 'its JSON has no document version';
}

/** The document in `bytes`, read as hostile input. */
export function readRemoteDocument(bytes: Buffer): RemoteReading {
  const r = printedJson(bytes);
  if (r.kind === 'not') return { kind: 'not-a-document', why: r.why };
  const doc: JsonObject | null = obj(r.value);
  const version = doc === null ? null : num(doc.version);
  if (doc === null || version === null) return { kind: 'not-a-document', why: notOurs(r.value) };
  if (version !== DOCUMENT_VERSION) return { kind: 'version', remote: version };
  const list = arr(doc.sessions);
  if (list === null) return { kind: 'not-a-document', why: 'its document has no sessions list' };
  const sessions: SessionDoc[] = [];
  let skipped = 0;
  for (const s of list) {
    const read = remoteSession(s);
    if (read === null) skipped++;
    else sessions.push(read);
  }
  return {
    kind: 'read',
    sessions,
    skipped,
    generatedAt: iso(doc.generatedAt),
    problems: (arr(doc.problems) ?? []).length,
  };
}
