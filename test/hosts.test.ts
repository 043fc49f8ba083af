/**
 * Other machines over ssh, end to end: the built `dist/cli.js` reading a "remote" home through a real
 * OpenSSH server on 127.0.0.1 (`src/test-support/sshd.ts`: its own keys and config per run, never the
 * machine's sshd or the user's keys). The remote cctop is this repository's, run by a wrapper that
 * gives it a home of its own with corpus transcripts. `npm test` builds first.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionDocument } from '../src/model/document.js';
import { type Ran, runCli } from '../src/test-support/cli-run.js';
import { FakeHome } from '../src/test-support/corpus.js';
import { cleanupHosts, hostsEnv, newHosts } from '../src/test-support/hosts-env.js';
import { addClaude, addCodex, demoClaude, demoCodex, labTranscript } from '../src/test-support/owned.js';
import { unless, WHY } from '../src/test-support/skips.js';
import { HAVE_SSHD, type TestSshd } from '../src/test-support/sshd.js';
import { HAVE_TMUX, Terminal } from '../src/test-support/terminal.js';

const TMUX_SOCKET = `cctop-hosts-test-${process.pid}`;
/** How long the live table may take to show a step: a poll is every 15 s, a login and a scan on top. */
const PATIENCE_MS = 45_000;

/**
 * The one-shot wait on each host (`CCTOP_HOST_TIMEOUT`), in seconds: long enough for a login and a
 * warm remote cctop on a loaded two-core machine (about 2 s when other suites run), short enough that
 * the slow host's test ends well before its proxy would. It is also ssh's ConnectTimeout, so the slow
 * host's message is cctop's "no answer within" rather than ssh's own timeout.
 */
const WAIT_S = 10;
/** The wait for tests that need a host to answer, not to time out: a heavily loaded machine has taken 10 s. */
const ANSWER_WAIT_S = 40;
/** How long the slow host's ProxyCommand sleeps: far past the wait, and a number nothing else sleeps. */
const PROXY_SLEEP = '47.25';

let sshd: TestSshd;
let local: FakeHome;
let remote: FakeHome;
let remoteCctop: string;
let remoteDoc: SessionDocument;
let localDoc: SessionDocument;

function env(): Record<string, string> {
  return hostsEnv({ sshd, local, remote }, WAIT_S);
}

function cctop(args: string[], extra: Record<string, string> = {}): Promise<Ran> {
  return runCli(args, { ...env(), ...extra });
}

/** Processes whose command line holds `needle` (Linux /proc). */
function processesWith(needle: string): number {
  let n = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle)) n++;
    } catch {
      // Gone since the listing.
    }
  }
  return n;
}

/**
 * Whether the row matching `row` on a captured screen (`capture-pane -e`) starts in dim text. tmux
 * writes a style only where it changes, so a dim row under another dim row carries no sequence of
 * its own: read the styles set since the last reset before it.
 */
function startsDim(lines: string[], row: RegExp): boolean {
  const at = lines.findIndex((l) => row.test(l));
  if (at < 0) return false;
  const before = `${lines.slice(0, at).join('\n')}\n${/^(\u001b\[[\d;]*m)*/.exec(lines[at]!)![0]}`;
  const styles = [...before.matchAll(/\u001b\[([\d;]*)m/g)].map((m) => m[1]!.split(';'));
  let dim = false;
  for (const codes of styles)
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i];
      // 38 and 48 set a colour whose own numbers follow (5;n or 2;r;g;b): none of them is a style.
      if (c === '38' || c === '48') i += codes[i + 1] === '5' ? 2 : 4;
      else if (c === '' || c === '0' || c === '22') dim = false;
      else if (c === '2') dim = true;
    }
  return dim;
}

describe.skipIf(!HAVE_SSHD)(`cctop with --host, against a real sshd${unless(HAVE_SSHD, WHY.sshd)}`, () => {
  beforeAll(async () => {
    ({ sshd, local, remote } = newHosts());
    // This machine: a lab run (the newest session); box: two of the demo's, a Claude Code session
    // newer than its Codex one.
    addClaude(local.dir, labTranscript('claude', 'text'));
    addClaude(remote.dir, demoClaude('-home-sam-src-webapp', 'c2e6f295-9659-488f-a728-481824e8b02c'));
    addCodex(remote.dir, demoCodex('019ac7fd-d1f6-74ea-81a6-b0113778a839'));
    remoteCctop = sshd.remoteCctop(remote.dir);
    sshd.alias({ name: 'box' });
    sshd.alias({ name: 'stranger', identity: sshd.strangerKey });
    sshd.alias({ name: 'newcomer', knownHost: false });
    sshd.alias({ name: 'slow', proxyCommand: `sleep ${PROXY_SLEEP}` });
    await sshd.start();
    // Each side's own answer, read directly: what the merged document must hold. This also builds
    // the remote index, so the round trips below time ssh and a warm cctop, not a first scan.
    remoteDoc = JSON.parse(
      spawnSync(remoteCctop, ['--json'], { encoding: 'utf8' }).stdout,
    ) as SessionDocument;
    localDoc = JSON.parse((await cctop(['--json'], { CCTOP_HOSTS: '' })).out) as SessionDocument;
  });

  afterAll(async () => {
    await cleanupHosts({ sshd, local, remote });
  });

  it('--json has the remote sessions beside the local ones, marked with their host, in the totals', async () => {
    const r = await cctop(['--json', '--host', `box:${remoteCctop}`]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as SessionDocument;
    expect(remoteDoc.sessions).toHaveLength(2);
    expect(
      doc.sessions
        .filter((s) => s.host === 'box')
        .map((s) => s.id)
        .sort(),
    ).toEqual(remoteDoc.sessions.map((s) => s.id).sort());
    expect(doc.sessions.filter((s) => s.host === undefined).map((s) => s.id)).toEqual(
      localDoc.sessions.map((s) => s.id),
    );
    expect(doc.totals.all.sessions).toBe(3);
    expect(doc.totals.all.cost.usd).toBeCloseTo(
      localDoc.totals.all.cost.usd! + remoteDoc.totals.all.cost.usd!,
      5,
    );
    expect(doc.totals.all.tokens.cacheRead).toBe(
      localDoc.totals.all.tokens.cacheRead! + remoteDoc.totals.all.tokens.cacheRead!,
    );
    expect(doc.totals.byProvider.codex).toEqual(remoteDoc.totals.byProvider.codex);
    expect(doc.hosts).toEqual([
      { host: 'box', ok: true, sessions: 2, error: null, answeredAt: expect.any(String) },
    ]);
  });

  it('--list shows a HOST column naming the machine of each remote row', async () => {
    const r = await cctop(['--list', '--host', `box:${remoteCctop}`], { COLUMNS: '120' });
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines.find((l) => l.includes('LAST'))).toMatch(/HOST\s+ID\s+LAST/);
    expect(lines.filter((l) => /^\s+\S+\s+box\s/.test(l))).toHaveLength(2);
    expect(r.out).toMatch(/Codex — 1 session/);
    expect(r.out).toMatch(/Claude Code — 2 sessions/);
  });

  it('reads the hosts of the config file when no --host is given', async () => {
    local.write(join(local.dir, '.config', 'cctop', 'config.toml'), `hosts = ["box:${remoteCctop}"]\n`);
    try {
      const r = await cctop(['--json']);
      expect(r.err).toBe('');
      const doc = JSON.parse(r.out) as SessionDocument;
      expect(doc.sessions.filter((s) => s.host === 'box')).toHaveLength(2);
    } finally {
      local.write(join(local.dir, '.config', 'cctop', 'config.toml'), '');
    }
  });

  it('doctor --host runs the round trip and turns ssh’s errors into the fix', async () => {
    const r = await cctop(
      [
        'doctor',
        ...['--host', `box:${remoteCctop}`, '--host', `stranger:${remoteCctop}`],
        ...['--host', `newcomer:${remoteCctop}`],
      ],
      { CCTOP_HOST_TIMEOUT: String(ANSWER_WAIT_S) },
    );
    expect(r.code).toBe(1);
    const section = r.out.slice(r.out.indexOf('Hosts'));
    expect(section).toMatch(/box\s+ok cctop \d+\.\d+\.\d+, 2 sessions, answered in/);
    expect(section).toContain('ssh could not log in to stranger with a key');
    expect(section).toContain('ssh-copy-id stranger');
    expect(section).toContain('ssh said: ');
    expect(section).toContain('Permission denied (publickey)');
    expect(section).toContain("ssh does not know newcomer's host key");
    expect(section).toContain('Host key verification failed');
  });

  it('doctor says plainly when cctop is not installed there, with the command that installs it', async () => {
    sshd.alias({ name: 'bare' });
    const r = await cctop(['doctor', '--host', 'bare:/no/such/cctop']);
    expect(r.out).toContain('cctop is not installed on bare');
    expect(r.out).toContain("ssh bare 'cd path/to/cctop-clone && npm ci && npm install -g .'");
  });

  it('a host behind a slow ProxyCommand does not hold the local rows past the wait', async () => {
    const r = await cctop(['--list', '--host', 'slow', '--host', `box:${remoteCctop}`], { COLUMNS: '120' });
    expect(r.code).toBe(0);
    expect(r.out).toContain('work · [lab:text]');
    expect(r.out.split('\n').filter((l) => /^\s+\S+\s+box\s/.test(l))).toHaveLength(2);
    expect(r.err).toContain(`could not read slow: no answer within ${WAIT_S} s`);
    // The wait, plus a generous margin for a loaded machine; the proxy alone would take 47 s.
    expect(r.ms).toBeLessThan(WAIT_S * 1000 + 15_000);
    expect(processesWith(`sleep ${PROXY_SLEEP}`)).toBe(0);
  });

  it.skipIf(!HAVE_TMUX)(
    `the live table shows two hosts' rows marked, refuses to act on them, and keeps a silent host's rows dim${unless(HAVE_TMUX, WHY.tmux)}`,
    async () => {
      const twinHome = new FakeHome();
      addClaude(twinHome.dir, demoClaude('-home-sam-src-docs', 'f98c2860-e7f8-42c8-aee1-25d2bb382356'));
      const twinCctop = sshd.remoteCctop(twinHome.dir, 'twin-cctop');
      sshd.alias({ name: 'twin' });
      const term = new Terminal(TMUX_SOCKET, 'hosts', PATIENCE_MS);
      const rowsOf = (host: string) => (lines: string[]) =>
        lines.filter((l) => new RegExp(`^\\S\\s*${host}\\s`).test(l));
      try {
        term.cctop(
          local.dir,
          { ...env(), TERM: 'xterm-256color' },
          `--host 'box:${remoteCctop}' --host 'twin:${twinCctop}'`,
        );
        const both = await term.until(
          'rows of both hosts',
          (l) => rowsOf('box')(l).length === 2 && rowsOf('twin')(l).length === 1,
        );
        expect(both.find((l) => l.includes('PROJECT · TITLE'))).toMatch(/^\s+HOST\s+LAST/);
        // This machine's row, the newest, is first, with nothing in its HOST cell.
        const first = both[both.findIndex((l) => l.includes('PROJECT · TITLE')) + 1]!;
        expect(first.slice(2, 12).trim()).toBe('');
        expect(first).toContain('work · [lab:text]');
        // Select a row of box (sorted by last activity: the local row, then box's Claude session).
        term.keys('j');
        term.keys('y');
        await term.until('the refusal to act on a remote row', (l) =>
          l.some((x) => x.includes('this session runs on box')),
        );
        await term.until('the remote row’s info', (l) => l.some((x) => /resume\s+on box: cd /.test(x)));
        term.keys('Right');
        await term.until('the remote row’s calls', (l) => l.some((x) => x.includes('fetched from box')));
        // box and twin are one sshd: stopping it silences both; their rows stay, with why.
        await sshd.stop();
        const silent = await term.until('the silent hosts line', (l) =>
          l.some((x) => x.includes('box: last answer') && x.includes('refused the connection')),
        );
        expect(rowsOf('box')(silent)).toHaveLength(2);
        expect(rowsOf('twin')(silent)).toHaveLength(1);
        // Drawn dim (SGR 2), the selected row aside (inverse video). twin is asked on its own
        // schedule, so its rows dim when its own next answer fails: wait for that, not for box's.
        await term.until('twin’s row drawn dim', (l) => startsDim(l, /twin\s+\d/), 200, true);
      } finally {
        term.stop();
        twinHome.cleanup();
      }
    },
    // Each host is polled on its own schedule (HOST_POLL_MS), so the steps above may each wait a poll.
    4 * PATIENCE_MS,
  );

  it('with sshd stopped, the local rows are still printed, the host is named on stderr, and it exits 0', async () => {
    await sshd.stop();
    const r = await cctop(['--list', '--host', `box:${remoteCctop}`]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Claude Code — 1 session');
    expect(r.out).not.toContain('HOST');
    expect(r.err).toContain('cctop: could not read box: box refused the connection');
    const doc = JSON.parse((await cctop(['--json', '--host', `box:${remoteCctop}`])).out) as SessionDocument;
    expect(doc.sessions).toHaveLength(1);
    expect(doc.hosts).toEqual([
      { host: 'box', ok: false, sessions: 0, error: expect.stringContaining('refused'), answeredAt: null },
    ]);
  });
});
