/** Typing into Gemini CLI's own TUI, in a tmux pane and under `cctop run` (see act-tui.ts). */
import { geminiRecipe } from '../../src/test-support/lab/agents/gemini.js';
import { actSuite } from './act-tui.js';

actSuite({
  id: 'gemini',
  command: 'gemini',
  setup: (home, _cwd, serverUrl) => geminiRecipe.setup(home, serverUrl),
  env: (home, serverUrl) => geminiRecipe.env(home, serverUrl),
  // `--skip-trust` trusts the fresh folder; `-i` keeps the TUI open after the first prompt.
  args: ['--model', 'gemini-2.5-flash', '--skip-trust', '-i'],
  // 0.61.0's line while a turn runs: "⠏ … (esc to cancel, 2s)".
  working: (screen) => screen.includes('esc to cancel'),
  quit: '/quit',
  // It writes "Request cancelled." in its chat, which the Gemini provider reads as the turn's end.
  afterStop: { state: 'idle' },
  quitCode: 0,
  keep: ['.gemini/tmp'],
});
