/**
 * Notifications that reach the user beyond cctop's own views: a desktop notification and a webhook,
 * sent by one process per machine for each crossing (`docs/notifications.md`). The views start a
 * `MachineNotifier` beside their alerts; `cctop watch` runs one alone; `cctop doctor` reads the lock
 * and the status it leaves.
 */
export { type StateCrossing, StateCrossings } from './crossings.js';
export { type DesktopTool, desktopKind, findDesktop } from './desktop.js';
export { WEBHOOK_JSON_VERSION } from './formats.js';
export { LOCK_STALE_MS, type LockState, readLock, SENDER_ROLES, type SenderRole } from './lock.js';
export type { CollisionInput, Notice, NoticeKind, NoticeSession } from './notice.js';
export { NOTICE_KINDS } from './notice.js';
export {
  type Channel,
  MachineNotifier,
  NOTIFY_TICK_MS,
  type NotifierOptions,
  type NotifyOverrides,
} from './notifier.js';
export { Spool } from './spool.js';
export { type NotifyStatus, readStatus } from './status.js';
