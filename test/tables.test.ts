/**
 * Every table cctop prints, exactly as a user sees it, at 80 and 120 columns, kept as files in
 * `test/snapshots/`: `--list`, `daily`, `blocks`, `spend`, `report` (and the variants a finding of
 * issue 28 was about). A changed row changes a file, and the change is read in review; a fragment
 * match would let it pass unnoticed.
 *
 * The history is the bundled demo (`--demo`), its clock pinned so that its newest record is two
 * minutes old at the same moment every run, and every time shown in UTC. Only `Date` is pinned:
 * timers run as usual, so nothing here waits on a fake clock.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SessionDocument } from '../src/model/document.js';
import type { SessionReport } from '../src/report/types.js';
import { PLAIN } from '../src/views/cli/color.js';
import { width } from '../src/views/cli/format.js';
import { main } from '../src/views/cli/main.js';
import { renderReport } from '../src/views/cli/report.js';
import { initialView } from '../src/views/tui/state.js';
import { render } from '../src/views/tui/view.js';

/** The moment the tables are drawn: any fixed instant would do; this one is a Tuesday noon. */
const NOW = Date.parse('2026-12-01T12:00:00Z');

let zone: string | undefined;
beforeAll(() => {
  zone = process.env.TZ;
  // The report's times are the user's local ones; the user of these tables lives in UTC.
  process.env.TZ = 'UTC';
  vi.useFakeTimers({ toFake: ['Date'], now: NOW });
});
afterAll(() => {
  vi.useRealTimers();
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

/** What `cctop <args>` prints to a pipe `columns` wide (COLUMNS), stdout then stderr, and its exit code. */
async function run(args: string[], columns: number): Promise<string> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['--demo', ...args], {
    out: (s) => out.push(typeof s === 'string' ? s : Buffer.from(s).toString('utf8')),
    err: (s) => err.push(s),
    isTty: false,
    columns,
    env: { HOME: '/nonexistent', COLUMNS: String(columns), PATH: process.env.PATH ?? '', TZ: 'UTC' },
  });
  return `$ cctop --demo ${args.join(' ')}   # ${columns} columns, exit ${code}\n${out.join('\n')}\n${
    err.length > 0 ? `--- stderr\n${err.join('\n')}\n` : ''
  }`;
}

const TABLES: [name: string, args: string[]][] = [
  ['list', ['--list']],
  ['daily', ['daily', '--timezone', 'UTC']],
  ['daily-plan-max', ['daily', '--plan', 'max', '--timezone', 'UTC']],
  ['daily-breakdown', ['daily', '--breakdown', '--timezone', 'UTC']],
  ['weekly', ['weekly', '--timezone', 'UTC']],
  ['monthly-by-project', ['monthly', '--by', 'project', '--timezone', 'UTC']],
  ['blocks', ['blocks', '--timezone', 'UTC']],
  ['blocks-paris', ['blocks', '--timezone', 'Europe/Paris']],
  ['spend', ['spend', '--timezone', 'UTC']],
  ['spend-compact', ['spend', '--compact', '--timezone', 'UTC']],
  ['report-claude', ['report', 'a0d1']],
  ['report-codex', ['report', '019a8450']],
];

describe('every table, exactly as printed over the demo history', () => {
  for (const [name, args] of TABLES)
    for (const columns of [80, 120])
      it(`cctop ${args.join(' ')} at ${columns} columns reads as test/snapshots/${name}-${columns}.txt`, async () => {
        await expect(await run(args, columns)).toMatchFileSnapshot(`snapshots/${name}-${columns}.txt`);
      });
});

describe('the live table, exactly as drawn over the demo history', () => {
  for (const columns of [80, 120])
    it(`cctop --demo at ${columns} columns reads as test/snapshots/live-${columns}.txt`, async () => {
      const json = (await run(['--json'], columns)).split('\n').slice(1).join('\n');
      const doc = JSON.parse(json.slice(0, json.lastIndexOf('}') + 1)) as SessionDocument;
      // The Cost panel below the table: the Info panel shows the demo's temporary directory, which
      // changes every run.
      const v = { ...initialView(new Set()), doc, loading: null, panel: 'cost' as const };
      const screen = render(v, PLAIN, columns, 24, NOW).lines.join('\n');
      await expect(`$ cctop --demo   # ${columns}x24, the first screen\n${screen}\n`).toMatchFileSnapshot(
        `snapshots/live-${columns}.txt`,
      );
    });
});

/** The lines a command printed, without the `$ cctop …` line `run` puts first. */
const printed = async (args: string[], columns: number) => (await run(args, columns)).split('\n').slice(1);

describe('what the tables say (issue 28, findings 4 and 5)', () => {
  it('every table at 80 columns fits 80 cells, spend --compact included', async () => {
    for (const [, args] of TABLES)
      for (const line of await printed(args, 80))
        expect(width(line), `${args.join(' ')}: ${line}`).toBeLessThanOrEqual(80);
    // --compact is the 80-column layout wherever it is asked for.
    for (const line of await printed(['spend', '--compact', '--timezone', 'UTC'], 200))
      expect(width(line)).toBeLessThanOrEqual(80);
  });

  it('report shows ─, not 0s, for the slowest calls of a harness that records no durations', async () => {
    const out = await printed(['report', '019a8450'], 80);
    const at = out.indexOf('Slowest calls');
    expect(out.slice(at, at + 3)).toEqual([
      'Slowest calls',
      '       ─  this harness records no call durations',
      '',
    ]);
    expect(out.join('\n')).not.toMatch(/^ +0s /m);
  });

  it('report shows what fills the context, and the last compaction on the user’s clock', async () => {
    const out = (await printed(['report', 'a0d1'], 80)).join('\n');
    expect(out).toContain(
      '  1 compaction, the last at 2026-12-01 06:41 UTC\n  what fills it now:\n  window               71k',
    );
    expect(out).toContain('  unaccounted          39k  thinking and reminders are not in the transcript');
  });

  it('report explains the * of a call whose context growth it shares with calls made beside it', async () => {
    const json = (await printed(['report', 'a0d1', '--json'], 80)).join('\n');
    const r = JSON.parse(json.slice(0, json.lastIndexOf('}') + 1)) as SessionReport;
    r.tools.heaviest[0]!.shared = true;
    const lines = renderReport(r, PLAIN, 80, 'UTC');
    const at = lines.indexOf('Calls that grew the context most');
    expect(lines[at + 1]).toMatch(/^ +\+4\.5k\* Read /);
    expect(lines).toContain('  * made together with other calls: the growth after them is theirs together');
    r.tools.heaviest[0]!.shared = false;
    expect(renderReport(r, PLAIN, 80, 'UTC').join('\n')).not.toContain('made together');
  });

  it('blocks shows its times in the --timezone zone and names it', async () => {
    const out = await printed(['blocks', '--timezone', 'Europe/Paris'], 80);
    expect(out[0]).toBe('start (GMT+1)      reqs   tokens       cost');
    expect(out[1]!.startsWith('2026-11-28 13:00 ')).toBe(true);
    expect(out).toContain('active block: 2026-12-01 12:00 to 2026-12-01 17:00 Europe/Paris, 4h00 left');
  });

  it('blocks lines the models column up, the active block’s included', async () => {
    const out = (await printed(['blocks', '--timezone', 'UTC'], 120)).filter((l) =>
      /-\d\d \d\d:\d\d +\d+ /.test(l),
    );
    const starts = out.map((l) => l.search(/(haiku|sonnet|opus)-/));
    expect(starts).toHaveLength(4);
    expect(new Set(starts).size).toBe(1);
  });

  it('daily --plan max says incl for a day the plan paid for, as --list does, never $0', async () => {
    const out = await printed(['daily', '--plan', 'max', '--timezone', 'UTC'], 80);
    expect(out).toContain('2026-11-28             171k       incl ▏');
    expect(out.join('\n')).not.toMatch(/\$0 /);
  });
});
