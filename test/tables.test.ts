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
import { main } from '../src/views/cli/main.js';

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
