/**
 * The vocabulary of held requests: what an agent's deciding hook asks (a tool to run, a question that
 * wants words, a plan to accept), what an answer says, who gave it and from where, and how a request
 * ends. `store.ts` keeps these as files in the runtime directory; `hold.ts` is the hook's side;
 * `cctop approve`, the live table and the dashboard answer through `answer.ts`.
 *
 * Nothing here does I/O, and nothing here knows any agent's wire format: what an agent prints for a
 * verdict is its provider's (`providers/<id>/decide.ts`).
 */
import { type HookAgent, isHookAgent } from '../hooks/types.js';
import { arr, type JsonObject, num, obj, str } from '../model/json.js';

/** Bumped when a field of a request or a settlement changes meaning; readers skip other versions. */
export const APPROVAL_VERSION = 1;

/**
 * The longest hold a hook command may ask for. An hour: a request nobody answered in that long is
 * answered at the terminal when its person is back, where the agent's own dialog still waits.
 */
export const MAX_HOLD_SECONDS = 3600;

/**
 * What a held request wants:
 * - `permission`: allow or deny one tool call (a deny may carry a reason for the model);
 * - `question`: the agent asks its person questions that want words (Claude Code's AskUserQuestion);
 * - `plan`: a plan to accept (allow), or to send back with words (deny with a reason, or text).
 */
export type AskKind = 'permission' | 'question' | 'plan';

export interface ApprovalRequest {
  v: typeof APPROVAL_VERSION;
  /** Random, unguessable: it names the request's files and its signed links. */
  id: string;
  agent: HookAgent;
  /** The agent's own session id, as its hook payload named it. */
  session: string;
  cwd: string | null;
  tool: string | null;
  /** What the call is about (the command, the path), as the hook event keeps it. */
  input: string | null;
  kind: AskKind;
  /** The questions' texts, for a `question`; empty otherwise. */
  questions: string[];
  /** When the hook registered it, and when its hold ends (ms since the epoch). */
  at: number;
  expiresAt: number;
  /** The holding hook's process: a request whose hook is gone is no longer open. */
  pid: number;
}

/** What an answer says. */
export type Verdict =
  | { kind: 'allow' }
  | { kind: 'deny'; reason: string | null }
  /** Words for a question, or a plan's feedback. */
  | { kind: 'text'; text: string };

/** The ways of answering from outside the agent's own dialog. */
export const VIAS = ['cli', 'table', 'dashboard', 'ntfy', 'webhook'] as const;
export type Via = (typeof VIAS)[number];

/** Who answered, and from where: journaled with every answer. */
export interface Answerer {
  via: Via;
  /** The local user name, or the dashboard's "token holder". */
  who: string;
  /** Where from: a terminal and host, a remote address. */
  from: string;
}

/** An answer as written, once, beside its request. */
export interface Answer {
  verdict: Verdict;
  by: Answerer;
  at: number;
}

/** Why a hold ended without an answer from cctop: the agent's own dialog decides. */
export type ReleaseWhy =
  /** The bound passed. */
  | 'timeout'
  /** The session moved on: its transcript shows the call ran or was refused (its own dialog answered). */
  | 'moved-on'
  /** The agent's process is gone. */
  | 'agent-gone'
  /** The hook was stopped (the agent gave up on it). */
  | 'hook-ended'
  /** An answer came that the agent cannot take (words for a yes/no question). */
  | 'unusable';

/** How a request ended; written once, by the holding hook. */
export type Settlement =
  | { kind: 'delivered'; answer: Answer; at: number }
  | { kind: 'released'; why: ReleaseWhy; at: number };

/** The longest reason or text an answer carries: a few paragraphs for the model, not a document. */
export const MAX_ANSWER_CHARS = 4000;
/** The most questions kept from one request (Claude Code asks one to four at a time). */
export const MAX_QUESTIONS = 8;

const VERDICT_KINDS = ['allow', 'deny', 'text'] as const;
const RELEASES: readonly ReleaseWhy[] = ['timeout', 'moved-on', 'agent-gone', 'hook-ended', 'unusable'];
const ASKS: readonly AskKind[] = ['permission', 'question', 'plan'];

export function readRequest(v: unknown): ApprovalRequest | null {
  const o = obj(v);
  if (o === null || o.v !== APPROVAL_VERSION) return null;
  const id = str(o.id);
  const agent = str(o.agent);
  const session = str(o.session);
  const kind = ASKS.find((k) => k === o.kind);
  const at = num(o.at);
  const expiresAt = num(o.expiresAt);
  const pid = num(o.pid);
  if (id === null || agent === null || !isHookAgent(agent) || session === null || kind === undefined)
    return null;
  if (at === null || expiresAt === null || pid === null) return null;
  const questions = (arr(o.questions) ?? []).flatMap((q) => str(q) ?? []).slice(0, MAX_QUESTIONS);
  return {
    v: APPROVAL_VERSION,
    id,
    agent,
    session,
    cwd: str(o.cwd),
    tool: str(o.tool),
    input: str(o.input),
    kind,
    questions,
    at,
    expiresAt,
    pid,
  };
}

export function readVerdict(v: unknown): Verdict | null {
  const o = obj(v);
  const kind = VERDICT_KINDS.find((k) => k === o?.kind);
  if (o === null || kind === undefined) return null;
  switch (kind) {
    case 'allow':
      return { kind };
    case 'deny':
      return { kind, reason: str(o.reason) };
    case 'text': {
      const text = str(o.text);
      return text === null ? null : { kind, text };
    }
  }
}

export function readAnswerer(v: unknown): Answerer | null {
  const o = obj(v);
  const via = VIAS.find((x) => x === o?.via);
  const who = str(o?.who);
  const from = str(o?.from);
  if (via === undefined || who === null || from === null) return null;
  return { via, who, from };
}

export function readAnswer(v: unknown): Answer | null {
  const o = obj(v);
  const verdict = readVerdict(o?.verdict);
  const by = readAnswerer(o?.by);
  const at = num(o?.at);
  if (verdict === null || by === null || at === null) return null;
  return { verdict, by, at };
}

export function readSettlement(v: unknown): Settlement | null {
  const o = obj(v);
  const at = num(o?.at);
  if (o === null || at === null) return null;
  if (o.kind === 'delivered') {
    const answer = readAnswer(o.answer);
    return answer === null ? null : { kind: 'delivered', answer, at };
  }
  if (o.kind === 'released') {
    const why = RELEASES.find((w) => w === o.why);
    return why === undefined ? null : { kind: 'released', why, at };
  }
  return null;
}

/** A settlement in words, for a refusal or `cctop explain`. */
export function settledWords(s: Settlement): string {
  switch (s.kind) {
    case 'delivered':
      return `answered (${verdictWords(s.answer.verdict)}) by ${s.answer.by.who} via ${s.answer.by.via} from ${s.answer.by.from}`;
    case 'released':
      return RELEASE_WORDS[s.why];
  }
}

export const RELEASE_WORDS: Readonly<Record<ReleaseWhy, string>> = {
  timeout: 'its hold ran out: only the agent’s own dialog can answer it now',
  'moved-on': 'the session moved on: it was answered in the agent’s own dialog',
  'agent-gone': 'the agent is gone',
  'hook-ended': 'the agent stopped waiting for cctop',
  unusable: 'an answer came that the agent cannot take',
};

export function verdictWords(v: Verdict): string {
  switch (v.kind) {
    case 'allow':
      return 'allow';
    case 'deny':
      return v.reason === null ? 'deny' : `deny: ${v.reason}`;
    case 'text':
      return `answer: ${v.text}`;
  }
}

/**
 * An agent whose hook can decide a tool call, as its provider tells it (`providers/<id>/decide.ts`):
 * which events, what a held request asks, what the agent reads as an answer, and how its own record
 * shows that the person answered its dialog first.
 */
export interface HookDecider {
  events: readonly string[];
  /** What the payload asks. */
  ask(payload: JsonObject): { kind: AskKind; questions: string[] };
  /** The hook's stdout for a verdict, or null when the agent cannot take it for this payload. */
  render(v: Verdict, payload: JsonObject): string | null;
  /**
   * Started when the hold starts: a look that says whether the session has moved on since (the call
   * ran or was refused in the agent's own dialog). Each call reads only what is new.
   */
  watch(payload: JsonObject): () => boolean;
}
