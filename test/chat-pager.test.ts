/**
 * `cctop chat` on a terminal pages through `$PAGER` as `git log` does, and never when piped. The
 * terminal is a real one (tmux); the pager is a script that keeps what it was given and says so on
 * the screen. The session is the lab's recorded Claude Code run (2.1.328, `text` case).
 */
import { chmodSync, cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/test-support/cli-run.js';
import { FakeHome, REPO } from '../src/test-support/corpus.js';
import { HAVE_TMUX, Terminal } from '../src/test-support/terminal.js';

/** How long the chat may take to reach the pager: one scan of one session on a loaded machine. */
const PATIENCE_MS = 30_000;

let home: FakeHome;
let pager: string;
let kept: string;
beforeEach(() => {
  home = new FakeHome();
  cpSync(join(REPO, 'lab', 'fixtures', 'claude', 'text', 'home'), home.dir, { recursive: true });
  kept = join(home.dir, 'paged.txt');
  pager = join(home.dir, 'pager.sh');
  writeFileSync(pager, `#!/bin/sh\necho "LESS=$LESS" > '${kept}'\ncat >> '${kept}'\necho PAGED\n`);
  chmodSync(pager, 0o755);
});
afterEach(() => home.cleanup());

const env = () => ({ ...home.env, PATH: process.env.PATH ?? '', PAGER: pager, TERM: 'xterm-256color' });

describe('cctop chat and the pager', () => {
  it.skipIf(!HAVE_TMUX)(
    `on a terminal the conversation goes through $PAGER, with LESS=FRX${HAVE_TMUX ? '' : ' (skipped: tmux is not installed; apt-get install tmux)'}`,
    async () => {
      const term = new Terminal(`cctop-pager-${process.pid}`, 'chat', PATIENCE_MS);
      try {
        term.cctop(home.dir, env(), 'chat', 100, 30);
        await term.until('the pager having run', (lines) => lines.some((l) => l === 'PAGED'));
        const paged = readFileSync(kept, 'utf8');
        expect(paged.split('\n')[0]).toBe('LESS=FRX');
        expect(paged).toContain('#0 you');
      } finally {
        term.stop();
      }
    },
  );

  it('piped, the conversation is written as it is and no pager runs', async () => {
    const r = await runCli(['chat'], env());
    expect(r.code).toBe(0);
    expect(r.out).toContain('#0 you');
    expect(existsSync(kept)).toBe(false);
  });
});
