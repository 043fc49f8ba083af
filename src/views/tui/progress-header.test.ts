/**
 * While a first build reads, the live table says under its header how far it is, and shows the
 * sessions built so far below it.
 */
import { expect, it } from 'vitest';
import { claudeResponse, FakeHome } from '../../test-support/corpus.js';
import { snapshotIn } from '../../test-support/snapshot.js';
import { PLAIN } from '../cli/color.js';
import { buildProgress } from '../format.js';
import { initialView, render } from './view.js';

const NOW = Date.parse('2026-12-07T06:00:00Z');

it('the header line under the totals counts the files and MiB read, above the sessions built so far', async () => {
  const home = new FakeHome();
  try {
    home.write(home.claudeFile('-w', 'a.jsonl'), claudeResponse('1', 5, '2026-12-07T05:00:00Z'));
    home.write(home.claudeFile('-w', 'b.jsonl'), claudeResponse('2', 5, '2026-12-07T05:30:00Z'));
    const s = await snapshotIn(home.env, { useIndex: false, nowMs: NOW });
    const loading = buildProgress({
      files: 1204,
      filesTotal: 3782,
      bytes: 412.4 * (1 << 20),
      bytesTotal: 1234 * (1 << 20),
    });
    const r = render({ ...initialView(new Set()), doc: s.document, loading }, PLAIN, 120, 20, NOW);
    expect(r.lines[1]).toBe('  reading transcripts: 1,204 of 3,782 files, 412 of 1,234 MiB');
    expect(r.tableRows.map((row) => row.s.id)).toEqual(['b', 'a']);
  } finally {
    home.cleanup();
  }
});
