/**
 * The two per-session answers, made cheap to ask for again.
 *
 * A conversation is a fresh read of a transcript, so it carries a `stamp`: a digest of the size and
 * modification time of every file of the session (and of the question asked). A page polling a live
 * session sends the stamp back as `since=` and, while no file has moved, gets `{unchanged: true}` for
 * the price of a few `stat` calls. A report is built from what the live picture already holds, so
 * it is keyed by the picture's version.
 *
 * Both keep the newest few rendered answers, so several tabs on one busy session cost one read per
 * change, not one per tab.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import type { LiveSessions } from '../../live/engine.js';
import type { SessionDoc } from '../../model/document.js';
import type { ChatWindow } from './api.js';
import { MAX_CACHED_ANSWERS } from './limits.js';

class Recent<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
}

export interface ChatQuery {
  before: number | null;
  agent: string | null;
}

/** The files a session was built from: its transcript and its subagents' (as the index grouped them). */
function sessionFiles(live: LiveSessions, s: SessionDoc): string[] {
  const out = new Set<string>([s.file]);
  for (const p of live.files) {
    if (p.file.provider !== s.provider) continue;
    const key = p.file.sessionHint ?? p.result.facts.sessionId ?? p.file.path;
    if (key === s.id) out.add(p.file.path);
  }
  return [...out].sort();
}

/** Where the session's files stand now; changes whenever any of them is written, grown or replaced. */
export function chatStamp(live: LiveSessions, s: SessionDoc, q: ChatQuery): string {
  const h = createHash('sha256');
  h.update(`${s.provider}\0${s.id}\0${q.before ?? ''}\0${q.agent ?? ''}`);
  for (const path of sessionFiles(live, s)) {
    const st = statSync(path, { bigint: true, throwIfNoEntry: false });
    h.update(`\0${path}\0${st ? `${st.size}-${st.mtimeNs}-${st.ino}` : 'gone'}`);
  }
  return h.digest('hex').slice(0, 24);
}

export class Answers {
  private readonly chats = new Recent<string>(MAX_CACHED_ANSWERS);
  private readonly reports = new Recent<string>(MAX_CACHED_ANSWERS);

  constructor(
    private readonly live: LiveSessions,
    /** Names this run, so a report's tag from an earlier run never matches. */
    private readonly run: string,
  ) {}

  /** The conversation as the JSON `/api/chat` sends, or null when `since` is still current. */
  chat(s: SessionDoc, q: ChatQuery, since: string | null): { stamp: string; body: string | null } {
    const stamp = chatStamp(this.live, s, q);
    if (since === stamp) return { stamp, body: null };
    let body = this.chats.get(stamp);
    if (body === undefined) {
      const c = this.live.conversation(s, q);
      const answer: ChatWindow = { session: s.id, provider: s.provider, agent: q.agent, stamp, ...c };
      body = JSON.stringify(answer);
      this.chats.set(stamp, body);
    }
    return { stamp, body };
  }

  /** The report as JSON, with the version it was built at (for an ETag). */
  report(s: SessionDoc): { tag: string; body: string } {
    const tag = `${this.run}.${this.live.version}.${s.provider}.${s.id}`;
    let body = this.reports.get(tag);
    if (body === undefined) {
      body = JSON.stringify(this.live.report(s));
      this.reports.set(tag, body);
    }
    return { tag, body };
  }
}
