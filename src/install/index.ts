/**
 * The installer: entries cctop owns inside agents' settings files (the status line, the hooks, the
 * MCP server), merged into what is there, recognised again after cctop moves, written
 * atomically with a backup, and taken out leaving the file as it was. `docs/statusline.md` tells a
 * user what it does to their files.
 */
export {
  type Done,
  type EntryStatus,
  entryStatus,
  type InstallOutcome,
  installEntry,
  type RemoveOutcome,
  removeEntry,
  type Target,
} from './apply.js';
export { writeAtomically } from './atomic.js';
export type { Entry } from './entry.js';
export type { Syntax } from './jsonc.js';
export { BACKUP_SUFFIX, InstallError, MAX_SETTINGS_BYTES } from './settings-file.js';
export { SIDECAR_SUFFIX } from './sidecar.js';
export { claudeSettings } from './targets.js';
