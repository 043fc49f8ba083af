/**
 * The title a session's own prompts give it, when it has no better one (a name the user set, one the
 * harness wrote): its first prompt, on one line. A bare slash command (`/clear`, `/model`, `/init`)
 * says nothing about the work, so it only holds the place until a real prompt arrives; the first
 * real prompt then names the session for good. Every parser folds its prompts through here, so the
 * rule is the same for every harness.
 *
 * What it does not do: decide which records are prompts a person typed (a harness's bookkeeping that
 * arrives as a user record is the parser's to skip), or rank this title against the others.
 */
import { type FileFacts, oneLine } from '../model/facts.js';

/** One word after a slash and nothing else: `/clear`, not `/review the patch`. */
const isBareCommand = (title: string): boolean => /^\/\S+$/.test(title);

/** Whether the prompt title is final: a later prompt can no longer change it. */
export function promptTitleSettled(facts: FileFacts): boolean {
  const t = facts.titles.firstPrompt;
  return t !== null && !isBareCommand(t);
}

/** Fold one prompt the user typed into the title (null or blank: nothing to fold). */
export function noteFirstPrompt(facts: FileFacts, prompt: string | null): void {
  if (prompt === null || promptTitleSettled(facts)) return;
  const t = oneLine(prompt);
  if (t.length === 0) return;
  if (facts.titles.firstPrompt === null || !isBareCommand(t)) facts.titles.firstPrompt = t;
}
