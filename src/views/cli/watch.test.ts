import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readLock } from '../../notify/lock.js';
import { crossingNotice } from '../../notify/notice.js';
import { NOW, session } from '../../notify/test-support/fixtures.js';
import { tempDir } from '../../test-support/corpus.js';
import type { Io } from './main.js';
import { UsageError } from './options.js';
import { sentLine, watchCommand, watchOptions } from './watch.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function io(env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const x: Io = { out: (s) => out.push(String(s)), err: (s) => err.push(s), isTty: false, columns: 80, env };
  return { io: x, out, err };
}

describe('cctop watch, its command line', () => {
  it('takes a webhook, its format and no desktop over the config file', () => {
    const o = watchOptions(
      ['--notify', 'https://ntfy.sh/my-topic', '--notify-format', 'NTFY', '--no-desktop'],
      io().io,
    );
    expect(o?.overrides).toEqual({ url: 'https://ntfy.sh/my-topic', format: 'ntfy', desktop: false });
    expect(watchOptions([], io().io)?.overrides).toEqual({});
  });

  it('refuses a webhook that is not http(s), and a format it does not know, saying what it expected', () => {
    expect(() => watchOptions(['--notify', 'file:///etc/passwd'], io().io)).toThrow(UsageError);
    expect(() => watchOptions(['--notify', 'https://user:pw@example.test/'], io().io)).toThrow(
      /user name or password/,
    );
    expect(() => watchOptions(['--notify-format', 'xml'], io().io)).toThrow(/expected json, ntfy or slack/);
    expect(() => watchOptions(['--delay', '0.1'], io().io)).toThrow(/--delay/);
  });

  it('prints a line per notice sent, with its words made safe for a terminal', () => {
    const s = session('a1b2', {
      state: 'waiting',
      title: 'evil\u001b]0;owned\u0007title',
      pendingTool: 'Bash',
    });
    const n = crossingNotice(
      { session: s, into: 'waiting', probably: false },
      { dashboard: null, nowMs: NOW },
    );
    const line = sentLine(n, ['desktop', 'webhook']);
    expect(line).toBe(
      '2026-03-02T12:00:00.000Z  waiting     desktop+webhook  evil\ufffdtitle is waiting for you (Claude Code in a1b2): Bash',
    );
  });
});

describe('cctop watch, running', () => {
  it('holds the sender lock while it runs and gives it back when stopped', async () => {
    const t = tempDir('cctop-watch-');
    cleanups.push(t.cleanup);
    const config = join(t.dir, 'config.toml');
    writeFileSync(config, '[notify]\ndesktop = false\n');
    const run = join(t.dir, 'run');
    const env = {
      HOME: t.dir,
      CCTOP_RUNTIME_DIR: run,
      CCTOP_CACHE_DIR: join(t.dir, 'cache'),
      CCTOP_CONFIG: config,
      PATH: '',
    };
    const { io: x, err } = io(env);
    let held: ReturnType<typeof readLock> | null = null;
    const stop = new Promise<void>((resolve) => {
      x.err = (s) => {
        err.push(s);
        if (s.startsWith('cctop watch: desktop off')) {
          held = readLock(run);
          resolve();
        }
      };
    });
    expect(await watchCommand(['--no-cache'], x, stop)).toBe(0);
    expect(held).toMatchObject({ kind: 'held', alive: true, holder: { pid: process.pid, role: 'watch' } });
    expect(readLock(run)).toEqual({ kind: 'free' });
    expect(err).toContain('cctop watch: this watcher sends the notifications now');
    expect(err).toContain('cctop watch: desktop off; no webhook (notify.url, or --notify URL)');
  });
});
