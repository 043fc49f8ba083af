/**
 * The pane an agent runs in is found by asking the tmux server's own socket first, read from /proc,
 * so a folder full of sockets left by killed servers costs nothing, and a server started with
 * `tmux -S` somewhere else is still found. The proof is unchanged: the server pid tmux reports.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processRow } from '../test-support/processes.js';
import { unless, WHY } from '../test-support/skips.js';
import { HAVE_TMUX } from '../test-support/terminal.js';
import { paneOf, panesOf, socketsHeldBy } from './pane.js';

describe.skipIf(!HAVE_TMUX)(`the tmux server's own socket${unless(HAVE_TMUX, WHY.tmux)}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'cctop-pane-'));
  // A path with a space, outside the user's tmux folder: as `tmux -S` may be given.
  const socket = join(dir, 'own sock');
  const tmux = (...args: string[]) => spawnSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' });
  afterAll(() => {
    tmux('kill-server');
    rmSync(dir, { recursive: true, force: true });
  });

  it('is read from /proc, and a pane under it is found asking that socket alone', () => {
    expect(tmux('new-session', '-d', 'exec sleep 600').status).toBe(0);
    const [serverPid, panePid] = tmux('list-panes', '-F', '#{pid} #{pane_pid}')
      .stdout.trim()
      .split(' ')
      .map(Number);
    expect(socketsHeldBy(serverPid!)).toEqual([socket]);

    // Two hundred sockets left by servers that are gone, all listed before it.
    const stale = Array.from({ length: 200 }, (_, i) => join(dir, `stale-${i}`));
    for (const s of stale) writeFileSync(s, '');
    const asked: string[] = [];
    const table = [processRow(serverPid!, 1, ['tmux']), processRow(panePid!, serverPid!, ['claude'])];
    const found = paneOf('claude', panePid!, table, {}, stale, (s) => {
      asked.push(s);
      return panesOf(s);
    });
    expect(found).toMatchObject({ kind: 'pane', pane: { socket, serverPid, panePid } });
    expect(asked).toEqual([socket]);
  });

  it('is no socket for a process that is gone or listens on none', () => {
    expect(socketsHeldBy(process.pid)).toEqual([]);
    expect(socketsHeldBy(2 ** 22 + 1)).toEqual([]);
  });
});
