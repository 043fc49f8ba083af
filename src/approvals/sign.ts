/**
 * Signed answer links, for notifications (docs/act.md): a link that answers one held request one way
 * (allow or deny), carried by an ntfy action button or a webhook's payload, and taken by `cctop serve`
 * without its token. The signature is the credential: an HMAC-SHA256, with a secret of this user's
 * kept in the runtime directory (`approvals.key`, 0600, made on first use), over the request's id, the
 * verdict, the way it was sent and when it expires (the request's own end). So a link cannot be
 * turned into another answer, another request's, or a later one.
 *
 * Single use comes from the request: it takes one answer, the first (`answer.ts`), so the same link,
 * or its twin for the other verdict, is refused once either was used.
 *
 * Not here: the route (`views/serve/held.ts`), the notices (`notify/`).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The secret's file in the runtime directory. */
export const LINK_KEY_FILE = 'approvals.key';
/** 256 bits: as many as the HMAC's hash gives. */
const KEY_BYTES = 32;

/** The two answers a link can carry (words need a page: the dashboard's). */
export type LinkVerdict = 'allow' | 'deny';
/** How a link was sent: journaled as the answerer's way. */
export type LinkVia = 'ntfy' | 'webhook';

export const isLinkVerdict = (s: string): s is LinkVerdict => s === 'allow' || s === 'deny';
export const isLinkVia = (s: string): s is LinkVia => s === 'ntfy' || s === 'webhook';

/** This user's link secret, made on first use (null when the runtime directory will not hold it). */
export function linkKey(runtime: string): Buffer | null {
  const path = join(runtime, LINK_KEY_FILE);
  try {
    const fd = openSync(path, 'wx', 0o600);
    try {
      writeSync(fd, randomBytes(KEY_BYTES).toString('hex'));
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    // There already (the usual case): read below.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return null;
  }
  try {
    const hex = readFileSync(path, 'utf8').trim();
    return /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, 'hex') : null;
  } catch {
    // Unreadable: no links can be signed or checked.
    return null;
  }
}

/** What a link says. */
export interface LinkClaim {
  id: string;
  verdict: LinkVerdict;
  via: LinkVia;
  /** When it stops being taken (ms since the epoch): the request's own end. */
  expiresAt: number;
}

const message = (c: LinkClaim): string =>
  `cctop-answer-link.v1\n${c.id}\n${c.verdict}\n${c.via}\n${c.expiresAt}`;

export function signLink(key: Buffer, c: LinkClaim): string {
  return createHmac('sha256', key).update(message(c)).digest('base64url');
}

/** Whether `sig` signs `c`, and whether it is still in time. */
export function checkLink(key: Buffer, c: LinkClaim, sig: string, now: number): 'ok' | 'expired' | 'bad' {
  const want = Buffer.from(signLink(key, c));
  const got = Buffer.from(sig);
  if (got.length !== want.length || !timingSafeEqual(got, want)) return 'bad';
  return now >= c.expiresAt ? 'expired' : 'ok';
}

/** The path and query of a signed link (the dashboard's base goes before it). */
export function linkPath(key: Buffer, c: LinkClaim): string {
  return `/act/${c.id}/${c.verdict}?via=${c.via}&exp=${c.expiresAt}&sig=${signLink(key, c)}`;
}
