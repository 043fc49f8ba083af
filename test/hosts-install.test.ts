/**
 * The install advice `--host` gives, followed over a real sshd (`src/test-support/sshd.ts`): cctop is
 * not on the npm registry, so a host without it is told to install it from a clone, and doing what
 * the sentence says gives a cctop that answers over ssh. Needs no corpus: the remote home is empty.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Ran, runCli } from '../src/test-support/cli-run.js';
import { REPO, tempDir } from '../src/test-support/corpus.js';
import { cleanupHosts, type Hosts, hostsEnv, newHosts } from '../src/test-support/hosts-env.js';
import { HAVE_SSHD, NO_SSHD_REASON } from '../src/test-support/sshd.js';

/** The wait for a host to answer: a login and a first scan of an empty home on a loaded machine. */
const ANSWER_WAIT_S = 40;
/** npm links a folder in well under a second; a loaded two-core machine may take many. */
const NPM_BUDGET_MS = 120_000;

let hosts: Hosts;
let prefix: { dir: string; cleanup: () => void };

function cctop(args: string[]): Promise<Ran> {
  return runCli(args, hostsEnv(hosts, ANSWER_WAIT_S));
}

const SKIPPED = HAVE_SSHD ? '' : ` (skipped: ${NO_SSHD_REASON})`;

describe.skipIf(!HAVE_SSHD)(`installing cctop on another machine, over a real sshd${SKIPPED}`, () => {
  beforeAll(async () => {
    hosts = newHosts();
    prefix = tempDir('cctop-npm-prefix-');
    hosts.sshd.alias({ name: 'bare' });
    await hosts.sshd.start();
  });

  afterAll(async () => {
    await cleanupHosts(hosts);
    prefix?.cleanup();
  });

  it('a host without cctop is told to install it from a clone, never from the npm registry', async () => {
    const r = await cctop(['doctor', '--host', 'bare:/no/such/cctop']);
    expect(r.out).toContain('cctop is not installed on bare');
    expect(r.out).toContain("ssh bare 'cd path/to/cctop-clone && npm ci && npm install -g .'");
    expect(r.out).not.toContain('npm install -g cctop');
  });

  it('doing what it says over ssh gives a cctop there that answers --host', async () => {
    // The clone is this repository (built and installed already, as `npm ci` leaves it), so the
    // advice's `npm ci` is not repeated; `--prefix` keeps the machine's global npm untouched, and
    // `--ignore-scripts` keeps npm from rebuilding the dist/ other suites are reading.
    const install = spawnSync(
      hosts.sshd.ssh,
      ['bare', `cd '${REPO}' && npm install -g --prefix '${prefix.dir}' --ignore-scripts --offline .`],
      { encoding: 'utf8', timeout: NPM_BUDGET_MS },
    );
    expect(install.stderr).not.toMatch(/ERR!/);
    expect(install.status).toBe(0);
    // The installed command, run with the remote's own empty home (what its login would give it).
    const installed = join(prefix.dir, 'bin', 'cctop');
    const wrapper = join(hosts.sshd.dir, 'installed-cctop');
    writeFileSync(
      wrapper,
      `#!/bin/sh\nHOME='${hosts.remote.dir}' CCTOP_RUNTIME_DIR='${join(hosts.remote.dir, 'run')}' exec '${installed}' "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    const r = await cctop(['doctor', '--host', `bare:${wrapper}`]);
    expect(r.out).toMatch(/bare\s+ok cctop \d+\.\d+\.\d+, 0 sessions, answered in/);
  });
});
