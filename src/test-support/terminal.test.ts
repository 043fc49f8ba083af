/**
 * The tests' tmux terminal says when a window is not there, instead of reading it as a blank screen
 * until its patience runs out: the `cctop run` lab suites once failed that way, a blank attach that
 * was in fact a window tmux had dropped (its server, whose last window had just closed, was still
 * exiting when the next one was opened).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { unless, WHY } from './skips.js';
import { HAVE_TMUX, Terminal } from './terminal.js';

/** Far longer than each test's own limit: a wait that sat out its patience fails the test. */
const PATIENCE_MS = 10 * 60_000;
const TEST_MS = 30_000;

describe.skipIf(!HAVE_TMUX)(`a tmux window the tests read${unless(HAVE_TMUX, WHY.tmux)}`, () => {
  let server = 0;
  let term: Terminal;
  const fresh = () => {
    term = new Terminal(`cctop-terminal-test-${process.pid}-${server++}`, 'none', PATIENCE_MS);
    return term;
  };
  afterEach(() => term?.stop());

  it(
    "a wait on a window whose server is gone fails at once with tmux's words, not as a blank screen",
    async () => {
      const gone = fresh().open('gone', 'exec sleep 600');
      term.stop();
      // What tmux says depends on how far its server got in exiting.
      await expect(gone.until('the answer', () => false)).rejects.toThrow(
        /^the screen never showed the answer: tmux cannot read window gone: (no server running on |server exited unexpectedly|error connecting to )/,
      );
    },
    TEST_MS,
  );

  it(
    "a window tmux will not open fails at once with tmux's words",
    () => {
      fresh().open('one', 'exec sleep 600');
      expect(() => term.open('one', 'exec sleep 600')).toThrow(
        /^tmux could not open window one: duplicate session: one$/,
      );
    },
    TEST_MS,
  );

  it(
    'a window opened before the last one closes is shown: the server never runs out of windows',
    async () => {
      const one = fresh().open('one', 'exec sleep 600');
      const two = term.open('two', "printf 'the second window\\n'; exec sleep 600");
      one.tmux('kill-session', '-t', 'one');
      const lines = await two.until('the second window', (l) => l.includes('the second window'));
      expect(lines[0]).toBe('the second window');
    },
    TEST_MS,
  );
});
