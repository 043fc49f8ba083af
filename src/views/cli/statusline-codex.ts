/**
 * `cctop statusline --codex`: Claude's status line parts (model, session cost, context, today,
 * quota) for the newest Codex session in a directory. Codex 0.169.0 has no custom status line: its
 * own (`/statusline`) picks from built-in items and runs no command, so this prints the line for
 * whatever shows it (a tmux status, a shell prompt, a terminal title) rather than for Codex itself.
 *
 * It asks the index (as `cctop --json` does, so a warm index answers in a fraction of a second and a
 * cold one reads the history once), picks the Codex session whose directory is `cwd` and that was
 * active last, and prints one line; whatever fails, it prints `NOTHING` and exits 0, as the Claude
 * line does. Not here: what the parts say (`statusline/line.ts`), or Codex's quota (`providers/codex/limits.ts`).
 */
import { resolve } from 'node:path';
import type { SessionDoc } from '../../model/document.js';
import { codexLimits } from '../../providers/codex/limits.js';
import { NOTHING, type Part, type StatusFigures, statusLine } from '../../statusline/line.js';
import { digestOf } from '../../statusline/refresh.js';
import { paint } from './color.js';
import type { Io } from './main.js';
import { commonOptions } from './options.js';
import { snapshot } from './snapshots.js';

/** The newest Codex session that ran in `cwd`, from sessions listed newest first or not. */
export function newestCodexIn(sessions: readonly SessionDoc[], cwd: string): SessionDoc | null {
  let best: SessionDoc | null = null;
  for (const s of sessions) {
    if (s.provider !== 'codex' || s.project === null || resolve(s.project) !== cwd) continue;
    if (best === null || (s.lastActiveAt ?? '') > (best.lastActiveAt ?? '')) best = s;
  }
  return best;
}

export function codexFigures(s: SessionDoc | null, todayUsd: number | null): StatusFigures {
  const ctx = s?.context ?? null;
  return {
    model: s?.model ?? null,
    sessionUsd: s?.cost.usd ?? null,
    contextShare:
      ctx !== null && ctx.used !== null && ctx.compactAt !== null && ctx.compactAt > 0
        ? ctx.used / ctx.compactAt
        : null,
    todayUsd,
    // Codex bills no 5-hour block of its own; its quota is what it reported (`limits`).
    block: null,
    limits: s === null ? null : codexLimits(s.rateLimits),
    budget: null,
  };
}

/** Print the line for the newest Codex session in `cwd`; always exits 0. */
export async function printCodexLine(io: Io, parts: readonly Part[], cwd: string): Promise<number> {
  try {
    const nowMs = Date.now();
    const snap = await snapshot(commonOptions({}), io.env);
    const sessions = snap.document.sessions;
    const s = newestCodexIn(sessions, resolve(cwd));
    if (s === null) {
      io.out('cctop: no Codex session here');
      return 0;
    }
    const today = digestOf(sessions, snap.time, nowMs).today.usd;
    io.out(statusLine(codexFigures(s, today), parts, nowMs, paint(true, io.env)));
  } catch {
    // A status line that throws shows nothing: better to say that nothing is known.
    io.out(NOTHING);
  }
  return 0;
}
