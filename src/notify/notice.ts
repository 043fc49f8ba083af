/**
 * A notice: one crossing, told to a person outside cctop's own views (a desktop notification, a
 * webhook). Three things cross: a session's state (`crossings.ts`), an alert (`live/alerts.ts`), and
 * a collision (two running sessions writing one file). Each becomes a notice here, and nowhere else.
 *
 * Every string in a notice came from a transcript or an agent at some point (a title, a project
 * path, a tool's input, an error), so each is made one safe line here, once: controls, escape
 * sequences and invisible characters become a mark, and it is cut to a named bound. A channel then
 * treats it as plain text and only escapes what its own format needs (Slack's `&<>`, the desktop's
 * markup).
 *
 * Not here: which crossings fire (`crossings.ts`, `live/alerts.ts`), how a channel shapes a notice
 * (`formats.ts`, `desktop.ts`), how one reaches another process (`spool.ts`), or how one is read
 * back from there (`notice-read.ts`).
 */
import { createHash } from 'node:crypto';
import type { Alert } from '../live/alerts.js';
import type { SessionDoc } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { providerById } from '../providers/index.js';
import { alertText } from '../views/alert-text.js';
import { sessionId } from '../views/serve/ids.js';
import { safeLine } from '../views/terminal-text.js';
import type { StateCrossing } from './crossings.js';

export const NOTICE_KINDS = [
  'waiting',
  'error',
  'budget',
  'error-loop',
  'stall',
  'burn-rate',
  'collision',
  'quota',
  'secret',
] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/** A notice's heading: a desktop notification's title, an ntfy title. One line a phone shows whole. */
export const MAX_NOTICE_TITLE_CHARS = 80;
/** The one line for a person. About what a phone shows in two lines; the rest is on the dashboard. */
export const MAX_NOTICE_TEXT_CHARS = 280;
/** What is asked (a tool, a question, an error, the failing call). */
export const MAX_ASKED_CHARS = 200;
/** A session's title in a notice. */
export const MAX_SESSION_TITLE_CHARS = 120;
/**
 * A path in a notice (a project, a repository, a file). Cut from the front, so the end, which names
 * it, stays: `…/src/app/login.ts`.
 */
export const MAX_PATH_CHARS = 512;
/** Sessions a collision notice lists: a notice names a few; the dashboard has the rest. */
export const MAX_COLLISION_SESSIONS = 8;

/** A session as a notice names it. */
export interface NoticeSession {
  provider: ProviderId;
  id: string;
  title: string | null;
  project: string | null;
}

/** What every notice carries, whatever its kind. */
export interface NoticeCommon {
  /**
   * Names the crossing alike in every cctop process that sees it (a hash of what it is about and
   * when it began), so two processes that see one crossing hand over one notice (`spool.ts`).
   */
  key: string;
  harness: ProviderId | null;
  project: string | null;
  /** What is asked of the user, or what went wrong: the tool, the error, the failing call, the file. */
  asked: string | null;
  title: string;
  text: string;
  /** The dashboard page about it, when `[notify] dashboard` (or the running dashboard) gives a base. */
  url: string | null;
  /** When it was seen (ISO). */
  at: string;
}

export type Notice =
  /**
   * A session crossed into waiting on its user; `probably` when cctop inferred it (a quiet pending
   * call); `actions` when its agent holds the request for an answer from cctop (docs/act.md).
   */
  | (NoticeCommon & {
      kind: 'waiting';
      session: NoticeSession;
      probably: boolean;
      actions?: NoticeActions | null;
    })
  /** A session's turn ended on an error (an API failure, not a failed tool call). */
  | (NoticeCommon & { kind: 'error'; session: NoticeSession })
  /** One of a session's alerts (`live/alerts.ts`). */
  | (NoticeCommon & { kind: 'stall' | 'burn-rate' | 'error-loop' | 'secret'; session: NoticeSession })
  /** A budget reached 80% or 100% of its limit: about no one session. */
  | (NoticeCommon & { kind: 'budget'; session: null })
  /** A quota window passed the config's share, or runs out before it resets: about an account. */
  | (NoticeCommon & { kind: 'quota'; session: null })
  /** Running sessions writing the same file (or, `asked` null, the same repository); `session` is the first. */
  | (NoticeCommon & { kind: 'collision'; session: NoticeSession; sessions: NoticeSession[] });

/** Signed answer links for a held request (`approvals/sign.ts`): single-use, ending with the request. */
export interface NoticeActions {
  allow: string;
  deny: string;
  /** When the links stop being taken (ISO): the request's own end. */
  expiresAt: string;
}

/**
 * A collision as the collision watcher reports it: the sessions writing `path` (a file, at `level`
 * file) or somewhere in `repoRoot` (at `level` repo) at once.
 */
export interface CollisionInput {
  /** Names the collision while it lasts, whichever sessions are in it (`model/collision.ts`). */
  key?: string;
  repoRoot: string;
  path: string | null;
  level: 'file' | 'repo';
  sessions: readonly Pick<SessionDoc, 'provider' | 'id' | 'title' | 'project'>[];
}

/** What every notice is made with. */
export interface NoticeContext {
  /** The dashboard's base address (no trailing slash), or null: notices then carry no link. */
  dashboard: string | null;
  nowMs: number;
}

/**
 * How much of a string is read to make one line of `max` characters: a few times the bound fills it
 * once whitespace folds and escape sequences shrink to marks, however long the string is.
 */
const headOf = (max: number): number => max * 4 + 16;

/**
 * `s` as one safe line of at most `max` characters, `…` marking a cut. Only a bounded head is read:
 * a title of megabytes costs what one of a few hundred characters does.
 */
export function oneLine(s: string, max: number): string {
  const head = s.length > headOf(max) ? s.slice(0, headOf(max)) : s;
  // Cut before making safe: a sequence cut open runs to the end of the head and becomes one mark.
  const line = safeLine(head.replace(/[\r\n\t\f\v]+/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
  const chars = Array.from(line);
  if (chars.length <= max && head === s) return line;
  return `${chars.slice(0, max - 1).join('')}…`;
}

/** A path as one safe line of at most `max` characters, cut from the front so its end stays. */
export function pathLine(s: string, max: number = MAX_PATH_CHARS): string {
  const tail = s.length > headOf(max) ? s.slice(-headOf(max)) : s;
  const line = safeLine(tail.replace(/[\r\n\t\f\v]+/g, ' ')).trim();
  const chars = Array.from(line);
  if (chars.length <= max && tail === s) return line;
  return `…${chars.slice(-(max - 1)).join('')}`;
}

/** `oneLine`, or null for nothing or for a string that says nothing. */
export const optionalLine = (s: string | null, max: number): string | null => {
  if (s === null) return null;
  const line = oneLine(s, max);
  return line === '' ? null : line;
};

/** The last part of a path, the name a person knows a project by. */
function baseName(path: string | null): string | null {
  if (path === null) return null;
  const parts = path.split('/').filter((p) => p !== '');
  return parts.at(-1) ?? path;
}

function noticeSession(s: Pick<SessionDoc, 'provider' | 'id' | 'title' | 'project'>): NoticeSession {
  return {
    provider: s.provider,
    // An id is cut like any field: it names the session to a reader; links only use ids the dashboard accepts.
    id: oneLine(s.id, MAX_SESSION_TITLE_CHARS * 2),
    title: optionalLine(s.title, MAX_SESSION_TITLE_CHARS),
    project: s.project === null ? null : pathLine(s.project),
  };
}

/** The session as a sentence names it: its title, else its id. */
const label = (s: NoticeSession): string => s.title ?? s.id;

/** `Claude Code in app`: which agent, where. */
function place(s: NoticeSession): string {
  const where = baseName(s.project);
  const harness = providerById(s.provider).label;
  return where === null ? harness : `${harness} in ${where}`;
}

/** The dashboard's page for a session, when there is a dashboard and it would accept the id. */
function sessionLink(ctx: NoticeContext, id: string): string | null {
  if (ctx.dashboard === null || !sessionId(id).ok) return null;
  return `${ctx.dashboard}/session/${encodeURIComponent(id)}`;
}

/** A fixed-size name for what a crossing is about, the same in every process that computes it. */
function keyOf(parts: readonly (string | number | null)[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

function common(
  ctx: NoticeContext,
  o: { key: (string | number | null)[]; harness: ProviderId | null; project: string | null },
  words: { title: string; text: string; asked: string | null; url: string | null },
): NoticeCommon {
  return {
    key: keyOf(o.key),
    harness: o.harness,
    project: o.project === null ? null : pathLine(o.project),
    asked: optionalLine(words.asked, MAX_ASKED_CHARS),
    title: oneLine(words.title, MAX_NOTICE_TITLE_CHARS),
    text: oneLine(words.text, MAX_NOTICE_TEXT_CHARS),
    url: words.url,
    at: new Date(ctx.nowMs).toISOString(),
  };
}

/** A session's crossing into waiting or error. */
export function crossingNotice(
  c: StateCrossing,
  ctx: NoticeContext,
): Extract<Notice, { kind: 'waiting' | 'error' }> {
  const s = c.session;
  const session = noticeSession(s);
  // The crossing is named by when the session last wrote: the same wait seen by two processes has
  // one, and the next wait (after an answer was written) another. known limit: two prompts with no write
  // between them (parallel calls each asking) are one wait to every process, and told once.
  const since = s.lastActiveAt ?? new Date(ctx.nowMs).toISOString();
  const base = { key: [c.into, s.provider, s.id, since], harness: s.provider, project: s.project };
  const url = sessionLink(ctx, s.id);
  if (c.into === 'waiting') {
    // The agent's own word says what it asks (`Bash: rm -rf build`); an inferred wait has the
    // pending call's name at best.
    const asked =
      s.stateSource === 'inferred' ? (s.pendingTool ?? s.stateDetail) : (s.stateDetail ?? s.pendingTool);
    const how = c.probably ? 'is probably waiting for you' : 'is waiting for you';
    const words = {
      title: `Waiting: ${label(session)}`,
      text: `${label(session)} ${how} (${place(session)})${asked ? `: ${asked}` : ''}`,
      asked,
      url,
    };
    return { kind: 'waiting', session, probably: c.probably, ...common(ctx, base, words) };
  }
  const error = s.stateDetail;
  const words = {
    title: `Error: ${label(session)}`,
    text: `${label(session)} stopped on an error (${place(session)})${error ? `: ${error}` : ''}`,
    asked: error,
    url,
  };
  return { kind: 'error', session, ...common(ctx, base, words) };
}

const HOUR_MS = 3_600_000;

/** An alert from `live/alerts.ts`, in the words the live table and the dashboard use for it. */
export function alertNotice(a: Alert, ctx: NoticeContext): Notice {
  const t = alertText(a);
  const line = `${t.title}: ${t.body}`;
  if (a.kind === 'budget') {
    const { budget, fromDay } = a.state;
    const url = ctx.dashboard === null ? null : `${ctx.dashboard}/spend`;
    const c = common(
      ctx,
      { key: ['budget', budget.key, fromDay, a.level], harness: budget.harness, project: budget.project },
      { title: t.title, text: line, asked: null, url },
    );
    return { kind: 'budget', session: null, ...c };
  }
  if (a.kind === 'quota') {
    const f = a.figure;
    // One notice per window per period (its reset time) and reason, whichever process saw it.
    const c = common(
      ctx,
      {
        key: ['quota', f.harness, f.account ?? '', f.window, f.resetsAt ?? '', a.crossed.why],
        harness: f.harness,
        project: null,
      },
      { title: t.title, text: line, asked: null, url: null },
    );
    return { kind: 'quota', session: null, ...c };
  }
  const s = a.session;
  const session = noticeSession(s);
  const base = { harness: s.provider, project: s.project };
  const words = {
    title: t.title,
    text: `${line} (${place(session)})`,
    asked: null,
    url: sessionLink(ctx, s.id),
  };
  switch (a.kind) {
    case 'stall':
      // One stall per quiet spell: the spell is named by the last write before it.
      return {
        kind: 'stall',
        session,
        ...common(ctx, { ...base, key: ['stall', s.provider, s.id, s.lastActiveAt] }, words),
      };
    case 'burn':
      // At most one burn per session per clock hour, so the hour names it.
      return {
        kind: 'burn-rate',
        session,
        ...common(ctx, { ...base, key: ['burn', s.provider, s.id, Math.floor(ctx.nowMs / HOUR_MS)] }, words),
      };
    case 'error-loop':
      // known limit: a streak has no name two processes share (its length depends on when each read
      // the transcript), so a loop is named by its call: the same call looping again within the
      // spool's memory (`SPOOL_KEEP_MS`) is not told twice.
      return {
        kind: 'error-loop',
        session,
        ...common(
          ctx,
          { ...base, key: ['error-loop', s.provider, s.id, a.tool, a.input] },
          { ...words, asked: a.input ? `${a.tool}: ${a.input}` : a.tool },
        ),
      };
    case 'secret':
      // One notice per credential: its turn and ends name it alike in every process that reads it.
      return {
        kind: 'secret',
        session,
        ...common(
          ctx,
          {
            ...base,
            key: [
              'secret',
              s.provider,
              s.id,
              ...a.found.map((f) => `${f.seq}:${f.kind}:${f.head}:${f.tail}`),
            ],
          },
          words,
        ),
      };
  }
}

/** Two or more running sessions writing one file (or one repository) at once. */
export function collisionNotice(c: CollisionInput, ctx: NoticeContext): Notice | null {
  const all = c.sessions.map(noticeSession);
  const first = all[0];
  if (first === undefined) return null;
  const sessions = all.slice(0, MAX_COLLISION_SESSIONS);
  const names = sessions.map((s) => `${label(s)} (${providerById(s.provider).label})`).join(', ');
  const more = all.length > sessions.length ? ` and ${all.length - sessions.length} more` : '';
  const repo = baseName(c.repoRoot) ?? c.repoRoot;
  const file = c.level === 'file' && c.path !== null ? c.path : null;
  const harnesses = new Set(all.map((s) => s.provider));
  const identity = c.sessions.map((s) => `${s.provider}\u0000${s.id}`).sort();
  const words = {
    title: file === null ? `Collision in ${repo}` : `Collision: ${baseName(file)}`,
    text:
      file === null
        ? `${all.length} sessions are writing in ${repo} at once: ${names}${more}`
        : `${all.length} sessions are writing ${file} in ${repo}: ${names}${more}`,
    asked: file === null ? null : pathLine(file),
    url: sessionLink(ctx, c.sessions[0]!.id),
  };
  const key =
    c.key === undefined ? ['collision', c.repoRoot, file, c.level, ...identity] : ['collision', c.key];
  const harness = harnesses.size === 1 ? first.provider : null;
  return {
    kind: 'collision',
    session: first,
    sessions,
    ...common(ctx, { key, harness, project: c.repoRoot }, words),
  };
}
