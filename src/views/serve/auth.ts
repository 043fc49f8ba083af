/**
 * Who may read: a random token per run (or one kept in `--token-file`), presented as
 * `Authorization: Bearer`, as `?t=` on the link cctop prints, or as the cookie that link leaves.
 *
 * Two levels. The full token will also act (answer an approval, type into a session) once acting
 * routes exist; the read-only token, derived from it, never will. Both are minted now so a read-only
 * link handed out today stays read-only when those routes arrive.
 *
 * Tokens are compared as SHA-256 digests with `timingSafeEqual`: equal lengths always, and the time
 * taken does not depend on how many leading characters of a guess are right. Both levels are checked
 * on every request, so the time does not say which one matched either.
 *
 * Not here: TLS (a loopback socket does not need it; see docs/serve.md for a LAN or a tunnel).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type Level = 'full' | 'read';

/** Random bytes in a token: 256 bits, beyond guessing at any request rate. */
const TOKEN_BYTES = 32;

/** A presented token longer than this is refused without hashing (no real token is near it). */
export const MAX_TOKEN_CHARS = 256;

/** What a token looks like, in a token file or a URL: base64url. */
export const TOKEN_SHAPE = /^[A-Za-z0-9_-]{32,256}$/;

export const newToken = (): string => randomBytes(TOKEN_BYTES).toString('base64url');

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

export class Tokens {
  private readonly fullDigest: Buffer;
  private readonly readDigest: Buffer;
  /** The read-only token: derived, so a kept `--token-file` keeps its read-only link too. */
  readonly read: string;

  constructor(readonly full: string) {
    this.read = createHmac('sha256', full).update('cctop read-only link').digest('base64url');
    this.fullDigest = digest(full);
    this.readDigest = digest(this.read);
  }

  /** The level a presented token grants, or null. Constant time in the token's content. */
  level(presented: string): Level | null {
    if (presented.length === 0 || presented.length > MAX_TOKEN_CHARS) return null;
    const d = digest(presented);
    // Both comparisons run every time: a short-circuit would tell a full token from a read one by time.
    const full = timingSafeEqual(d, this.fullDigest);
    const read = timingSafeEqual(d, this.readDigest);
    return full ? 'full' : read ? 'read' : null;
  }
}

/** Cookies ignore ports: two cctops on one host need two cookie names or they log each other out. */
export const cookieName = (port: number): string => `cctop_${port}`;

export type Presented =
  | { kind: 'none' }
  | { kind: 'token'; token: string; via: 'bearer' | 'query' | 'cookie' }
  | { kind: 'malformed'; why: string };

function cookieValue(header: string | null, name: string): string | null {
  if (header === null) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * The token a request carries. An explicit one (header, then `?t=`) wins over the cookie: a wrong
 * explicit token is refused even when the cookie would pass, so a stale link says it is stale.
 */
export function presented(req: Request, port: number): Presented {
  const auth = req.headers.get('authorization');
  if (auth !== null) {
    const m = /^Bearer +(\S+)$/i.exec(auth);
    if (!m) return { kind: 'malformed', why: 'Authorization: expected "Bearer <token>"' };
    return { kind: 'token', token: m[1]!, via: 'bearer' };
  }
  const t = new URL(req.url).searchParams.get('t');
  if (t !== null) return { kind: 'token', token: t, via: 'query' };
  const c = cookieValue(req.headers.get('cookie'), cookieName(port));
  if (c !== null) return { kind: 'token', token: c, via: 'cookie' };
  return { kind: 'none' };
}

/** The cookie a first visit with `?t=` leaves: unreadable to scripts, never sent by another site. */
export function sessionCookie(port: number, token: string): string {
  return `${cookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}
