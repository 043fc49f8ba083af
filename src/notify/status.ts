/**
 * What the sender last said about its channels, for `cctop doctor`: a small file in the runtime
 * directory, replaced whole by the lock's holder when something changed (at most once per check), and
 * left in place when it stops, so the last delivery and the last failure can still be read after.
 *
 * Not here: the lock's holder itself (`lock.ts` reads that), or the counting (`webhook.ts`,
 * `desktop.ts`).
 */
import { join } from 'node:path';
import { NOTIFY_FORMATS, type NotifyFormat } from '../config/index.js';
import { num, obj, parseJson, str } from '../model/json.js';
import type { DesktopKind } from './desktop.js';
import { readSmall, writeWhole } from './files.js';
import { SENDER_ROLES, type SenderRole } from './lock.js';
import { NOTICE_KINDS, type NoticeKind, oneLine } from './notice.js';
import { MAX_WEBHOOK_ERROR_CHARS } from './webhook.js';

export const STATUS_FILE = 'notify-status.json';

/** Bumped when a field changes meaning; a file of another version reads as none. */
export const STATUS_VERSION = 1;

/** The status is a few hundred bytes; anything past this is not ours. */
const MAX_STATUS_BYTES = 16 * 1024;
/** A target or an error as doctor shows it: one line. */
const MAX_SHOWN_CHARS = 200;
/** An ISO time is 24 characters; anything much longer is not one. */
const MAX_TIME_CHARS = 40;

export interface ChannelCounts {
  sent: number;
  failed: number;
  dropped: number;
}

export interface NotifyStatus {
  v: typeof STATUS_VERSION;
  /** The process that wrote it, and as what. */
  pid: number;
  role: SenderRole;
  updatedAt: string;
  desktop: (ChannelCounts & { tool: DesktopKind; lastError: string | null }) | null;
  webhook:
    | (ChannelCounts & {
        /** Scheme and host only (`shownUrl`). */
        target: string;
        format: NotifyFormat;
        queued: number;
        lastOk: { at: string; kind: NoticeKind } | null;
        lastFailure: {
          at: string;
          kind: NoticeKind;
          status: number | null;
          error: string;
          attempts: number;
          final: boolean;
        } | null;
      })
    | null;
  /** Notices the spool could not keep (full, or the disk refused), and ones left unclaimed too long. */
  spoolDropped: number;
  expired: number;
}

export const statusPath = (dir: string): string => join(dir, STATUS_FILE);

/** Write the status; a failure to write is not worth a word (doctor then shows an older one). */
export function writeStatus(dir: string, s: NotifyStatus): void {
  try {
    writeWhole(statusPath(dir), `${JSON.stringify(s)}\n`);
  } catch {
    // The runtime directory went (logout): nothing reads it either.
  }
}

const count = (v: unknown): number => {
  const n = num(v);
  return n !== null && n >= 0 ? Math.floor(n) : 0;
};

const kindOf = (v: unknown): NoticeKind | null => NOTICE_KINDS.find((k) => k === v) ?? null;

function readCounts(o: Record<string, unknown>): ChannelCounts {
  return { sent: count(o.sent), failed: count(o.failed), dropped: count(o.dropped) };
}

function readWebhook(v: unknown): NotifyStatus['webhook'] {
  const o = obj(v);
  const target = str(o?.target);
  const format = NOTIFY_FORMATS.find((f) => f === o?.format);
  if (o === null || target === null || !format) return null;
  const ok = obj(o.lastOk);
  const okKind = kindOf(ok?.kind);
  const okAt = str(ok?.at);
  const f = obj(o.lastFailure);
  const fKind = kindOf(f?.kind);
  const fAt = str(f?.at);
  const fError = str(f?.error);
  return {
    ...readCounts(o),
    target: oneLine(target, MAX_SHOWN_CHARS),
    format,
    queued: count(o.queued),
    lastOk: okKind !== null && okAt !== null ? { at: oneLine(okAt, MAX_TIME_CHARS), kind: okKind } : null,
    lastFailure:
      f !== null && fKind !== null && fAt !== null && fError !== null
        ? {
            at: oneLine(fAt, MAX_TIME_CHARS),
            kind: fKind,
            status: num(f.status),
            error: oneLine(fError, MAX_WEBHOOK_ERROR_CHARS),
            attempts: count(f.attempts),
            final: f.final === true,
          }
        : null,
  };
}

/** The status as last written, or null when there is none (or it does not read as one). */
export function readStatus(dir: string): NotifyStatus | null {
  const text = readSmall(statusPath(dir), MAX_STATUS_BYTES);
  const o = text === null ? null : obj(parseJson(text));
  const role = SENDER_ROLES.find((r) => r === o?.role);
  const pid = num(o?.pid);
  const updatedAt = str(o?.updatedAt);
  if (o === null || o.v !== STATUS_VERSION || !role || pid === null || updatedAt === null) return null;
  const d = obj(o.desktop);
  const tool = d?.tool === 'notify-send' || d?.tool === 'osascript' ? d.tool : null;
  const lastError = str(d?.lastError);
  return {
    v: STATUS_VERSION,
    pid,
    role,
    updatedAt: oneLine(updatedAt, MAX_TIME_CHARS),
    desktop:
      d !== null && tool !== null
        ? {
            ...readCounts(d),
            tool,
            lastError: lastError === null ? null : oneLine(lastError, MAX_SHOWN_CHARS),
          }
        : null,
    webhook: readWebhook(o.webhook),
    spoolDropped: count(o.spoolDropped),
    expired: count(o.expired),
  };
}
