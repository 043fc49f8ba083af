import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/corpus.js';
import { DesktopSender, desktopArgs, findDesktop } from './desktop.js';
import { crossingNotice } from './notice.js';
import { fakeNotifySend, NOW, runsIn, session } from './test-support/fixtures.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function dir(): string {
  const t = tempDir('cctop-desktop-');
  cleanups.push(t.cleanup);
  return t.dir;
}

const notice = (title: string) =>
  crossingNotice(
    {
      session: session('a1b2', { state: 'waiting', title, pendingTool: 'Bash' }),
      into: 'waiting',
      probably: false,
    },
    { dashboard: null, nowMs: NOW },
  );

describe('desktop notifications', () => {
  it('notify-send is found on PATH and run with the notice as separate arguments after --', async () => {
    const d = dir();
    const fake = fakeNotifySend(d);
    const env = { PATH: `relative/bin:${fake.path}:/nonexistent` };
    const tool = findDesktop(env, 'linux');
    expect(tool).toEqual({ kind: 'notify-send', path: `${fake.path}/notify-send` });
    const sender = new DesktopSender({ tool, env });
    sender.send(notice('-u critical <b>bold</b> & "quoted" $(rm -rf ~)'));
    await sender.idle();
    expect(runsIn(readFileSync(fake.log, 'utf8'))).toEqual([
      [
        '--app-name=cctop',
        '--',
        'Waiting: -u critical <b>bold</b> & "quoted" $(rm -rf ~)',
        '-u critical &lt;b&gt;bold&lt;/b&gt; &amp; "quoted" $(rm -rf ~) is waiting for you (Claude Code in a1b2): Bash',
      ],
    ]);
    expect(sender.status).toMatchObject({ sent: 1, failed: 0 });
  });

  it('a machine without notify-send has no desktop tool, and sending is a no-op, not an error', () => {
    expect(findDesktop({ PATH: dir() }, 'linux')).toBeNull();
    expect(findDesktop({}, 'linux')).toBeNull();
    const sender = new DesktopSender({ tool: null, env: {} });
    expect(() => sender.send(notice('fix the login form'))).not.toThrow();
    expect(sender.status).toMatchObject({ tool: null, sent: 0, failed: 0 });
  });

  it('a notifier that fails is counted with its reason', async () => {
    const sender = new DesktopSender({ tool: { kind: 'notify-send', path: '/bin/false' }, env: {} });
    sender.send(notice('fix the login form'));
    await sender.idle();
    expect(sender.status).toMatchObject({ sent: 0, failed: 1, lastError: 'notify-send exited with code 1' });
  });

  it('on macOS the words reach AppleScript as arguments of its run handler, never as its source', () => {
    const args = desktopArgs('osascript', {
      title: 'Waiting: say "hi" & quit',
      text: '"); do shell script "rm -rf ~',
    });
    expect(args.slice(0, 6)).toEqual([
      '-e',
      'on run argv',
      '-e',
      'display notification (item 2 of argv) with title (item 1 of argv)',
      '-e',
      'end run',
    ]);
    expect(args.slice(6)).toEqual(['Waiting: say "hi" & quit', '"); do shell script "rm -rf ~']);
    expect(findDesktop({ PATH: '/usr/bin' }, 'win32')).toBeNull();
  });
});
