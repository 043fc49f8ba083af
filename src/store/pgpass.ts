/**
 * The password file PostgreSQL's own tools read (`~/.pgpass`, or `PGPASSFILE`), read the way libpq
 * reads it: lines `host:port:database:user:password`, `*` matching anything, `\:` and `\\` escaped,
 * the first matching line winning, and the file ignored when others may read it (mode 0600 or
 * stricter), as psql ignores it. `pg` still reads the file itself but warns that it will stop; cctop
 * reads it here instead so that a user's `~/.pgpass` keeps working, silently.
 *
 * Not here: connecting (`connect.ts`).
 */

import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '../providers/types.js';
import { readRegularText } from '../regular-file.js';

/** The largest password file read: a few lines per database; a bigger file is not one. */
export const MAX_PGPASS_BYTES = 1 << 20;

export interface PassQuery {
  host: string;
  port: number;
  database: string;
  user: string;
}

/** The fields of one line, unescaped, or null for a comment or a line of too few fields. */
function fieldsOf(line: string): string[] | null {
  if (line.startsWith('#') || line.trim() === '') return null;
  const fields: string[] = [];
  let cur = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '\\' && i + 1 < line.length) cur += line[++i];
    else if (ch === ':' && fields.length < 4) {
      fields.push(cur);
      cur = '';
    } else cur += ch;
  }
  fields.push(cur);
  return fields.length === 5 ? fields : null;
}

/** The password for `q` from the file, or undefined when it has none (or cannot be used). */
export function pgpassLookup(env: Env, q: PassQuery): string | undefined {
  const path = env.PGPASSFILE || join(env.HOME || homedir(), '.pgpass');
  // Without waiting, and only a regular file within the bound (`regular-file.ts`); the mode is the
  // open file's, so it is the one checked that is read.
  const r = readRegularText(path, MAX_PGPASS_BYTES);
  if (r.kind !== 'read') return undefined;
  if (process.platform !== 'win32' && (r.stat.mode & 0o077) !== 0) return undefined;
  const text = r.text;
  // A socket directory counts as "localhost", as libpq counts it.
  const host = q.host.startsWith('/') ? 'localhost' : q.host;
  const wanted = [host, String(q.port), q.database, q.user];
  for (const line of text.split(/\r?\n/)) {
    const f = fieldsOf(line);
    if (f === null) continue;
    if (wanted.every((w, i) => f[i] === '*' || f[i] === w)) return f[4];
  }
  return undefined;
}
