import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/corpus.js';
import { keepLimits, NOTE_FILE, readLimitsNote } from './quota-note.js';

const NOW = Date.parse('2026-12-07T12:00:00Z');
const t = tempDir('cctop-quota-note-');
afterAll(t.cleanup);

describe("the status line's note of the quota", () => {
  it('what Claude Code sent is read back as the status line’s figures, with when it came', async () => {
    const dir = join(t.dir, 'kept');
    await keepLimits(
      dir,
      { fiveHour: { usedPercent: 42, resetsAtMs: NOW + 3_600_000 }, sevenDay: null },
      NOW - 5_000,
    );
    expect(readLimitsNote(dir, NOW)).toEqual([
      {
        harness: 'claude',
        account: null,
        plan: null,
        window: '5h',
        usedPercent: 42,
        resetsAt: new Date(NOW + 3_600_000).toISOString(),
        source: 'statusline',
        fetchedAt: new Date(NOW - 5_000).toISOString(),
        stale: false,
      },
    ]);
  });

  it('the same figures within a minute are not written again; a changed figure is', async () => {
    const dir = join(t.dir, 'again');
    const limits = { fiveHour: { usedPercent: 42, resetsAtMs: NOW + 3_600_000 }, sevenDay: null };
    await keepLimits(dir, limits, NOW - 30_000);
    await keepLimits(dir, limits, NOW);
    expect(readLimitsNote(dir, NOW)[0]?.fetchedAt).toBe(new Date(NOW - 30_000).toISOString());
    await keepLimits(dir, { ...limits, fiveHour: { usedPercent: 43, resetsAtMs: NOW + 3_600_000 } }, NOW);
    expect(readLimitsNote(dir, NOW)[0]).toMatchObject({
      usedPercent: 43,
      fetchedAt: new Date(NOW).toISOString(),
    });
  });

  it('a note whose window has reset since reads as stale', async () => {
    const dir = join(t.dir, 'old');
    await keepLimits(
      dir,
      { fiveHour: { usedPercent: 90, resetsAtMs: NOW - 1 }, sevenDay: null },
      NOW - 6 * 3_600_000,
    );
    expect(readLimitsNote(dir, NOW).map((f) => f.stale)).toEqual([true]);
  });

  it('no note, or a note of another shape, is no figure', async () => {
    expect(readLimitsNote(join(t.dir, 'none'), NOW)).toEqual([]);
    const dir = join(t.dir, 'odd');
    await keepLimits(dir, { fiveHour: null, sevenDay: null }, NOW);
    writeFileSync(join(dir, NOTE_FILE), '{"v":99,"atMs":1,"fiveHour":{"usedPercent":5}}');
    expect(readLimitsNote(dir, NOW)).toEqual([]);
  });
});
