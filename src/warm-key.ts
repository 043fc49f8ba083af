/**
 * Whether the warm document's key still holds (`index/warm-doc-key.ts` records it): the environment
 * variables, the day, the kept problems' due time, the settings and price files, the config file's
 * bytes, the zone and the building code, as they were when the document was written. Asked by the
 * warm answer (`warm-answer.ts`) before anything else of the document; loads only `node:fs`, the
 * zone's key and, when the build recorded them, the code's versions.
 *
 * Not here: the transcripts' freshness (`index/seen-moved.ts`), or whether an agent has a say (`warm-agents.ts`).
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { DocHeader } from './index/warm-doc-layout.js';
import { keepZoneNameIn, ZONE_FILE, zoneKey } from './model/zone.js';
import type { Env } from './providers/types.js';

/** What the document depends on besides the transcripts that is not as it was, or null. */
export async function keyMoved(
  h: DocHeader,
  env: Env,
  cache: string,
  nowMs: number,
  build: () => Promise<string | null>,
): Promise<string | null> {
  const k = h.key;
  for (const [name, value] of k.env) if ((env[name] ?? null) !== value) return `$${name} changed`;
  if (nowMs < k.day[0] || nowMs >= k.day[1]) return 'another day began';
  if (k.problemsUntil !== null && nowMs > k.problemsUntil) return 'a kept problem is due';
  for (const [path, size, mtimeMs] of k.stats) {
    const st = statSync(path, { throwIfNoEntry: false });
    if ((st?.size ?? null) !== size || (st?.mtimeMs ?? null) !== mtimeMs) return `${path} changed`;
  }
  if (k.config !== null && !sameBytes(...k.config)) return `${k.config[0]} changed`;
  for (const path of k.absent)
    if (statSync(path, { throwIfNoEntry: false }) !== undefined) return `${path} exists`;
  if (zoneKey() !== k.zoneKey) return 'the system time zone changed';
  keepZoneNameIn(join(cache, ZONE_FILE));
  return (await build()) === k.build ? null : 'cctop was built again';
}

/**
 * Whether the file at `path` is a regular file of `bytes` bytes with this CRC-32. Opened without
 * waiting and read only once `fstat` says it is a file of that size: whatever sits at the path (a
 * named pipe) cannot hold the answer up.
 */
function sameBytes(path: string, bytes: number, crc: number): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    // Gone, or not ours to read: not the file the document was written with.
    return false;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size !== bytes) return false;
    const b = Buffer.alloc(bytes);
    let at = 0;
    while (at < bytes) {
      const got = readSync(fd, b, at, bytes - at, null);
      if (got === 0) return false;
      at += got;
    }
    return crc32(b) >>> 0 === crc;
  } catch {
    // Unreadable now: the full route says what is wrong.
    return false;
  } finally {
    closeSync(fd);
  }
}

/**
 * The building code's version as `npm run build` recorded it (`index/version.ts`), or null when it
 * did not, or the code was compiled again since (then only the full route can work it out).
 */
export async function recordedBuild(): Promise<string | null> {
  const here = new URL('.', import.meta.url);
  const recorded = statSync(new URL('index/code-versions.js', here), { throwIfNoEntry: false });
  const compiled = statSync(new URL('index/sessions.js', here), { throwIfNoEntry: false });
  if (recorded === undefined || compiled === undefined || compiled.mtimeMs > recorded.mtimeMs) return null;
  let m: unknown;
  try {
    // A name in a variable: the module exists only once the build wrote it.
    const name = './index/code-versions.js';
    m = await import(name);
  } catch {
    // A plain `tsc` wrote no versions.
    return null;
  }
  const versions = isObj(m) && isObj(m.VERSIONS) ? m.VERSIONS : null;
  return typeof versions?.build === 'string' ? versions.build : null;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
