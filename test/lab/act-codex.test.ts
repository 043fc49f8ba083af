/** Typing into Codex's own TUI, in a tmux pane and under `cctop run` (see act-tui.ts). */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { codexRecipe } from '../../src/test-support/lab/agents/codex.js';
import { actSuite } from './act-tui.js';

actSuite({
  id: 'codex',
  command: 'codex',
  setup(home, cwd, serverUrl) {
    codexRecipe.setup(home, serverUrl);
    // The folder trusted as a person answers Codex's first question in it, so it opens at its prompt.
    appendFileSync(join(home, '.codex', 'config.toml'), `\n[projects."${cwd}"]\ntrust_level = "trusted"\n`);
  },
  env: (home, serverUrl) => codexRecipe.env(home, serverUrl),
  args: [],
  // 0.169.0's status line while a turn runs: "• Working (3s • esc to interrupt)".
  working: (screen) => screen.includes('esc to interrupt'),
  quit: '/exit',
  afterStop: { state: 'idle' },
  quitCode: 0,
  keep: ['.codex/sessions'],
});
