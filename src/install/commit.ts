/**
 * The last step of every text edit the installers make: read the file, decide what it becomes, write
 * it (atomically, with its backup) and the record beside it, and when the agent saved the file in
 * between, read and decide again rather than write over what it saved. Shared by the editors that
 * work on a file's text (`json-member.ts`, `toml-table.ts`, the hook installers).
 *
 * Not here: deciding anything. A plan says what to do; the caller's `decide` makes it afresh on each
 * try, from the file as it is then.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { assertMayChange } from './permission.js';
import { ChangedMeanwhile, deleteSettings, type SettingsText, writeSettings } from './settings-file.js';
import { readSidecar, type Sidecar, writeSidecar } from './sidecar.js';

/** What to do to the file. */
export type Plan =
  /** Leave it; write the record when it is given (an entry's record to drop or correct). */
  | { kind: 'none'; sidecar: Sidecar | null }
  | { kind: 'write'; text: string; sidecar: Sidecar }
  /** A file cctop made, holding nothing of anyone's now: it goes, with its backup. */
  | { kind: 'delete'; sidecar: Sidecar };

export interface Committed {
  /** Whether the file was written or deleted. */
  wrote: boolean;
  /** Where the file as it was before is kept; null when nothing was written or there was no file. */
  backup: string | null;
}

/**
 * How many times a write is tried again after the agent saved the file meanwhile. An agent saves its
 * settings a few times a minute at most; three reads in a row each overtaken by a save means something
 * else is rewriting the file in a loop, and the user is better told than raced.
 */
export const RETRIES_AFTER_CHANGE = 2;

/** Read with `read`, decide with `decide`, carry the plan out; again when the file changed under the write. */
export function commitEdit<F extends SettingsText>(
  read: () => F,
  decide: (file: F, sidecar: Sidecar) => Plan,
): Committed {
  for (let attempt = 0; ; attempt++) {
    const file = read();
    const plan = decide(file, readSidecar(file.real));
    // Judged before anything is written, so a refusal leaves the file and its record as they were.
    if (plan.kind !== 'none' || plan.sidecar !== null) assertMayChange(file.path, file.real);
    try {
      switch (plan.kind) {
        case 'none':
          if (plan.sidecar !== null) writeSidecar(file.real, plan.sidecar);
          return { wrote: false, backup: null };
        case 'delete':
          deleteSettings(file);
          writeSidecar(file.real, plan.sidecar);
          return { wrote: true, backup: null };
        case 'write': {
          mkdirSync(dirname(file.real), { recursive: true });
          const { backup } = writeSettings(file, plan.text);
          writeSidecar(file.real, plan.sidecar);
          return { wrote: true, backup };
        }
      }
    } catch (err) {
      if (!(err instanceof ChangedMeanwhile) || attempt >= RETRIES_AFTER_CHANGE) throw err;
    }
  }
}
