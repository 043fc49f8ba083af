/**
 * What cctop put into a settings file, kept beside it as `<name>.cctop.json`: per entry, the value
 * it wrote (so the entry is known as cctop's even after cctop moved somewhere its name does not show,
 * a development checkout), what was there before it (a foreign status line that `--replace`
 * displaced, put back by `remove`), how many objects it made on the way (taken away again), and the
 * exact text an edit replaced where `remove` must give it back byte for byte (hook lists).
 *
 * Beside the settings file rather than in cctop's cache: a displaced value must outlive a cleared
 * cache, and two config directories (`CLAUDE_CONFIG_DIR`) must not share one record.
 *
 * Not here: the settings file itself (`settings-file.ts`).
 */
import { unlinkSync } from 'node:fs';
import { type JsonObject, obj } from '../model/json.js';
import { readRegularText } from '../regular-file.js';
import { writeAtomically } from './atomic.js';
import { InstallError } from './settings-file.js';

export const SIDECAR_SUFFIX = '.cctop.json';

const SIDECAR_VERSION = 1;

export interface Installed {
  /** The value cctop wrote. */
  wrote: unknown;
  /** What was at the place before (a foreign entry replaced); absent when the place was empty. */
  displaced?: unknown;
  /** Objects made on the way to the entry, to take away with it. */
  made: number;
  /**
   * The exact text an edit replaced, put back by `remove`: the inside of an empty container cctop
   * filled, the spelling of a value it displaced (a TOML array laid out over several lines), the
   * blank text of a file it filled, or the blank line an appended TOML table was set apart by.
   */
  before?: string;
}

/** Entries by their path, joined with dots (`statusLine`, `mcpServers.cctop`). */
export type Sidecar = Record<string, Installed>;

export const entryKey = (path: readonly string[]): string => path.join('.');

/**
 * The most of a record read: it holds a few entries cctop wrote (a status line, a server, hooks), a
 * few KiB; 1 MiB is far past any it writes.
 */
const MAX_SIDECAR_BYTES = 1024 * 1024;

/** The record beside `settingsReal` (empty when there is none). A record that does not read is refused. */
export function readSidecar(settingsReal: string): Sidecar {
  const path = `${settingsReal}${SIDECAR_SUFFIX}`;
  // Without waiting, and only a regular file; absent (or not a file cctop could have written) is none.
  const r = readRegularText(path, MAX_SIDECAR_BYTES);
  if (r.kind === 'missing') return {};
  if (r.kind !== 'read')
    throw new InstallError(`${path} is not a record cctop can read; move it aside and run this again`);
  const text = r.text;
  let parsed: JsonObject | null = null;
  try {
    parsed = obj(JSON.parse(text));
  } catch {
    parsed = null;
  }
  const entries = obj(parsed?.entries);
  // It may hold a status line the user wants back: refused rather than overwritten.
  if (parsed === null || parsed.version !== SIDECAR_VERSION || entries === null)
    throw new InstallError(`${path} is not a record cctop can read; move it aside and run this again`);
  const out: Sidecar = {};
  for (const [key, v] of Object.entries(entries)) {
    const e = obj(v);
    if (e === null || !Object.hasOwn(e, 'wrote')) continue;
    const made = typeof e.made === 'number' && Number.isInteger(e.made) && e.made >= 0 ? e.made : 0;
    out[key] = {
      wrote: e.wrote,
      made,
      ...(Object.hasOwn(e, 'displaced') ? { displaced: e.displaced } : {}),
      ...(typeof e.before === 'string' ? { before: e.before } : {}),
    };
  }
  return out;
}

/** Keep the record (removed when it is empty). */
export function writeSidecar(settingsReal: string, sidecar: Sidecar): void {
  const path = `${settingsReal}${SIDECAR_SUFFIX}`;
  if (Object.keys(sidecar).length === 0) {
    try {
      unlinkSync(path);
    } catch {
      // Not there.
    }
    return;
  }
  // Only owner-readable: a displaced entry may carry a command line with a token in it.
  writeAtomically(
    path,
    `${JSON.stringify({ version: SIDECAR_VERSION, entries: sidecar }, null, 2)}\n`,
    0o600,
  );
}
