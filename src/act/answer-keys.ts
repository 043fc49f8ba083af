/**
 * Answering an agent's approval prompt by pressing its own key in the session's proven terminal, for
 * an agent whose hook cannot be held while its prompt is up (Codex 0.169.0 runs its hook before it
 * shows the prompt). Nothing is pressed until the screen proves the prompt: the pane is the session's
 * (`session-pane.ts`), its screen shows the agent's approval prompt (read by the agent's provider),
 * and the command on it is the call the session's hooks say is waiting. Anything less is refused with
 * why and what to do. After the key, the screen is read again until the prompt is gone.
 *
 * Only tmux panes: an agent under `cctop run` is answered in its own terminal (`cctop attach`).
 *
 * Not here: which call waits (`approvals/waiting-call.ts`), the command line (`views/cli/approve.ts`).
 */
import type { SessionDoc } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { type CodexPromptRead, readCodexPrompt, sameCommand } from '../providers/codex/approval-screen.js';
import { placeById } from '../providers/places.js';
import type { Env } from '../providers/types.js';
import { type Pane, screenOf, tmuxOn } from './pane.js';
import { provePane, type Refused } from './session-pane.js';

/**
 * How long cctop reads the screen after its key for the prompt to close. The TUI redraws within a
 * frame or two (tens of milliseconds); two seconds is the same wait as for a held answer's hook
 * (`ANSWER_CONFIRM_MS`), room for a machine so loaded that the TUI draws late.
 */
export const PROMPT_CLOSE_MS = 2_000;

/** How often the screen is read while waiting for the prompt to close. */
const CLOSE_POLL_MS = 100;

/** Each agent whose approval prompt cctop reads off its screen, and the reader (its provider's). */
const PROMPT_READERS: Partial<Record<ProviderId, (screen: string) => CodexPromptRead>> = {
  codex: readCodexPrompt,
};

export type KeysOutcome =
  | {
      kind: 'pressed';
      /** The key as pressed, and the prompt's words for it. */
      key: string;
      label: string;
      /** The pane, in words. */
      where: string;
      /** Whether the prompt was seen to close before `PROMPT_CLOSE_MS` ran out. */
      closed: boolean;
      /** Whether the deny ends the agent's turn (Codex's esc). */
      endsTurn: boolean;
    }
  | Refused;

export interface KeysIo {
  env: Env;
  /** The screen of a pane (`screenOf`); a test may read a screen it makes. */
  screen?: (pane: Pane) => ReturnType<typeof screenOf>;
  closeMs?: number;
}

const ANSWER_THERE = 'answer it in its own terminal';

/**
 * Press the allow or deny key of session `s`'s approval prompt, after proving it asks about
 * `waiting` (the command the session's hooks name; `cutAt`: the length past which the hook's copy was
 * cut).
 */
export async function answerByKeys(
  s: SessionDoc,
  waiting: string,
  cutAt: number,
  verdict: 'allow' | 'deny',
  io: KeysIo,
): Promise<KeysOutcome> {
  const read = PROMPT_READERS[s.provider];
  const label = placeById(s.provider).label;
  if (read === undefined)
    return { kind: 'refused', why: `cctop cannot read ${label}'s approval prompt`, fix: ANSWER_THERE };
  const p = provePane(s, io.env);
  if (p.kind === 'refused') return p;
  if (p.kind === 'pty')
    return {
      kind: 'refused',
      why: `cctop does not yet answer ${label}'s prompt under cctop run`,
      fix: `attach with cctop attach ${p.run.id} and answer it there`,
    };
  const screen = io.screen ?? screenOf;
  const shot = screen(p.pane);
  if (!shot.ok) return { kind: 'refused', why: `its screen cannot be read: ${shot.why}`, fix: ANSWER_THERE };
  const prompt = read(shot.text);
  if (prompt.kind === 'none') return { kind: 'refused', why: prompt.why, fix: ANSWER_THERE };
  if (!sameCommand(prompt.command, waiting, cutAt))
    return {
      kind: 'refused',
      why: 'the command its prompt shows is not the call cctop shows waiting',
      fix: `${ANSWER_THERE}, or look again with cctop pending`,
    };
  const key = verdict === 'allow' ? prompt.allow : prompt.deny;
  // A letter goes as a literal key (`-l`), so tmux never reads it as a key name; `--` ends the options.
  const sent = tmuxOn(
    p.pane,
    key.literal
      ? ['send-keys', '-t', p.pane.paneId, '-l', '--', key.tmux]
      : ['send-keys', '-t', p.pane.paneId, key.tmux],
  );
  if (!sent.ok) return { kind: 'refused', why: sent.why, fix: ANSWER_THERE };
  const closed = await promptCloses(p.pane, screen, read, waiting, cutAt, io.closeMs ?? PROMPT_CLOSE_MS);
  return {
    kind: 'pressed',
    key: key.tmux,
    label: key.label,
    where: `tmux pane ${p.pane.paneId} (pid ${p.pane.panePid})`,
    closed,
    endsTurn: verdict === 'deny' && prompt.denyEndsTurn,
  };
}

/** Whether the prompt for `waiting` leaves the screen within `budgetMs`. */
async function promptCloses(
  pane: Pane,
  screen: (pane: Pane) => ReturnType<typeof screenOf>,
  read: (screen: string) => CodexPromptRead,
  waiting: string,
  cutAt: number,
  budgetMs: number,
): Promise<boolean> {
  const until = Date.now() + budgetMs;
  for (;;) {
    const shot = screen(pane);
    if (shot.ok) {
      const now = read(shot.text);
      if (now.kind === 'none' || !sameCommand(now.command, waiting, cutAt)) return true;
    }
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, CLOSE_POLL_MS));
  }
}
