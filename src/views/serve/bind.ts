/**
 * Where the server listens, and the links it prints for it.
 */
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** The port a dashboard tries first (the next free one after it when busy). */
export const DEFAULT_PORT = 7777;

/** 127.0.0.0/8, ::1 and the name `localhost`: addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  return mapped !== null && mapped[1]!.startsWith('127.');
}

/** Every-interface binds: the link names this machine's own addresses instead. */
const isWildcard = (host: string): boolean => host === '0.0.0.0' || host === '::' || host === '[::]';

const hostPart = (h: string): string => (isIP(h) === 6 ? `[${h}]` : h);

/** The base URLs a user can open, the likeliest first. */
export function baseUrls(bind: string, port: number): string[] {
  if (!isWildcard(bind)) return [`http://${hostPart(bind)}:${port}`];
  const out: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.internal) continue;
      if (a.family === 'IPv4' || (bind === '::' && !a.address.startsWith('fe80:')))
        out.push(`http://${hostPart(a.address)}:${port}`);
    }
  }
  out.push(`http://127.0.0.1:${port}`);
  return out;
}

/**
 * Host names a page on a loopback bind may be reached as. Anything else is a DNS-rebinding page
 * (a site whose name was pointed at 127.0.0.1 to read this server as if it were its own).
 */
export function loopbackHostAllowed(hostHeader: string | null, port: number): boolean {
  if (hostHeader === null) return false;
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:]+)(?::(\d+))?$/.exec(hostHeader.trim());
  if (!m) return false;
  if (m[2] !== undefined && Number(m[2]) !== port) return false;
  return isLoopback(m[1]!);
}
