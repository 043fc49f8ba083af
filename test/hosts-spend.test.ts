/**
 * The spend reports and budgets across machines (`--host`), end to end: the built `dist/cli.js`
 * reading a "remote" home through a real OpenSSH server on 127.0.0.1 (`src/test-support/sshd.ts`:
 * its own keys and config per run, never the machine's sshd or the user's keys). Both homes hold
 * Claude Code histories written here request by request, so every figure is known; the remote
 * cctop runs in Tokyo's zone, this one in UTC, so a report whose days were cut there would not add
 * up. `npm test` builds first.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.js';
import type { PeriodRow } from '../src/spend/periods.js';
import { type Ran, runCli } from '../src/test-support/cli-run.js';
import type { FakeHome } from '../src/test-support/corpus.js';
import { cleanupHosts, hostsEnv, newHosts } from '../src/test-support/hosts-env.js';
import { unless, WHY } from '../src/test-support/skips.js';
import { SONNET, spendSession } from '../src/test-support/spend-history.js';
import { HAVE_SSHD, type TestSshd } from '../src/test-support/sshd.js';
import { budgetRun } from '../src/views/cli/budget-hosts.js';
import { commonOptions } from '../src/views/cli/options.js';

/** The one-shot wait on each host (`CCTOP_HOST_TIMEOUT`, s): a login and a cold remote index on a loaded machine. */
const WAIT_S = 30;

let sshd: TestSshd;
let local: FakeHome;
let remote: FakeHome;
/** The remote cctop: this repository's, with the remote home, in Tokyo's zone. */
let remoteCctop: string;
let box: string;

function env(): Record<string, string> {
  return hostsEnv({ sshd, local, remote }, WAIT_S, {
    XDG_CONFIG_HOME: join(local.dir, '.config'),
    CCTOP_HOSTS: '',
  });
}

function cctop(args: string[], extra: Record<string, string> = {}): Promise<Ran> {
  return runCli(args, { ...env(), ...extra });
}

/** A report of the remote home, run there directly (no ssh), in this machine's zone. */
function remoteAlone(args: string[]): unknown {
  const r = spawnSync(remoteCctop, [...args, '--json', '--timezone', 'UTC'], { encoding: 'utf8' });
  return JSON.parse(r.stdout);
}

describe.skipIf(!HAVE_SSHD)(
  `spend reports and budgets with --host, against a real sshd${unless(HAVE_SSHD, WHY.sshd)}`,
  () => {
    const recent = new Date(Date.now() - 60_000).toISOString();
    beforeAll(async () => {
      ({ sshd, local, remote } = newHosts());
      spendSession(local, 'here', [
        ['2026-11-02T09:10:00Z', 100_000], // $1.50 on 2026-11-02
        ['2026-11-03T10:00:00Z', 200_000], // $3.00 on 2026-11-03
        [recent, 1_000_000], // $15 today
      ]);
      spendSession(remote, 'there', [
        // 2026-11-02 in UTC, 2026-11-03 in Tokyo: it must be counted on the 2nd here.
        ['2026-11-02T23:50:00Z', 400_000], // $6.00
        ['2026-11-05T12:00:00Z', 1_000, 'a-model-nobody-prices'], // a day only the remote has
        [recent, 400_000], // $6 today
      ]);
      remoteCctop = sshd.remoteCctop(remote.dir, 'tokyo-cctop', 'Asia/Tokyo');
      box = `box:${remoteCctop}`;
      sshd.alias({ name: 'box' });
      await sshd.start();
    });

    afterAll(async () => {
      await cleanupHosts({ sshd, local, remote });
    });

    it('cctop daily --host sums each day with the remote one, cut in this machine’s zone, and adds the remote-only day', async () => {
      const r = await cctop(['daily', '--json', '--until', '2026-11-30', '--host', box]);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.out);
      const day = (p: string) => doc.periods.find((x: PeriodRow) => x.period === p);
      expect(doc.periods.map((p: PeriodRow) => p.period)).toEqual(['2026-11-02', '2026-11-03', '2026-11-05']);
      expect(day('2026-11-02')).toMatchObject({ requests: 2, cost: { usd: 7.5, unpricedTokens: 0 } });
      expect(day('2026-11-02').tokens.output).toBe(500_000);
      expect(day('2026-11-03')).toMatchObject({ requests: 1, cost: { usd: 3 } });
      // Only the remote spent on the 5th, on a model without a price: no price, never $0.
      expect(day('2026-11-05')).toMatchObject({ requests: 1, cost: { usd: null, unpricedTokens: 1000 } });
      expect(doc.totals).toMatchObject({ requests: 4, cost: { usd: 10.5, unpricedTokens: 1000 } });
      expect(doc.hosts).toEqual([{ host: 'box', ok: true, error: null, answeredAt: expect.any(String) }]);
    });

    it('the merged totals equal this machine’s and the remote’s, each computed alone', async () => {
      const args = ['daily', '--by', 'model', '--breakdown'];
      const alone = JSON.parse((await cctop([...args, '--json'])).out);
      const there = remoteAlone(args) as typeof alone;
      const doc = JSON.parse((await cctop([...args, '--json', '--host', box])).out);
      expect(doc.totals.cost.usd).toBeCloseTo(alone.totals.cost.usd + there.totals.cost.usd, 6);
      expect(doc.totals.totalTokens).toBe(alone.totals.totalTokens + there.totals.totalTokens);
      expect(doc.totals.requests).toBe(alone.totals.requests + there.totals.requests);
      const sonnet = (p: PeriodRow) => p.groups?.find((g) => g.key === SONNET)?.requests ?? 0;
      const sum = (rows: PeriodRow[]) => rows.reduce((n, p) => n + sonnet(p), 0);
      expect(sum(doc.periods)).toBe(sum(alone.periods) + sum(there.periods));
      const fifth = doc.periods.find((p: PeriodRow) => p.period === '2026-11-05');
      expect(fifth.groups.map((g: { key: string }) => g.key)).toEqual(['a-model-nobody-prices']);
      expect(fifth.breakdown.map((g: { key: string }) => g.key)).toEqual(['a-model-nobody-prices']);
    });

    it('a table says which machines it counts', async () => {
      const r = await cctop(['monthly', '--host', box], { COLUMNS: '120' });
      expect(r.code).toBe(0);
      expect(r.out).toContain('counted: this machine, box');
      expect(r.out).toMatch(/^2026-11 .*\$10\.50/m);
    });

    it('cctop spend --host ranks over both machines for the same days', async () => {
      const range = ['--since', '2026-11-01', '--until', '2026-11-30'];
      const doc = JSON.parse((await cctop(['spend', '--json', ...range, '--host', box])).out);
      expect(doc.period).toMatchObject({ from: '2026-11-01', to: '2026-11-30' });
      expect(doc.total.cost.usd).toBe(10.5);
      expect(doc.projects).toEqual([
        expect.objectContaining({ key: '/w/app', share: 1, cost: expect.objectContaining({ usd: 10.5 }) }),
      ]);
      expect(doc.hosts).toHaveLength(1);
    });

    it('cctop budget holds this machine’s budgets against every machine’s spend', async () => {
      local.write(
        join(local.dir, '.config', 'cctop', 'config.toml'),
        '[[budget]]\nname = "daily"\nperiod = "day"\nusd = 20\n',
      );
      const out: string[] = [];
      const err: string[] = [];
      const values = { host: [box], json: true };
      const io = {
        out: (s: string | Uint8Array) => out.push(String(s)),
        err: (s: string) => err.push(s),
        isTty: false,
        columns: 80,
        env: env(),
      };
      const code = await budgetRun(io, commonOptions(values), io.env, loadConfig(io.env), values);
      expect(err).toEqual([]);
      const doc = JSON.parse(out.join(''));
      // $15 here and $6 there: over the $20 a day, which neither machine is alone.
      expect(doc.budgets[0]).toMatchObject({ name: 'daily', spentUsd: 21, level: 'over' });
      expect(doc.hosts).toEqual([{ host: 'box', ok: true, error: null, answeredAt: expect.any(String) }]);
      expect(code).toBe(1);
    });

    it('cctop blocks --host cuts one account’s 5-hour windows from both machines’ requests', async () => {
      const r = await cctop(['blocks', '--json', '--host', box]);
      expect(r.err).toBe('');
      const doc = JSON.parse(r.out);
      const blocks = doc.blocks.filter((b: { kind: string }) => b.kind === 'block');
      expect(blocks.map((b: { start: string }) => b.start.slice(0, 13))).toEqual([
        '2026-11-02T09',
        '2026-11-02T23', // the remote's alone
        '2026-11-03T10',
        '2026-11-05T12',
        expect.any(String),
      ]);
      // The window running now holds the request made here and the one made there.
      expect(blocks.at(-1)).toMatchObject({ active: true, requests: 2, cost: { usd: 21 } });
      expect(doc.hosts).toEqual([{ host: 'box', ok: true, error: null, answeredAt: expect.any(String) }]);
      const table = await cctop(['blocks', '--host', box], { COLUMNS: '120' });
      expect(table.out).toContain('counted: this machine, box');
    });

    it('a host whose answer cuts its days elsewhere is not counted, and is named with the fix', async () => {
      const odd = join(sshd.dir, 'odd-cctop');
      const answer = {
        version: 1,
        report: 'daily',
        timeZone: 'Asia/Tokyo',
        startOfWeek: 'monday',
        by: null,
        periods: [],
      };
      writeFileSync(odd, `#!/bin/sh\necho '${JSON.stringify(answer)}'\n`);
      chmodSync(odd, 0o755);
      sshd.alias({ name: 'odd' });
      const r = await cctop([
        'daily',
        '--json',
        '--until',
        '2026-11-30',
        '--host',
        box,
        '--host',
        `odd:${odd}`,
      ]);
      expect(r.code).toBe(0);
      expect(r.err).toContain(
        'cctop: could not read odd: the cctop on odd did not answer with the daily report asked for (its days are cut in Asia/Tokyo, not UTC as asked)',
      );
      const doc = JSON.parse(r.out);
      expect(doc.totals.cost.usd).toBe(10.5);
      expect(doc.hosts.map((h: { host: string; ok: boolean }) => [h.host, h.ok])).toEqual([
        ['box', true],
        ['odd', false],
      ]);
    });

    it('with sshd stopped, the local report still prints, the host is named on stderr with its fix, and it exits 0', async () => {
      await sshd.stop();
      const r = await cctop(['daily', '--json', '--until', '2026-11-30', '--host', box]);
      expect(r.code).toBe(0);
      expect(r.err).toContain('cctop: could not read box: box refused the connection');
      const doc = JSON.parse(r.out);
      expect(doc.totals.cost.usd).toBe(4.5);
      expect(doc.hosts).toEqual([
        { host: 'box', ok: false, error: expect.stringContaining('refused'), answeredAt: null },
      ]);
      const table = await cctop(['daily', '--until', '2026-11-30', '--host', box]);
      expect(table.out).toContain('counted: this machine · not counted: box (could not be read)');
    });
  },
);
