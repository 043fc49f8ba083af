import { describe, expect, it } from 'vitest';
import { MAX_PROMPT_LINES, MAX_SCREEN_CHARS, readCodexPrompt, sameCommand } from './approval-screen.js';

/** The bottom of a 150-column pane with Codex 0.169.0's prompt up, as captured in the lab. */
const promptFor = (
  command: string,
  optionTwo = [`  2. Yes, and don't ask again for commands that start with \`touch\` (p)`],
) =>
  [
    '',
    '  >_ OpenAI Codex (v0.169.0)',
    '     /tmp/lab/work',
    '',
    '',
    '› [lab:escalate] Follow the lab script escalate.',
    '',
    '',
    `• Running ${command}`,
    '',
    '',
    '  Would you like to run the following command?',
    '',
    '  Environment: local',
    '',
    '  Reason: The lab asks to write a file outside the sandbox.',
    '',
    `  $ ${command}`,
    '',
    '',
    '› 1. Yes, proceed (y)',
    ...optionTwo,
    '  3. No, and tell Codex what to do differently (esc)',
    '',
    '  Press enter to confirm or esc to cancel',
    '',
  ].join('\n');

/** The same pane once the prompt was answered: its words are in the history, the composer at the bottom. */
const ANSWERED = [
  '  >_ OpenAI Codex (v0.169.0)',
  '› [lab:escalate] Follow the lab script escalate.',
  '✔ You approved codex to run touch lab-escalated.txt this time',
  '• Running touch lab-escalated.txt',
  '• Working (5s • esc to interrupt)',
  '',
  '› Ask Codex to do anything',
  '',
  '  gpt-5-codex default · /tmp/lab/work',
  '  ← for agents · ? for shortcuts',
].join('\n');

describe("Codex's approval prompt on a captured screen", () => {
  it('reads the command it asks about, y to allow and Escape to deny', () => {
    expect(readCodexPrompt(promptFor('touch lab-escalated.txt && echo lab-escalated'))).toEqual({
      kind: 'prompt',
      command: 'touch lab-escalated.txt && echo lab-escalated',
      allow: { tmux: 'y', literal: true, label: 'Yes, proceed' },
      deny: { tmux: 'Escape', literal: false, label: 'No, and tell Codex what to do differently' },
      denyEndsTurn: true,
    });
  });

  it('joins a command the screen wrapped, and reads an option that wraps onto a second line', () => {
    const read = readCodexPrompt(
      promptFor('for i in 1 2; do echo a; done;\n    touch lab-escalated.txt', [
        "  2. Yes, and don't ask again for commands that start with `for i in 1 2; do echo a; done; touch",
        '     lab-escalated.txt` (p)',
      ]),
    );
    expect(read).toMatchObject({
      kind: 'prompt',
      command: 'for i in 1 2; do echo a; done; touch lab-escalated.txt',
      allow: { tmux: 'y' },
    });
  });

  it('sees no prompt once it was answered, though its words are in the history above', () => {
    expect(readCodexPrompt(ANSWERED)).toEqual({ kind: 'none', why: 'no approval prompt is on its screen' });
    // The prompt's words printed by the model, with the composer below them, are not the prompt.
    expect(readCodexPrompt(`${promptFor('touch x')}\n› Ask Codex to do anything\n`).kind).toBe('none');
  });

  it('does not answer the prompts it does not know (edits, permissions)', () => {
    const edits = promptFor('touch x').replace(
      'Would you like to run the following command?',
      'Would you like to make the following edits?',
    );
    expect(readCodexPrompt(edits)).toEqual({
      kind: 'none',
      why: 'its prompt asks "Would you like to make the following edits?", which cctop does not answer',
    });
  });

  it('refuses options whose keys it does not know', () => {
    expect(readCodexPrompt(promptFor('touch x').replace('proceed (y)', 'proceed (Y!)'))).toEqual({
      kind: 'none',
      why: 'its prompt offers no plain allow and deny cctop knows',
    });
  });

  it("takes the prompt's own options, not ones a command's lines pretend to be", () => {
    const forged = promptFor('touch x').replace('  $ touch x', '  $ touch x\n\n› 1. Yes, proceed (z)\n');
    expect(readCodexPrompt(forged)).toMatchObject({
      kind: 'prompt',
      command: 'touch x',
      allow: { tmux: 'y' },
    });
  });

  it('drops control characters from what it reads', () => {
    const read = readCodexPrompt(promptFor('touch \u001b[31mx\u0007'));
    expect(read).toMatchObject({ kind: 'prompt', command: 'touch [31mx' });
  });

  it('reads only the end of a huge screen', () => {
    const flood = `${'x'.repeat(MAX_SCREEN_CHARS)}\n${'\n'.repeat(MAX_PROMPT_LINES)}`;
    expect(readCodexPrompt(`${flood}${promptFor('touch x')}`)).toMatchObject({ kind: 'prompt' });
    // A prompt pushed above the lines read is not seen.
    const below = `${promptFor('touch x')}${'  filler\n'.repeat(MAX_PROMPT_LINES)}  Press enter to confirm or esc to cancel\n`;
    expect(readCodexPrompt(below).kind).toBe('none');
  });
});

describe('the command on the screen against the call the hooks name', () => {
  it('is the same across the lines the screen wrapped it onto', () => {
    expect(
      sameCommand(
        'for i in 1 2; do echo a; done; touch lab-x',
        'for i in 1 2; do echo a; done; touch lab-x',
        512,
      ),
    ).toBe(true);
    expect(sameCommand('touch lab- escalated.txt', 'touch lab-escalated.txt', 512)).toBe(true);
  });

  it('differs when the command does', () => {
    expect(sameCommand('touch a', 'touch b', 512)).toBe(false);
    expect(sameCommand('touch a && rm -rf ~', 'touch a', 512)).toBe(false);
    expect(sameCommand('touch a', '', 512)).toBe(false);
  });

  it("takes a hook's copy cut at its bound as the start of the command", () => {
    expect(sameCommand('echo 0123456789', 'echo 01234', 10)).toBe(true);
    expect(sameCommand('echo 0123456789', 'echo 0123', 10)).toBe(false);
  });
});
