/** Typing into Copilot CLI's own TUI, in a tmux pane and under `cctop run` (see act-tui.ts). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copilotRecipe } from '../../src/test-support/lab/agents/copilot.js';
import { actSuite } from './act-tui.js';

actSuite({
  id: 'copilot',
  command: 'copilot',
  setup(home, cwd, serverUrl) {
    copilotRecipe.setup(home, serverUrl);
    // The folder trusted as a person answers its first question in it, so it opens at its prompt.
    mkdirSync(join(home, '.copilot'), { recursive: true });
    writeFileSync(join(home, '.copilot', 'config.json'), `${JSON.stringify({ trustedFolders: [cwd] })}\n`);
  },
  env: (home, serverUrl) => copilotRecipe.env(home, serverUrl),
  args: ['-i'],
  // 1.0.102's status line while a turn runs: "◎ Working esc esc edit prompt".
  working: (screen) => screen.includes('◎ Working'),
  afterStop: { state: 'idle' },
  quit: '/exit',
  quitCode: 0,
  keep: ['.copilot/session-state'],
});
