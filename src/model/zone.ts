/**
 * The system time zone's name as `Intl` gives it, without asking `Intl` on every run: its first use
 * loads the time zone data, 20 to 100 ms here, a third of a warm `cctop --json`. The name is kept in
 * a small file in cctop's cache, keyed by what decides it ($TZ and where /etc/localtime points), so
 * changing either asks `Intl` again.
 *
 * Not here: offsets and day arithmetic (`time.ts` reads them from `Date`, which needs no `Intl`).
 */
import { readFileSync, readlinkSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { privateDir } from '../private.js';

/** The file in cctop's cache the name is kept in. */
export const ZONE_FILE = 'zone.json';

let memoPath: string | null = null;

/** Keep the resolved name in `path` (a JSON file in cctop's cache); without it, `Intl` is asked. */
export function keepZoneNameIn(path: string | null): void {
  memoPath = path;
}

/** What decides the system zone: the TZ variable and the host's zone file. */
export function zoneKey(): string {
  let host: string;
  try {
    host = readlinkSync('/etc/localtime');
  } catch {
    const st = statSync('/etc/localtime', { throwIfNoEntry: false });
    host = st ? `file:${st.size}:${st.mtimeMs}` : 'none';
  }
  return `${process.env.TZ ?? ''}\n${host}`;
}

export function systemTimeZone(): string {
  if (memoPath === null) return Intl.DateTimeFormat().resolvedOptions().timeZone;
  const key = zoneKey();
  try {
    const kept = JSON.parse(readFileSync(memoPath, 'utf8')) as { key?: unknown; name?: unknown };
    if (kept.key === key && typeof kept.name === 'string' && kept.name.length > 0) return kept.name;
  } catch {
    // Not kept yet, or unreadable: ask Intl.
  }
  const name = Intl.DateTimeFormat().resolvedOptions().timeZone;
  try {
    privateDir(dirname(memoPath));
    const tmp = `${memoPath}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ key, name }));
    renameSync(tmp, memoPath);
  } catch {
    // A read-only cache only costs the next run the same lookup.
  }
  return name;
}
