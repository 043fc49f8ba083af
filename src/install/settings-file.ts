/**
 * One agent settings file, read and written the way a file the user owns must be: a file that does
 * not read is refused (its name, line and column in the message) and left untouched; a write goes to
 * a temporary file in the same directory, gets the old file's permissions, and is renamed over it in
 * one step, so a crash leaves the old file or the new one, never half of each; and the file as it was
 * just before each write is kept beside it as `<name>.cctop.bak`.
 *
 * A settings file that is a symbolic link (a dotfiles repository's) is written through the link: the
 * file it points at is replaced, the link stays.
 *
 * Not here: what goes into the file (`apply.ts` decides), or which file an agent reads (`targets.ts`).
 */
import { realpathSync, statSync, unlinkSync } from 'node:fs';
import { type JsonObject, obj } from '../model/json.js';
import { describeFsError } from '../model/problems.js';
import { readRegularText } from '../regular-file.js';
import { writeAtomically } from './atomic.js';
import { type Layout, NEW_LAYOUT, readSettingsText, type Syntax } from './jsonc.js';

/**
 * The largest settings file the installer will rewrite. Claude Code's own settings are a few KiB; a
 * long permission allow-list reaches a few hundred. Past 4 MiB the file is not one a person keeps by
 * hand, and rewriting it whole to add one key would be the wrong tool.
 */
export const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;

/** What the file as it was before cctop's latest write is kept as, beside it. */
export const BACKUP_SUFFIX = '.cctop.bak';

/** A file the installer will not touch, and why; the message names the file and what to do. */
export class InstallError extends Error {}

export interface SettingsFile {
  /** The path as the agent names it. */
  path: string;
  /** The file written: `path` itself, or what its symbolic link points at. */
  real: string;
  /** The text read; null when there is no file yet. */
  text: string | null;
  value: JsonObject;
  layout: Layout;
  /** Permission bits to keep; null for a new file. */
  mode: number | null;
}

/** Where `path` really is: through a symbolic link to its target (a file not there yet stays as named). */
function realOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** A settings file's text, unparsed: for a file of another syntax (Codex's TOML), parsed by its caller. */
export interface SettingsText {
  path: string;
  real: string;
  /** Null when there is no file yet. */
  text: string | null;
  mode: number | null;
}

/**
 * Read the file's text, within `MAX_SETTINGS_BYTES`; a missing file reads as null. Throws
 * `InstallError` for anything else.
 */
export function readSettingsRaw(path: string): SettingsText {
  const real = realOf(path);
  // Without waiting, and only a regular file: a named pipe at the path would hold the installer.
  const r = readRegularText(real, MAX_SETTINGS_BYTES);
  switch (r.kind) {
    case 'missing':
      return { path, real, text: null, mode: null };
    case 'not-file':
      throw new InstallError(`${path} is ${r.what}, not a file; nothing was changed`);
    case 'too-large':
      throw new InstallError(
        `${path} is ${r.size} bytes, more than cctop will rewrite (${MAX_SETTINGS_BYTES})`,
      );
    case 'failed':
      throw new InstallError(`${path} could not be read (${r.code ?? r.reason}); nothing was changed`);
    case 'read':
      return { path, real, text: r.text, mode: r.stat.mode & 0o7777 };
  }
}

/** Read and parse the file; a missing file reads as `{}`. Throws `InstallError` for anything else. */
export function readSettings(path: string, syntax: Syntax): SettingsFile {
  const { real, text, mode } = readSettingsRaw(path);
  if (text === null) return { path, real, text, value: {}, layout: NEW_LAYOUT, mode };
  if (text.trim() === '') return { path, real, text, value: {}, layout: { ...NEW_LAYOUT }, mode };
  const read = readSettingsText(text, syntax);
  if (read.kind === 'bad')
    throw new InstallError(
      `${path}:${read.line}:${read.column}: not valid ${syntax === 'json' ? 'JSON' : 'JSON (with comments)'} (${read.reason}); fix it or move it aside, nothing was changed`,
    );
  const value = obj(read.value);
  if (value === null) throw new InstallError(`${path} does not hold a JSON object; nothing was changed`);
  return { path, real, text, value, layout: read.layout, mode };
}

/**
 * A write the file system refused (a read-only mount, a permission the mode bits did not show, a
 * full disk), as a refusal: the write goes to a temporary file renamed over the old one last, so a
 * failure before the rename leaves the file as it was.
 */
function notChanged(path: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === undefined) return err;
  return new InstallError(`${path} could not be written (${describeFsError(err)}); nothing was changed`);
}

/** Thrown when the file changed between reading it and writing it (the agent saved it meanwhile). */
export class ChangedMeanwhile extends Error {}

/**
 * Replace the file with `text`, keeping the previous one as the backup. Refuses (`ChangedMeanwhile`)
 * when the file no longer holds what `file` read, so an edit made meanwhile is never overwritten.
 * Returns where the backup is (null when there was no file before).
 */
export function writeSettings(file: SettingsText, text: string): { backup: string | null } {
  const now = readNow(file.real);
  if (now !== file.text) throw new ChangedMeanwhile(`${file.path} changed while cctop was writing it`);
  let backup: string | null = null;
  try {
    if (file.text !== null) {
      backup = `${file.real}${BACKUP_SUFFIX}`;
      // Written afresh, never copied over: a copy keeps the old file's mode, and a backup of a file
      // once read-only would then refuse the next backup. Only the user's: settings hold tokens.
      writeAtomically(backup, file.text, 0o600);
    }
    // The group too: the temporary file gets the user's primary group, the file may have had another.
    const gid = statSync(file.real, { throwIfNoEntry: false })?.gid ?? null;
    writeAtomically(file.real, text, file.mode, gid);
  } catch (err) {
    throw notChanged(file.path, err);
  }
  return { backup };
}

/**
 * Delete the file, and the backup beside it: for a file cctop made itself and that now holds nothing
 * but what it started with, so that taking cctop out leaves no file where there was none. Refuses
 * (`ChangedMeanwhile`) when the file no longer holds what `file` read.
 */
export function deleteSettings(file: SettingsText): void {
  if (readNow(file.real) !== file.text)
    throw new ChangedMeanwhile(`${file.path} changed while cctop was writing it`);
  try {
    unlinkSync(file.real);
  } catch (err) {
    throw notChanged(file.path, err);
  }
  try {
    unlinkSync(`${file.real}${BACKUP_SUFFIX}`);
  } catch {
    // There was none.
  }
}

function readNow(path: string): string | null {
  const r = readRegularText(path, MAX_SETTINGS_BYTES);
  return r.kind === 'read' ? r.text : null;
}
