import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/corpus.js';
import { PLAIN } from '../views/cli/color.js';
import { notificationLines } from './doctor.js';
import { SenderLock } from './lock.js';
import { writeStatus } from './status.js';
import { fakeNotifySend } from './test-support/fixtures.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function machine(config: string) {
  const t = tempDir('cctop-notify-doctor-');
  cleanups.push(t.cleanup);
  const path = join(t.dir, 'config.toml');
  writeFileSync(path, config);
  return {
    dir: t.dir,
    env: { HOME: t.dir, CCTOP_CONFIG: path, CCTOP_RUNTIME_DIR: join(t.dir, 'run'), PATH: '' },
  };
}

describe('cctop doctor on notifications', () => {
  it('says what is off and why, and that no cctop has sent yet', () => {
    const m = machine('');
    const text = notificationLines(m.env, PLAIN).join('\n');
    expect(text).toContain('desktop   on, but no');
    expect(text).toContain('webhook   none (notify.url in the config, or cctop watch --notify URL)');
    expect(text).toContain('sender    none has run since login');
  });

  it('names the sender, the webhook without its secret path, and its last failure', () => {
    const m = machine(
      '[notify]\nurl = "https://hooks.slack.com/services/T000/B000/SECRET"\nformat = "slack"\n',
    );
    const fake = fakeNotifySend(m.dir);
    const env = { ...m.env, PATH: fake.path };
    mkdirSync(env.CCTOP_RUNTIME_DIR, { recursive: true, mode: 0o700 });
    const lock = new SenderLock(env.CCTOP_RUNTIME_DIR, 'watch');
    lock.check();
    cleanups.push(() => lock.release());
    writeStatus(env.CCTOP_RUNTIME_DIR, {
      v: 1,
      pid: process.pid,
      role: 'watch',
      updatedAt: '2026-03-02T12:00:00.000Z',
      desktop: { tool: 'notify-send', sent: 3, failed: 0, dropped: 0, lastError: null },
      webhook: {
        target: 'https://hooks.slack.com/…',
        format: 'slack',
        sent: 2,
        failed: 1,
        dropped: 0,
        queued: 0,
        lastOk: { at: '2026-03-02T11:50:00.000Z', kind: 'waiting' },
        lastFailure: {
          at: '2026-03-02T11:59:00.000Z',
          kind: 'error',
          status: 500,
          error: 'HTTP 500',
          attempts: 5,
          final: true,
        },
      },
      spoolDropped: 0,
      expired: 0,
    });
    const text = notificationLines(env, PLAIN).join('\n');
    expect(text).not.toContain('SECRET');
    expect(text).toContain(`desktop   on: notify-send (${fake.path}/notify-send)`);
    expect(text).toContain('webhook   https://hooks.slack.com/… (slack)');
    expect(text).toMatch(new RegExp(`sender    cctop watch \\(pid ${process.pid}\\), since `));
    expect(text).toContain('2 sent, 1 given up, 0 dropped, 0 queued');
    expect(text).toContain('delivered 2026-03-02T11:50:00.000Z (waiting)');
    expect(text).toContain('failed 2026-03-02T11:59:00.000Z (error): HTTP 500 after 5 tries, given up');
  });
});
