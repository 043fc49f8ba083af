/**
 * Where a session can be handed over to, and the command lines that do it: the harness's own start
 * command (its place says how, `startCommand`) with a short first message that points at the brief,
 * and the `cctop handoff` line the live table and the dashboard show.
 *
 * The first message is a sentence of cctop's own, never the brief itself: the command line stays
 * short, and nothing a transcript said is ever a word a shell reads. The brief is a file the agent
 * reads with its own tools.
 *
 * Not here: writing the brief (`brief.ts`), running the command (`views/cli/handoff.ts`).
 */
import type { SessionDoc } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { placeById } from '../providers/places.js';
import { shellWord } from '../views/shell-word.js';
import { safeLine } from '../views/terminal-text.js';

/** The harnesses cctop can start a session in (each has a `startCommand`). */
export const HANDOFF_TARGETS = ['claude', 'codex', 'gemini', 'qwen', 'opencode', 'pi', 'copilot'] as const;
export type HandoffTarget = (typeof HANDOFF_TARGETS)[number];

export const isHandoffTarget = (word: string): word is HandoffTarget =>
  (HANDOFF_TARGETS as readonly string[]).includes(word);

/** Another harness than the session's own: Codex for a Claude Code session, Claude Code for the rest. */
export const defaultTarget = (from: ProviderId): HandoffTarget => (from === 'claude' ? 'codex' : 'claude');

/** The first message of the new session. */
export function handoffPrompt(from: ProviderId, brief: string): string {
  return `Read the handoff brief at ${brief} first: it says what a ${placeById(from).label} session was doing in this directory and where it stopped. Then carry on with that task from there.`;
}

/** The words that start `target` with `prompt`, allowed to read the brief's folder. */
export function startWords(target: HandoffTarget, prompt: string, briefDir: string): readonly string[] {
  const start = placeById(target).startCommand;
  if (!start) throw new Error(`cctop cannot start ${target}`);
  return start(prompt, [briefDir]);
}

/**
 * Words as a line for a POSIX shell, run in `cwd` when it is known: every word made safe to print
 * and quoted. A directory that would read as an option gets no `cd` (as the resume command).
 */
export function shellLine(cwd: string | null, words: readonly string[]): string {
  const cd = cwd && !cwd.startsWith('-') ? `cd ${shellWord(safeLine(cwd))} && ` : '';
  return `${cd}${words.map((w) => shellWord(safeLine(w))).join(' ')}`;
}

/**
 * The `cctop handoff` line for a session, to show and copy (the live table's `O`, the dashboard's
 * button): it writes a fresh brief and starts the other harness when it is run. Null for an id that
 * reads as an option, which no quoting makes safe to pass.
 */
export function handoffInvocation(s: Pick<SessionDoc, 'id'>, target: HandoffTarget): string | null {
  if (s.id.startsWith('-')) return null;
  return shellLine(null, ['cctop', 'handoff', s.id, '--to', target, '--run']);
}
