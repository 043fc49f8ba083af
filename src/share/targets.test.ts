import { describe, expect, it } from 'vitest';
import {
  defaultTarget,
  HANDOFF_TARGETS,
  handoffInvocation,
  handoffPrompt,
  shellLine,
  startWords,
} from './targets.js';

const BRIEF = '/home/me/.cache/cctop/handoff/claude-abc-to-codex.md';
const DIR = '/home/me/.cache/cctop/handoff';

describe('the command that hands a session over', () => {
  it('goes to another harness than the session’s own by default', () => {
    expect(defaultTarget('claude')).toBe('codex');
    expect(defaultTarget('codex')).toBe('claude');
    expect(defaultTarget('gemini')).toBe('claude');
  });

  it('every harness starts interactively with the prompt as one word, and may read the brief’s folder', () => {
    const prompt = handoffPrompt('claude', BRIEF);
    expect(prompt).toContain(BRIEF);
    expect(prompt).toContain('Claude Code session');
    expect(startWords('claude', prompt, DIR)).toEqual(['claude', prompt, '--add-dir', DIR]);
    expect(startWords('codex', prompt, DIR)).toEqual(['codex', prompt]);
    expect(startWords('gemini', prompt, DIR)).toEqual([
      'gemini',
      '--include-directories',
      DIR,
      '--prompt-interactive',
      prompt,
    ]);
    expect(startWords('qwen', prompt, DIR)).toEqual([
      'qwen',
      '--include-directories',
      DIR,
      '--prompt-interactive',
      prompt,
    ]);
    expect(startWords('copilot', prompt, DIR)).toEqual([
      'copilot',
      '--add-dir',
      DIR,
      '--interactive',
      prompt,
    ]);
    expect(startWords('opencode', prompt, DIR)).toEqual(['opencode', '--prompt', prompt]);
    expect(startWords('pi', prompt, DIR)).toEqual(['pi', prompt]);
    for (const t of HANDOFF_TARGETS)
      expect(startWords(t, prompt, DIR).filter((w) => w === prompt)).toHaveLength(1);
  });

  it('the line for a shell quotes every word, so a directory or path from a transcript runs nothing', () => {
    const line = shellLine("/w/it's $(rm -rf ~)", ['codex', "Read the brief at /tmp/a b/x.md: don't stop"]);
    expect(line).toBe(
      `cd '/w/it'\\''s $(rm -rf ~)' && codex 'Read the brief at /tmp/a b/x.md: don'\\''t stop'`,
    );
  });

  it('no cd into a directory that reads as an option, and no escape sequence reaches the clipboard', () => {
    expect(shellLine('--version', ['codex', 'x'])).toBe('codex x');
    expect(shellLine('/w/\u001b]52;c;ZXZpbA==\u0007app', ['codex'])).toBe(`cd '/w/\ufffdapp' && codex`);
  });

  it('the cctop line the table and the dashboard show runs the handoff in the session’s directory', () => {
    expect(handoffInvocation({ id: '01997e76-d124' }, 'codex')).toBe(
      'cctop handoff 01997e76-d124 --to codex --run',
    );
    expect(handoffInvocation({ id: '--dangerously-skip' }, 'codex')).toBeNull();
  });
});
