/**
 * `cctop chat` and `cctop report` asked of other machines, with a stand-in ssh that answers as each
 * host's cctop would: the first host in the order given that has the session answers; a host without
 * it, one whose cctop refuses the id, and one that cannot be reached each end the command as a local
 * id would, or with the fix.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test-support/corpus.js';
import { remoteChat, standInSsh } from '../../test-support/stand-in-ssh.js';
import type { Io } from './main.js';
import { remoteSessionCommand } from './session-remote.js';

/** `chat s1 --json` as cctop 0.1.0 prints it (trimmed). */
const CHAT = remoteChat('make them pass', 0);

/** What each host does when asked: answer, have no such session, refuse the id, or be unreachable. */
type Behaviour = 'answers' | 'has-none' | 'ambiguous' | 'unreachable';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('cctop-session-remote-'));
});
afterEach(() => cleanup());

/** A stand-in ssh for hosts named as `hosts` says; its environment for the command. */
function ssh(hosts: Record<string, Behaviour>): Record<string, string> {
  writeFileSync(join(dir, 'chat'), JSON.stringify(CHAT));
  const cases = Object.entries(hosts).map(([name, b]) => {
    const act = {
      answers: `cat '${dir}/chat'; exit 0`,
      'has-none': `echo 'cctop: no session matches "s1" (cctop --list shows them)' >&2; exit 2`,
      ambiguous: `echo 'cctop: "s" matches 2 sessions; give more of the id:' >&2; exit 2`,
      unreachable: `echo 'ssh: connect to host ${name} port 22: Connection refused' >&2; exit 255`,
    }[b];
    return `  *' -- ${name} '*) ${act} ;;`;
  });
  return standInSsh(dir, ['case " $* " in', ...cases, 'esac']);
}

function io(env: Record<string, string>): Io & { outs: string[]; errs: string[] } {
  const outs: string[] = [];
  const errs: string[] = [];
  return {
    outs,
    errs,
    out: (s) => outs.push(String(s)),
    err: (s) => errs.push(s),
    isTty: false,
    columns: 100,
    env,
  };
}

const hosts = (...names: string[]) => names.map((name) => ({ name, cctop: null }));

describe('a session asked of other machines', () => {
  it('is shown from the first host in the order given that has it, saying which when it was not named', async () => {
    const o = io(ssh({ a: 'has-none', b: 'answers', c: 'answers' }));
    const code = await remoteSessionCommand(
      o,
      'chat',
      's1',
      { json: true },
      hosts('a', 'b', 'c'),
      'fallback',
    );
    expect(code).toBe(0);
    expect(JSON.parse(o.outs.join(''))).toMatchObject({ session: 's1', host: 'b', title: 'fix the tests' });
    expect(o.errs).toEqual(['cctop: s1 is not on this machine; showing it from b']);
  });

  it('names a host that could not be asked, and still shows the session from one that could', async () => {
    const o = io(ssh({ a: 'unreachable', b: 'answers' }));
    expect(await remoteSessionCommand(o, 'chat', 's1', {}, hosts('a', 'b'), 'named')).toBe(0);
    expect(o.outs.join('\n')).toContain('make them pass');
    expect(o.errs).toEqual([expect.stringMatching(/^cctop: could not read a: a refused the connection/)]);
  });

  it('exits 2 when no host has it, 1 when a host that might have it could not be asked', async () => {
    const none = io(ssh({ a: 'has-none', b: 'has-none' }));
    expect(await remoteSessionCommand(none, 'report', 's1', {}, hosts('a', 'b'), 'named')).toBe(2);
    expect(none.errs).toEqual(['cctop: no session matches "s1" on a, b (cctop --list shows them)']);
    const dead = io(ssh({ a: 'has-none', b: 'unreachable' }));
    expect(await remoteSessionCommand(dead, 'report', 's1', {}, hosts('a', 'b'), 'named')).toBe(1);
    expect(dead.errs).toEqual([expect.stringMatching(/^cctop: could not read b: b refused the connection/)]);
  });

  it('passes on what the remote cctop says of an id that matches several there, and exits 2', async () => {
    const o = io(ssh({ a: 'ambiguous' }));
    expect(await remoteSessionCommand(o, 'chat', 's', {}, hosts('a'), 'named')).toBe(2);
    expect(o.errs).toEqual(['cctop: the cctop on a says: "s" matches 2 sessions; give more of the id:']);
  });
});
