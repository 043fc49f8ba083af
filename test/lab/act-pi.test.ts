/** Typing into pi's own TUI, in a tmux pane and under `cctop run` (see act-tui.ts). */
import { piRecipe } from '../../src/test-support/lab/agents/pi.js';
import { actSuite } from './act-tui.js';

actSuite({
  id: 'pi',
  command: 'pi',
  setup: (home, _cwd, serverUrl) => piRecipe.setup(home, serverUrl),
  env: (home, serverUrl) => piRecipe.env(home, serverUrl),
  args: ['--provider', 'lab', '--model', 'lab-model'],
  working: (screen) => screen.includes('Working'),
  afterStop: { state: 'idle' },
  quit: '/quit',
  quitCode: 0,
  keep: ['.pi/agent/sessions'],
});
