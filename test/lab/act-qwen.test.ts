/** Typing into Qwen Code's own TUI, in a tmux pane and under `cctop run` (see act-tui.ts). */
import { qwenRecipe } from '../../src/test-support/lab/agents/qwen.js';
import { actSuite } from './act-tui.js';

actSuite({
  id: 'qwen',
  command: 'qwen',
  setup: (home, _cwd, serverUrl) => qwenRecipe.setup(home, serverUrl),
  env: (home, serverUrl) => qwenRecipe.env(home, serverUrl),
  // `-i` keeps the TUI open after the first prompt (a positional prompt alone is one-shot).
  args: ['--auth-type', 'openai', '--model', 'qwen3-coder-plus', '-i'],
  // 0.24.4's line while a turn runs: "⠦ … (1s · esc to cancel)".
  working: (screen) => screen.includes('esc to cancel'),
  quit: '/quit',
  // 0.24.4 puts the stopped prompt back in its input box; Ctrl-U empties the line.
  clearInput: ['C-u'],
  afterStop: {
    state: 'working',
    why: '0.24.4 writes nothing in its chat when a turn is stopped before the model says anything (its last line stays the prompt; it only takes the prompt back out of its input history, tmp/<project>/logs.json), so the session reads working until its next turn; a turn stopped at a call reads idle (qwen-stop.test.ts)',
  },
  quitCode: 0,
  keep: ['.qwen/projects'],
});
