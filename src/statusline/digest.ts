/**
 * What the status line knows of the whole history, kept in one small file in cctop's cache
 * (`statusline.json`): today's spend over every session, the recent Claude sessions' own figures,
 * and the active block and nearest budget. The background refresh (`refresh.ts`) writes it from the
 * session index after each refresh; the status line reads only this.
 *
 * Why not the index itself: even answering from its kept build (`SessionIndex.peek()`), the index
 * decodes every session it holds, about half a second for a 1.2 GiB history, and Claude Code runs
 * the status line after every message. This file is a few KiB and parses in well under a millisecond.
 *
 * It is a cache: a file that is missing, unreadable, of another version or of another shape reads as
 * no digest (and the next refresh writes a good one). Nothing in it is trusted further than that.
 *
 * Not here: deciding when it is too old (`gather.ts`), or writing it (`refresh.ts`, so that the status
 * line, which only reads it, loads no writer).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { count, num, obj, text } from '../model/json.js';

export const DIGEST_FILE = 'statusline.json';

/** Bumped when a field changes meaning; an older file then reads as none. */
export const DIGEST_VERSION = 1;

/** One Claude session as the index last built it. */
export interface DigestSession {
  model: string | null;
  usd: number | null;
  /** The newest prompt, and where Claude compacts (cctop's context %: used / compactAt). */
  contextUsed: number | null;
  compactAt: number | null;
}

export interface Digest {
  version: number;
  /** When the index answered what this holds. */
  builtAtMs: number;
  /** Today's local day, as the refresh saw it, and every session's spend in it. */
  today: { startMs: number; endMs: number; usd: number | null };
  /** Recent Claude sessions by id. */
  sessions: Record<string, DigestSession>;
  /** The active 5-hour block, when one is open. */
  block: { usd: number; endsAtMs: number } | null;
  /** The budget nearest its limit. */
  budget: { name: string; share: number } | null;
}

export const digestPath = (cacheDir: string): string => join(cacheDir, DIGEST_FILE);

/** The digest in `cacheDir`, or null when there is none that reads. */
export function readDigest(cacheDir: string): Digest | null {
  let raw: string;
  try {
    raw = readFileSync(digestPath(cacheDir), 'utf8');
  } catch {
    return null;
  }
  let o: Record<string, unknown> | null;
  try {
    // Plain `JSON.parse`, not the depth-bounded reader transcripts need: this is cctop's own file,
    // written flat by `refresh.ts`, and the bounded reader's scan of it would be a tenth of the run.
    o = obj(JSON.parse(raw));
  } catch {
    return null;
  }
  if (o === null || o.version !== DIGEST_VERSION) return null;
  const builtAtMs = count(o.builtAtMs);
  const today = obj(o.today);
  const startMs = num(today?.startMs);
  const endMs = num(today?.endMs);
  if (builtAtMs === null || today === null || startMs === null || endMs === null) return null;
  return {
    version: DIGEST_VERSION,
    builtAtMs,
    today: { startMs, endMs, usd: count(today.usd) },
    sessions: sessionsOf(obj(o.sessions)),
    block: blockOf(obj(o.block)),
    budget: budgetOf(obj(o.budget)),
  };
}

function sessionsOf(o: Record<string, unknown> | null): Record<string, DigestSession> {
  const out: Record<string, DigestSession> = {};
  for (const [id, v] of Object.entries(o ?? {})) {
    const s = obj(v);
    if (s === null) continue;
    out[id] = {
      model: text(s.model),
      usd: count(s.usd),
      contextUsed: count(s.contextUsed),
      compactAt: count(s.compactAt),
    };
  }
  return out;
}

function blockOf(o: Record<string, unknown> | null): Digest['block'] {
  const usdSoFar = count(o?.usd);
  const endsAtMs = num(o?.endsAtMs);
  return usdSoFar === null || endsAtMs === null ? null : { usd: usdSoFar, endsAtMs };
}

function budgetOf(o: Record<string, unknown> | null): Digest['budget'] {
  const name = text(o?.name);
  const share = count(o?.share);
  return name === null || share === null ? null : { name, share };
}
