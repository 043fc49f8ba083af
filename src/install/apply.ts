/**
 * Installing, removing and reporting one cctop entry in one agent settings file. The rules:
 *
 * - Merge: every key cctop does not own is kept, and keeps its place.
 * - cctop's own entry is recognised (by the entry's rule, or as the value cctop recorded writing) and
 *   repointed when cctop moved; an entry already as wanted is not written again.
 * - Someone else's entry at the place (ccusage's status line) is replaced only when asked
 *   (`replace`); it is then kept in the record beside the file, and `remove` puts it back.
 * - `remove` leaves the file as it would be without cctop's entry: when nothing else changed since
 *   cctop's write, byte for byte the file as it was before (the backup holds exactly that).
 * - A file that does not read is refused, and nothing is written (`InstallError`).
 *
 * Not here: where an agent keeps its settings (`targets.ts`) or what an entry looks like (its owner,
 * e.g. `statusline/install.ts`).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { JsonObject } from '../model/json.js';
import { readRegularText } from '../regular-file.js';
import { type Entry, sameJson, valueAt, withoutValueAt, withValueAt } from './entry.js';
import { readSettingsText, type Syntax, settingsText } from './jsonc.js';
import { assertMayChange } from './permission.js';
import {
  BACKUP_SUFFIX,
  ChangedMeanwhile,
  deleteSettings,
  InstallError,
  MAX_SETTINGS_BYTES,
  readSettings,
  type SettingsFile,
  writeSettings,
} from './settings-file.js';
import { entryKey, readSidecar, type Sidecar, writeSidecar } from './sidecar.js';

/** An agent's settings file. */
export interface Target {
  path: string;
  syntax: Syntax;
  /** How messages name it: "Claude Code settings". */
  label: string;
}

export type InstallOutcome =
  | { kind: 'added' }
  | { kind: 'unchanged' }
  /** cctop's own entry pointed elsewhere (an older install place). */
  | { kind: 'repointed'; from: unknown }
  /** A foreign entry was replaced (`replace`); it is kept to be put back by `remove`. */
  | { kind: 'replaced'; displaced: unknown }
  /** A foreign entry is there and `replace` was not given: nothing was written. */
  | { kind: 'foreign'; found: unknown };

export type RemoveOutcome =
  /** cctop's entry was taken out; `restored` is the foreign entry put back, when there was one. */
  | { kind: 'removed'; restored: unknown }
  /** cctop's entry was already gone; the foreign entry it had displaced was put back. */
  | { kind: 'restored'; restored: unknown }
  | { kind: 'absent' }
  /** The entry there is not cctop's: left as it is. */
  | { kind: 'foreign'; found: unknown };

export type EntryStatus =
  | { kind: 'absent' }
  /** cctop's; `current` when it is exactly what an install now would write. */
  | { kind: 'ours'; found: unknown; current: boolean; displaced: unknown }
  | { kind: 'foreign'; found: unknown };

export interface Done<O> {
  outcome: O;
  /** The settings file written (through a link, its target); null when nothing was written. */
  wrote: string | null;
  backup: string | null;
}

/** How many times a write is tried again after the agent saved the file meanwhile. */
const RETRIES_AFTER_CHANGE = 2;

/** Read the file and sidecar, decide, write; again when the file changed under the write. */
function edit<O>(target: Target, decide: (f: SettingsFile, s: Sidecar) => Plan<O>): Done<O> {
  for (let attempt = 0; ; attempt++) {
    const file = readSettings(target.path, target.syntax);
    const plan = decide(file, readSidecar(file.real));
    // Judged before anything is written, so a refusal leaves the file and its record as they were.
    if (plan.write !== null || plan.sidecar !== null) assertMayChange(file.path, file.real);
    if (plan.write === null) {
      if (plan.sidecar !== null) writeSidecar(file.real, plan.sidecar);
      return { outcome: plan.outcome, wrote: null, backup: null };
    }
    try {
      if (plan.write === DELETE) {
        deleteSettings(file);
        if (plan.sidecar !== null) writeSidecar(file.real, plan.sidecar);
        return { outcome: plan.outcome, wrote: file.real, backup: null };
      }
      mkdirSync(dirname(file.real), { recursive: true });
      // A displaced entry is recorded before the file loses it, so a crash between never loses it.
      if (plan.sidecarFirst && plan.sidecar !== null) writeSidecar(file.real, plan.sidecar);
      const { backup } = writeSettings(file, plan.write);
      if (!plan.sidecarFirst && plan.sidecar !== null) writeSidecar(file.real, plan.sidecar);
      return { outcome: plan.outcome, wrote: file.real, backup };
    } catch (err) {
      if (!(err instanceof ChangedMeanwhile) || attempt >= RETRIES_AFTER_CHANGE) throw err;
    }
  }
}

/** A plan's `write` for a file cctop made that holds nothing of anyone's now: it goes, with its backup. */
const DELETE = Symbol('delete the file');

interface Plan<O> {
  outcome: O;
  /** The new text of the settings file; null to leave it as it is; `DELETE` to take it away. */
  write: string | null | typeof DELETE;
  /** The record to keep beside it; null to leave it as it is. */
  sidecar: Sidecar | null;
  /** Whether the record is written before the file (it holds what the file is about to lose). */
  sidecarFirst: boolean;
}

const nothing = <O>(outcome: O): Plan<O> => ({ outcome, write: null, sidecar: null, sidecarFirst: false });

function ours(entry: Entry, found: unknown, sidecar: Sidecar): boolean {
  const kept = sidecar[entryKey(entry.path)];
  return entry.isOurs(found) || (kept !== undefined && sameJson(kept.wrote, found));
}

/** Put cctop's entry in place; a foreign one is replaced only with `replace`. */
export function installEntry(target: Target, entry: Entry, o: { replace: boolean }): Done<InstallOutcome> {
  return edit(target, (file, sidecar): Plan<InstallOutcome> => {
    const key = entryKey(entry.path);
    const found = valueAt(file.value, entry.path);
    const kept = sidecar[key];
    if (found !== undefined && ours(entry, found, sidecar)) {
      const next = entry.repoint(found);
      if (sameJson(next, found)) return nothing({ kind: 'unchanged' });
      const set = placed(file, entry, next);
      const record = { ...(kept ?? { made: 0 }), wrote: next };
      return {
        outcome: { kind: 'repointed', from: found },
        write: settingsText(set.doc, file.layout),
        sidecar: { ...sidecar, [key]: record },
        sidecarFirst: false,
      };
    }
    if (found !== undefined && !o.replace) return nothing({ kind: 'foreign', found });
    const set = placed(file, entry, entry.want);
    const record = {
      wrote: entry.want,
      // The file itself counts as made when there was none (as `json-member.ts` counts it), so
      // taking the entry out again leaves no file where there was none.
      made: set.made + (file.text === null ? 1 : 0),
      ...(found !== undefined ? { displaced: found } : {}),
    };
    return {
      outcome: found === undefined ? { kind: 'added' } : { kind: 'replaced', displaced: found },
      write: settingsText(set.doc, file.layout),
      sidecar: { ...sidecar, [key]: record },
      sidecarFirst: true,
    };
  });
}

function placed(file: SettingsFile, entry: Entry, value: unknown): { doc: JsonObject; made: number } {
  const set = withValueAt(file.value, entry.path, value);
  if (set === null)
    throw new InstallError(
      `${file.path}: ${entry.path.slice(0, -1).join('.')} is not an object, so cctop cannot add its ${entry.label} there; nothing was changed`,
    );
  return set;
}

/** Take cctop's entry out, putting back what it displaced; leaves a foreign entry alone. */
export function removeEntry(target: Target, entry: Entry): Done<RemoveOutcome> {
  return edit(target, (file, sidecar): Plan<RemoveOutcome> => {
    const key = entryKey(entry.path);
    const found = valueAt(file.value, entry.path);
    const kept = sidecar[key];
    const rest = { ...sidecar };
    delete rest[key];
    if (found !== undefined && !ours(entry, found, sidecar)) return nothing({ kind: 'foreign', found });
    // Taken out by hand already: the place is free, so what cctop displaced goes back all the same.
    const restore = kept !== undefined && Object.hasOwn(kept, 'displaced') ? kept.displaced : undefined;
    if (found === undefined && restore === undefined)
      return { ...nothing({ kind: 'absent' }), sidecar: kept === undefined ? null : rest };
    const doc =
      restore !== undefined
        ? (withValueAt(file.value, entry.path, restore)?.doc ?? file.value)
        : withoutValueAt(file.value, entry.path, kept?.made ?? 0);
    const madeFile = (kept?.made ?? 0) >= entry.path.length;
    return {
      outcome:
        found === undefined
          ? { kind: 'restored', restored: restore }
          : { kind: 'removed', restored: restore ?? null },
      write: madeFile && sameJson(doc, {}) ? DELETE : (asBefore(file, doc) ?? settingsText(doc, file.layout)),
      sidecar: rest,
      sidecarFirst: false,
    };
  });
}

/**
 * The backup's own text when it holds exactly `doc` (nothing changed since cctop's last write, which
 * kept it): the file comes back byte for byte, comments and number spellings included.
 */
function asBefore(file: SettingsFile, doc: JsonObject): string | null {
  const r = readRegularText(`${file.real}${BACKUP_SUFFIX}`, MAX_SETTINGS_BYTES);
  if (r.kind !== 'read') return null;
  const text = r.text;
  const read = readSettingsText(text, 'jsonc');
  return read.kind === 'read' && sameJson(read.value, doc) ? text : null;
}

/** What is at the entry's place now, read only. */
export function entryStatus(target: Target, entry: Entry): EntryStatus {
  const file = readSettings(target.path, target.syntax);
  const sidecar = readSidecar(file.real);
  const found = valueAt(file.value, entry.path);
  if (found === undefined) return { kind: 'absent' };
  if (!ours(entry, found, sidecar)) return { kind: 'foreign', found };
  const kept = sidecar[entryKey(entry.path)];
  return {
    kind: 'ours',
    found,
    current: sameJson(entry.repoint(found), found),
    displaced: kept?.displaced ?? null,
  };
}
