/** Typing into OpenCode's own TUI, in a tmux pane and under `cctop run` (see act-tui.ts). */
import {
  checkpointOpenCode,
  OPENCODE_DATABASE,
  opencodeRecipe,
} from '../../src/test-support/lab/agents/opencode.js';
import { actSuite } from './act-tui.js';

actSuite({
  id: 'opencode',
  command: 'opencode',
  setup: (home, _cwd, serverUrl) => opencodeRecipe.setup(home, serverUrl),
  env: (home, serverUrl) => opencodeRecipe.env(home, serverUrl),
  args: ['--prompt'],
  // 1.18.33's footer while a turn runs: "esc interrupt" ("esc again to interrupt" once pressed).
  working: (screen) => /esc (again to )?interrupt/.test(screen),
  // The first Escape only warns ("esc again to interrupt"); the second stops the turn.
  stopPressed: 'Escape twice',
  afterStop: { state: 'idle' },
  quit: '/exit',
  quitCode: 0,
  settle: checkpointOpenCode,
  keep: [OPENCODE_DATABASE],
});
