/**
 * A notice read back from the spool (`spool.ts`), where another cctop process wrote it: every field
 * checked and bounded again, as `notice.ts` bounds a notice it makes, so a damaged or foreign file
 * yields null or a notice within the bounds, never more.
 *
 * Not here: making a notice from a crossing (`notice.ts`), or finding and claiming spool files
 * (`spool.ts`).
 */
import { PROVIDERS, type ProviderId } from '../model/facts.js';
import { bool, obj, str } from '../model/json.js';
import {
  MAX_ASKED_CHARS,
  MAX_COLLISION_SESSIONS,
  MAX_NOTICE_TEXT_CHARS,
  MAX_NOTICE_TITLE_CHARS,
  MAX_SESSION_TITLE_CHARS,
  NOTICE_KINDS,
  type Notice,
  type NoticeActions,
  type NoticeCommon,
  type NoticeKind,
  type NoticeSession,
  oneLine,
  optionalLine,
  pathLine,
} from './notice.js';

const LINK = /^https?:\/\/[\x21-\x7e]{1,2048}$/;

function readActions(v: unknown): NoticeActions | null {
  const o = obj(v);
  const allow = str(o?.allow);
  const deny = str(o?.deny);
  const expiresAt = str(o?.expiresAt);
  if (allow === null || deny === null || expiresAt === null) return null;
  if (!LINK.test(allow) || !LINK.test(deny) || !Number.isFinite(Date.parse(expiresAt))) return null;
  return { allow, deny, expiresAt };
}

const isProvider = (v: unknown): v is ProviderId => (PROVIDERS as readonly unknown[]).includes(v);
const isKind = (v: unknown): v is NoticeKind => (NOTICE_KINDS as readonly unknown[]).includes(v);

function readSession(v: unknown): NoticeSession | null {
  const o = obj(v);
  const id = str(o?.id);
  if (o === null || !isProvider(o.provider) || id === null) return null;
  const title = str(o.title);
  const project = str(o.project);
  return {
    provider: o.provider,
    id: oneLine(id, MAX_SESSION_TITLE_CHARS * 2),
    title: optionalLine(title, MAX_SESSION_TITLE_CHARS),
    project: project === null ? null : pathLine(project),
  };
}

/** A notice as `JSON.parse` gave it back, checked; null when it is not one. */
export function readNotice(v: unknown): Notice | null {
  const o = obj(v);
  if (o === null || !isKind(o.kind)) return null;
  const key = str(o.key);
  const title = str(o.title);
  const text = str(o.text);
  const at = str(o.at);
  if (key === null || !/^[0-9a-f]{32}$/.test(key) || title === null || text === null || at === null)
    return null;
  if (!Number.isFinite(Date.parse(at))) return null;
  const url = str(o.url);
  const project = str(o.project);
  const c: NoticeCommon = {
    key,
    harness: isProvider(o.harness) ? o.harness : null,
    project: project === null ? null : pathLine(project),
    asked: optionalLine(str(o.asked), MAX_ASKED_CHARS),
    title: oneLine(title, MAX_NOTICE_TITLE_CHARS),
    text: oneLine(text, MAX_NOTICE_TEXT_CHARS),
    url: url !== null && /^https?:\/\/[\x21-\x7e]{1,2048}$/.test(url) ? url : null,
    at,
  };
  if (o.kind === 'budget' || o.kind === 'quota') return { kind: o.kind, session: null, ...c };
  const session = readSession(o.session);
  if (session === null) return null;
  switch (o.kind) {
    case 'waiting': {
      const actions = readActions(o.actions);
      return { kind: 'waiting', session, probably: bool(o.probably), ...(actions ? { actions } : {}), ...c };
    }
    case 'error':
      return { kind: 'error', session, ...c };
    case 'stall':
    case 'burn-rate':
    case 'error-loop':
    case 'secret':
      return { kind: o.kind, session, ...c };
    case 'collision': {
      const list = Array.isArray(o.sessions) ? o.sessions.slice(0, MAX_COLLISION_SESSIONS) : [];
      const sessions = list.map(readSession).filter((s): s is NoticeSession => s !== null);
      return { kind: 'collision', session, sessions, ...c };
    }
  }
}
