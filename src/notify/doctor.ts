/**
 * The "Notifications" section of `cctop doctor`: which channels are on (from the config, and whether
 * the machine has a desktop notifier), which cctop holds the sender lock, and what the sender last
 * wrote about its webhook (the last delivery, the last failure, what is queued or was dropped).
 *
 * It reads and never writes: the runtime directory is not made if it is missing, the lock is not
 * touched. Every line is made safe here; the caller only prints them.
 *
 * Not here: the rest of doctor (`views/cli/doctor.ts`).
 */
import { existsSync } from 'node:fs';
import { loadConfig, shownUrl } from '../config/index.js';
import type { Env } from '../providers/types.js';
import { runtimeDirPath } from '../runtime/dir.js';
import type { Paint } from '../views/cli/color.js';
import { safeLine } from '../views/terminal-text.js';
import { findDesktop } from './desktop.js';
import { readLock, type SenderRole } from './lock.js';
import { Spool } from './spool.js';
import { readStatus } from './status.js';

const ROLE: Record<SenderRole, string> = {
  watch: 'cctop watch',
  table: 'the live table',
  dashboard: 'cctop serve',
};

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function senderLine(dir: string, nowMs: number, p: Pick<Paint, 'amber' | 'dim'>): string {
  if (!existsSync(dir))
    return p.dim('none has run since login (the live table, cctop serve and cctop watch send)');
  const lock = readLock(dir, nowMs);
  switch (lock.kind) {
    case 'free':
      return p.dim('none running (the live table, cctop serve and cctop watch send while they run)');
    case 'unreadable':
      return p.amber('the lock file does not read as one; the next cctop to check takes it over');
    case 'held': {
      const who = `${ROLE[lock.holder.role]} (pid ${lock.holder.pid}), since ${new Date(lock.holder.since).toISOString()}`;
      if (!lock.alive) return p.amber(`${who}, which is gone; the next cctop to check takes over`);
      return who;
    }
  }
}

/** The section's lines, each safe to print. */
export function notificationLines(
  env: Env,
  p: Pick<Paint, 'amber' | 'bold' | 'dim'>,
  nowMs = Date.now(),
): string[] {
  const notify = loadConfig(env).config.notify;
  const tool = findDesktop(env);
  const dir = runtimeDirPath(env);
  const lines = [`${p.bold('Notifications')}  ${p.dim('(docs/notifications.md)')}`];
  const desktop = !notify.desktop
    ? p.dim('off (notify.desktop = false)')
    : tool === null
      ? p.dim(
          `on, but no ${process.platform === 'darwin' ? 'osascript' : 'notify-send'} on PATH: none are shown`,
        )
      : `on: ${tool.kind} (${safeLine(tool.path)})`;
  lines.push(`  desktop   ${desktop}`);
  lines.push(
    `  webhook   ${notify.url === null ? p.dim('none (notify.url in the config, or cctop watch --notify URL)') : `${safeLine(shownUrl(notify.url))} (${notify.format})`}`,
  );
  lines.push(
    `  links     ${notify.dashboard === null ? p.dim('none (notify.dashboard)') : safeLine(notify.dashboard)}`,
  );
  lines.push(`  sender    ${senderLine(dir, nowMs, p)}`);
  const status = existsSync(dir) ? readStatus(dir) : null;
  const w = status?.webhook ?? null;
  if (w !== null) {
    const counts = `${w.sent} sent, ${w.failed} given up, ${w.dropped} dropped, ${w.queued} queued`;
    lines.push(`  sends to  ${safeLine(w.target)} (${w.format}): ${counts}`);
    if (w.lastOk !== null) lines.push(`    delivered ${safeLine(w.lastOk.at)} (${w.lastOk.kind})`);
    if (w.lastFailure !== null) {
      const f = w.lastFailure;
      const what = `${safeLine(f.error)} after ${plural(f.attempts, 'try', 'tries')}${f.final ? ', given up' : ', trying again'}`;
      lines.push(`    ${p.amber(`failed ${safeLine(f.at)} (${f.kind}): ${what}`)}`);
    }
  }
  if (status?.desktop?.lastError)
    lines.push(`    ${p.amber(`desktop: ${safeLine(status.desktop.lastError)}`)}`);
  const pending = existsSync(dir) ? new Spool(dir).pending() : 0;
  const lost = (status?.spoolDropped ?? 0) + (status?.expired ?? 0);
  if (pending > 0 || lost > 0)
    lines.push(`  waiting   ${plural(pending, 'notice')} for the sender${lost > 0 ? `, ${lost} lost` : ''}`);
  return lines;
}
