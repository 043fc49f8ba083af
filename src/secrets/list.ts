/**
 * Where secrets were found: the search index keeps each one's session, turn, kind and ends as it
 * reads the transcripts (`search/read.ts`), so listing them is the search's catch-up and one query.
 * Revealing one reads that session's transcript again and keeps only that turn's secrets.
 *
 * Not here: finding (`detect.ts`), printing (`views/cli/secrets.ts`).
 */
import { isCorruption } from '../index/damage.js';
import type { Turn, TurnFeed } from '../model/conversation.js';
import { cacheDir } from '../paths.js';
import type { Env } from '../providers/types.js';
import { type Behind, catchUp } from '../search/catch-up.js';
import { readers } from '../search/read.js';
import type { FoundSecret } from '../search/rows.js';
import { SearchDb } from '../search/store.js';
import type { Secret } from './redact.js';

export type Listed =
  | { kind: 'listed'; secrets: FoundSecret[]; behind: Behind | null; notice: string | null }
  | { kind: 'unavailable'; why: string };

/** Bring the index up to date within `budgetMs`, then every secret it holds, newest first. */
export async function listSecrets(env: Env, budgetMs: number): Promise<Listed> {
  const opened = SearchDb.open(cacheDir(env));
  if (opened.kind === 'unavailable') return opened;
  const db = opened.db;
  try {
    const caught = await catchUp(db, {
      env,
      clock: () => performance.now(),
      deadline: performance.now() + Math.max(0, budgetMs),
    });
    const notice = [opened.notice, caught.notice].filter((n) => n !== null).join('; ');
    return {
      kind: 'listed',
      secrets: db.secrets(),
      behind: caught.behind,
      notice: notice.length > 0 ? notice : null,
    };
  } catch (err) {
    if (!isCorruption(err)) throw err;
    return {
      kind: 'unavailable',
      why: `the search index is damaged (${(err as Error).message}); run cctop search once to start it again`,
    };
  } finally {
    db.close();
  }
}

/** How many secrets the index holds now, without reading anything (`cctop doctor`); null: no index yet. */
export function countSecrets(env: Env): number | null {
  const opened = SearchDb.open(cacheDir(env));
  if (opened.kind === 'unavailable') return null;
  try {
    return opened.db.secretCount();
  } catch (err) {
    if (!isCorruption(err)) throw err;
    return null;
  } finally {
    opened.db.close();
  }
}

/** The secrets of turn `seq` of a listed session, in full, read again from its transcript. */
export async function revealTurn(found: FoundSecret, seq: number): Promise<Secret[]> {
  const r = await readers();
  const out: Secret[] = [];
  const feed: TurnFeed = {
    from: null,
    begin: () => {},
    turn: (_t: Turn) => {},
    end: () => {},
    secret: (at, s) => {
      if (at === seq) out.push(s);
    },
  };
  r.read(r.providerOf(found.provider), found.path, feed);
  return out;
}
