import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/corpus.js';
import { standInSsh } from '../test-support/stand-in-ssh.js';
import { HostPoller } from './poller.js';

let dir: string;
let cleanup: () => void;
let poller: HostPoller | null = null;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('cctop-poller-'));
});
afterEach(() => {
  poller?.stop();
  poller = null;
  cleanup();
});

const DOC = JSON.stringify({
  version: 1,
  sessions: [{ provider: 'claude', id: 's1', state: 'working', lastActiveAt: '2026-12-01T10:00:00Z' }],
});

/**
 * A stand-in ssh that answers by host name: `fast` at once, `slow` never (it sleeps), `flaky` until
 * the file `down` exists, then as ssh does when sshd has stopped. Each call is logged.
 */
function fakeSsh(): string {
  return standInSsh(dir, [
    `while [ "$1" != "--" ]; do shift; done
host="$2"
echo "$host" >> '${join(dir, 'calls')}'
case "$host" in
  slow) sleep 30 ;;
  flaky) if [ -e '${join(dir, 'down')}' ]; then echo "ssh: connect to host flaky port 22: Connection refused" >&2; exit 255; fi ;;
esac
printf '%s' '${DOC}'`,
  ]).CCTOP_SSH;
}

const calls = (host: string): number =>
  existsSync(join(dir, 'calls'))
    ? readFileSync(join(dir, 'calls'), 'utf8')
        .split('\n')
        .filter((l) => l === host).length
    : 0;

async function until(ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const make = (names: string[]) =>
  new HostPoller({
    hosts: names.map((name) => ({ name, cctop: null })),
    env: { CCTOP_SSH: fakeSsh(), CCTOP_RUNTIME_DIR: dir },
    everyMs: 150,
    waitMs: 20_000,
  });

describe('polling other machines for a live view', () => {
  it('asks each host on its own schedule: a host that never answers stalls none of the others', async () => {
    poller = make(['slow', 'fast']);
    poller.start();
    await until(() => calls('fast') >= 4);
    expect(calls('slow')).toBe(1);
    const [slow, fast] = poller.views();
    expect(fast!.status).toMatchObject({ host: 'fast', ok: true, sessions: 1, error: null });
    expect(fast!.sessions[0]).toMatchObject({ id: 's1', host: 'fast' });
    expect(slow).toEqual({
      status: { host: 'slow', ok: false, sessions: 0, error: null, answeredAt: null },
      sessions: [],
    });
  });

  it('a host that stops answering keeps its last rows, with when it last answered and why it is silent', async () => {
    poller = make(['flaky']);
    let changes = 0;
    poller.on('changed', () => changes++);
    poller.start();
    await until(() => poller!.views()[0]!.status.ok);
    const answeredAt = poller.views()[0]!.status.answeredAt;
    writeFileSync(join(dir, 'down'), '');
    await until(() => !poller!.views()[0]!.status.ok);
    const [flaky] = poller.views();
    expect(flaky!.sessions).toHaveLength(1);
    expect(flaky!.status).toEqual({
      host: 'flaky',
      ok: false,
      sessions: 1,
      error: expect.stringContaining('flaky refused the connection'),
      answeredAt,
    });
    expect(changes).toBeGreaterThanOrEqual(2);
  });

  it('asks nothing more once stopped', async () => {
    poller = make(['fast']);
    poller.start();
    await until(() => calls('fast') >= 2);
    poller.stop();
    const asked = calls('fast');
    await new Promise((r) => setTimeout(r, 600));
    expect(calls('fast')).toBe(asked);
  });
});
