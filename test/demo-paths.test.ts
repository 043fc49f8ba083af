/**
 * `cctop --demo` on a terminal shows no temporary path: the demo's copy of the sample history lives
 * in a temporary directory, and the Info panel names a session's file from `~` of that home, as it
 * names a real one from the user's. A real terminal (tmux) running the built CLI.
 */
import { afterAll, expect, it } from 'vitest';
import { FakeHome } from '../src/test-support/corpus.js';
import { HAVE_TMUX, Terminal } from '../src/test-support/terminal.js';

/** How long the first draw may take: the demo's copy and one scan of eight sessions, on a loaded machine. */
const PATIENCE_MS = 30_000;

const home = new FakeHome();
afterAll(() => home.cleanup());

it.skipIf(!HAVE_TMUX)(
  `the demo's Info panel names the session's file from ~, never its temporary directory${HAVE_TMUX ? '' : ' (skipped: tmux is not installed; apt-get install tmux)'}`,
  async () => {
    const term = new Terminal(`cctop-demo-paths-${process.pid}`, 'demo', PATIENCE_MS);
    try {
      term.cctop(
        home.dir,
        { ...home.env, PATH: process.env.PATH ?? '', TERM: 'xterm-256color' },
        '--demo',
        160,
        45,
      );
      const screen = await term.until('the Info panel with a file line', (lines) =>
        lines.some((l) => /^\s+file\s+\S/.test(l)),
      );
      const file = screen.find((l) => /^\s+file\s+\S/.test(l))!;
      expect(file).toMatch(/^\s+file\s+~\/\.(claude|codex)\//);
      expect(screen.join('\n')).not.toContain('cctop-demo-');
    } finally {
      term.stop();
    }
  },
);
