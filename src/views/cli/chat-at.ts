/**
 * Which window of a conversation `cctop chat` prints: the newest turns, the ones before `--before
 * SEQ` (paging back), or the ones around `--at SEQ` (where a search result points). Turn numbers are
 * the transcript's own (`seq`), so a number from `cctop search` or a `#turn-N` link names the same
 * turn whatever else the session has written since.
 */
import { UsageError } from './options.js';

/**
 * Turns shown after the one `--at` names: it sits just above the end of the output, where a terminal
 * leaves the eye, with the answer it got in view below it.
 */
export const AT_CONTEXT_AFTER = 2;

export interface ChatWindow {
  /** End the window just before this turn (null: the newest turns). */
  before: number | null;
  /** The turn asked for with `--at`, marked where it is printed. */
  at: number | null;
}

function turnNumber(flag: string, v: string): number {
  const n = Number(v);
  if (!/^\d{1,9}$/.test(v) || !Number.isInteger(n))
    throw new UsageError(`--${flag} ${v}: expected a turn number (the #SEQ chat and search print)`);
  return n;
}

/** The window `--before` and `--at` ask for; both at once is refused (they place it differently). */
export function chatWindow(values: Record<string, unknown>): ChatWindow {
  const before = typeof values.before === 'string' ? turnNumber('before', values.before) : null;
  const at = typeof values.at === 'string' ? turnNumber('at', values.at) : null;
  if (before !== null && at !== null)
    throw new UsageError('--at and --before place the window differently; give one of them');
  return at === null ? { before, at } : { before: at + 1 + AT_CONTEXT_AFTER, at };
}
