/**
 * A remote session's conversation and report, fetched over ssh on demand, end to end: the built
 * `dist/cli.js` asking a "remote" cctop (this repository's, with a home of corpus transcripts)
 * through a real OpenSSH server on 127.0.0.1 (`src/test-support/sshd.ts`). `cctop chat` and
 * `cctop report` with `--host`, an id found only on a configured host, a host that cannot be asked,
 * and the live table's panels of a remote row. `npm test` builds first.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDEX_FILE } from '../src/index/store.js';
import { type Ran, runCli } from '../src/test-support/cli-run.js';
import { type FakeHome, tempDir } from '../src/test-support/corpus.js';
import { cleanupHosts, hostsEnv, newHosts } from '../src/test-support/hosts-env.js';
import { addClaude, labTranscript } from '../src/test-support/owned.js';
import { unless, WHY } from '../src/test-support/skips.js';
import { HAVE_SSHD, type TestSshd } from '../src/test-support/sshd.js';
import { HAVE_TMUX, Terminal } from '../src/test-support/terminal.js';

const TMUX_SOCKET = `cctop-hosts-fetch-test-${process.pid}`;
/** How long the live table may take to show a step: a poll, a login and a remote scan. */
const PATIENCE_MS = 45_000;
/**
 * The one-shot wait on each host (`CCTOP_HOST_TIMEOUT`), in seconds: a login and a warm remote cctop
 * on a two-core machine that other suites load.
 */
const WAIT_S = 30;
/** A test that runs cctop over ssh a few times: each a login, a remote node and a local one, on a loaded machine. */
const TEST_MS = 150_000;

/** The remote home's Claude session (only there), and a prefix of its id. */
/** box's session: the lab's Claude Code run whose one command failed, under an id of its own. */
const REMOTE_ID = 'lab-claude-fail';
const REMOTE_PREFIX = 'lab-claude-fa';
/** This machine's session: the lab's resumed run, recorded after the other (so its row is first). */
const LOCAL_ID = 'lab-claude-resume';

let sshd: TestSshd;
let local: FakeHome;
let remote: FakeHome;
let remoteCctop: string;
let box: string;

function env(): Record<string, string> {
  return hostsEnv({ sshd, local, remote }, WAIT_S, {
    CCTOP_HOSTS: '',
    COLUMNS: '120',
  });
}

function cctop(args: string[], extra: Record<string, string> = {}): Promise<Ran> {
  return runCli(args, { ...env(), ...extra });
}

/** What the remote cctop prints for `args` on its own machine. */
function there(args: string[]): string {
  return spawnSync(remoteCctop, args, { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } }).stdout;
}

describe.skipIf(!HAVE_SSHD)(
  `a remote session's conversation and report over a real sshd${unless(HAVE_SSHD, WHY.sshd)}`,
  () => {
    beforeAll(async () => {
      ({ sshd, local, remote } = newHosts());
      addClaude(local.dir, labTranscript('claude', 'resume'), '-work-lab', LOCAL_ID);
      addClaude(remote.dir, labTranscript('claude', 'fail'), '-work-lab', REMOTE_ID);
      remoteCctop = sshd.remoteCctop(remote.dir);
      box = `box:${remoteCctop}`;
      sshd.alias({ name: 'box' });
      sshd.alias({ name: 'stranger', identity: sshd.strangerKey });
      await sshd.start();
      // Builds the remote index, so the round trips below time ssh and a warm cctop.
      there(['--json']);
    });

    afterAll(async () => {
      await cleanupHosts({ sshd, local, remote });
    });

    it(
      'cctop report ID --host box leaves this machine alone: its index is not even built',
      async () => {
        const cache = tempDir('cctop-host-cache-');
        try {
          const r = await cctop(['report', REMOTE_PREFIX, '--host', box, '--json'], {
            CCTOP_CACHE_DIR: cache.dir,
          });
          expect(r.code, r.err).toBe(0);
          expect(existsSync(join(cache.dir, INDEX_FILE))).toBe(false);
          // Without --host the same command reads this machine first, and so builds its index.
          await cctop(['report', '--json'], { CCTOP_CACHE_DIR: cache.dir });
          expect(existsSync(join(cache.dir, INDEX_FILE))).toBe(true);
        } finally {
          cache.cleanup();
        }
      },
      TEST_MS,
    );

    it(
      'cctop chat ID --host box shows the conversation on box, as the cctop there reads it',
      async () => {
        const r = await cctop(['chat', REMOTE_PREFIX, '--host', box]);
        expect(r.err).toBe('');
        expect(r.code).toBe(0);
        expect(r.out.split('\n')[0]).toMatch(
          /\[lab:fail\] Follow the lab script fail\..*claude lab-claude-fail on box/,
        );
        expect(r.out).toContain('you ');
        const json = await cctop(['chat', REMOTE_PREFIX, '--host', box, '--json']);
        expect(JSON.parse(json.out)).toEqual({
          ...JSON.parse(there(['chat', REMOTE_PREFIX, '--json'])),
          host: 'box',
        });
      },
      TEST_MS,
    );

    it(
      '--at, --before and --markdown mean what they mean for a local session',
      async () => {
        // Three turns: the prompt, the failed call, the answer.
        const at = await cctop(['chat', REMOTE_ID, '--host', box, '--at', '1']);
        expect(at.out).toMatch(/▶▶ #1 /);
        const paged = JSON.parse(
          (await cctop(['chat', REMOTE_ID, '--host', box, '--before', '2', '--json'])).out,
        );
        expect(paged.turns.map((t: { seq: number }) => t.seq)).toEqual([0, 1]);
        const md = await cctop(['chat', REMOTE_ID, '--host', box, '--markdown']);
        // Transcript text in Markdown is inert: the title's brackets are escaped, not a link's.
        expect(md.out).toMatch(/^# \\\[lab:fail\\\] Follow the lab script fail\./);
        expect(md.out).toContain('on box');
      },
      TEST_MS,
    );

    it(
      'cctop report ID --host box prints the report made there, its session marked with the host',
      async () => {
        const json = await cctop(['report', REMOTE_PREFIX, '--host', box, '--json']);
        expect(json.code).toBe(0);
        const theirs = JSON.parse(there(['report', REMOTE_PREFIX, '--json']));
        const ours = JSON.parse(json.out);
        expect(ours).toEqual({ ...theirs, session: { ...theirs.session, host: 'box' } });
        const text = await cctop(['report', REMOTE_PREFIX, '--host', box]);
        expect(text.out).toContain('claude lab-claude-fail on box');
        expect(text.out).toMatch(/Tools 1 calls, 1 failed/);
      },
      TEST_MS,
    );

    it(
      'an id not on this machine is asked of the configured hosts, and stderr says which answered',
      async () => {
        const r = await cctop(['chat', REMOTE_PREFIX], { CCTOP_HOSTS: `stranger:${remoteCctop},${box}` });
        expect(r.code).toBe(0);
        expect(r.out).toContain('[lab:fail] Follow the lab script fail.');
        expect(r.err).toContain('could not read stranger: ssh could not log in to stranger');
        expect(r.err).toContain(`${REMOTE_PREFIX} is not on this machine; showing it from box`);
        // A local id is this machine's: no host is asked.
        const mine = await cctop(['report', LOCAL_ID], { CCTOP_HOSTS: 'stranger' });
        expect(mine.code).toBe(0);
        expect(mine.err).toBe('');
      },
      TEST_MS,
    );

    it(
      'an id no host has exits 2 saying where it looked; a host that cannot be asked exits 1 with the fix',
      async () => {
        const none = await cctop(['chat', 'zzz'], { CCTOP_HOSTS: box });
        expect(none.code).toBe(2);
        expect(none.err).toContain('no session matches "zzz" here or on box');
        const dead = await cctop(['report', REMOTE_ID, '--host', `stranger:${remoteCctop}`]);
        expect(dead.code).toBe(1);
        expect(dead.out).toBe('');
        expect(dead.err).toContain(
          'cctop: could not read stranger: ssh could not log in to stranger with a key',
        );
        expect(dead.err).toContain('ssh-copy-id stranger');
      },
      TEST_MS,
    );

    it(
      'box and box:/path name one machine: it is asked once, and the spec kept is named',
      async () => {
        const r = await cctop(['chat', REMOTE_ID, '--json', '--host', box, '--host', 'box']);
        expect(r.code).toBe(0);
        expect(r.err).toContain(
          `"box" names box again; it is read once, as "box:${remoteCctop.slice(0, 70)}`,
        );
      },
      TEST_MS,
    );

    it.skipIf(!HAVE_TMUX)(
      `the live table's Tools and Chat panels of a remote row are fetched from its host${unless(HAVE_TMUX, WHY.tmux)}`,
      async () => {
        const term = new Terminal(TMUX_SOCKET, 'fetch', PATIENCE_MS);
        try {
          term.cctop(local.dir, { ...env(), TERM: 'xterm-256color' }, `--host '${box}'`);
          await term.until('the row of box', (l) => l.some((x) => /^\S?\s*box\s/.test(x)));
          // The local row is the newest; the next is box's.
          term.keys('j');
          await term.until('the remote row’s info', (l) => l.some((x) => /file\s+box:/.test(x)));
          term.keys('Right');
          const tools = await term.until('the remote row’s calls', (l) =>
            l.some((x) => x.includes('1 calls, 1 failed; fetched from box')),
          );
          expect(tools.some((x) => /Bash\s+1\s+1 failed/.test(x))).toBe(true);
          // Three more to the right: Context, Cost, then Chat.
          term.keys('Right', 'Right', 'Right');
          await term.until('the remote conversation', (l) =>
            l.some((x) => /#0 you \[lab:fail\] Follow the lab script fail/.test(x)),
          );
        } finally {
          term.stop();
        }
      },
      TEST_MS,
    );

    it('with sshd stopped, cctop chat --host names the host with the fix and exits 1', async () => {
      await sshd.stop();
      const r = await cctop(['chat', REMOTE_ID, '--host', box]);
      expect(r.code).toBe(1);
      expect(r.err).toContain('cctop: could not read box: box refused the connection');
    });
  },
);
