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
  // Passed in the lab and in one full run, then failed in the next: a terminal that attached to a
  // Codex held by cctop run stayed blank for its whole patience (load about 3, two lab files at once),
  // as OpenCode's always does. Until the pty host makes a Codex redraw reliably on attach, this suite
  // would fail now and then, so it is skipped, saying why.
  runSkipped:
    'Codex 0.169.0 sometimes draws nothing in a terminal that attaches under cctop run (about one run in four here); npx vitest run test/lab/act-codex.test.ts once src/runtime/pty-host.ts makes it redraw every time',
  quitCode: 0,
  keep: ['.codex/sessions'],
});
