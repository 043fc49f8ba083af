/**
 * Typing into Claude Code's own TUI, in a tmux pane and under `cctop run` (see act-tui.ts): beside
 * act-terminal.test.ts, this one stops a held turn through cctop's own pty too.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { actSuite } from './act-tui.js';

/** A made-up key; Claude Code's approval list keeps its last 20 characters. */
const API_KEY = 'sk-ant-lab-act-tui-00000000000000000000';

actSuite({
  id: 'claude',
  command: 'claude',
  setup(home, cwd) {
    // Claude Code's first-run dialogs, answered as a person who has used it would have.
    writeFileSync(
      join(home, '.claude.json'),
      JSON.stringify({
        hasCompletedOnboarding: true,
        projects: { [cwd]: { hasTrustDialogAccepted: true } },
        customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
      }),
    );
  },
  env: (_home, serverUrl) => ({ ANTHROPIC_BASE_URL: serverUrl, ANTHROPIC_API_KEY: API_KEY }),
  args: [],
  // 2.1.328's spinner line while a turn runs: "✻ Thinking… (esc to interrupt)".
  working: (screen) => screen.includes('esc to interrupt'),
  quit: '/exit',
  afterStop: { state: 'idle' },
  quitCode: 0,
  // 2.1.328 puts the interrupted prompt back in its input box; Ctrl-U empties the line.
  clearInput: ['C-u'],
  keep: ['.claude/projects'],
});
