/**
 * Which tools each billed request called, read from the runs the conformance lab recorded
 * (`lab/fixtures/<agent>/<case>/`): every harness that says it must give each request the tools the
 * lab's server asked for in that response, no more and no fewer, and a text-only answer the empty
 * set, never "unknown". The server's ledger is the truth; the files are what the real CLI wrote.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dedupe } from '../model/dedupe.js';
import { F, FLAG, type Ledger, RECORD_FIELDS } from '../model/ledger.js';
import { ProblemLog } from '../model/problems.js';
import { entriesOf, fixtures } from '../test-support/lab/check.js';
import { providerById } from './index.js';

/** Every counted record's tools, as sorted names joined by `+` (`-` for none, `?` for unknown). */
function requestTools(ledgers: Ledger[]): string[] {
  const masks = dedupe(ledgers);
  const out: string[] = [];
  ledgers.forEach((l, li) => {
    for (let r = 0, at = 0; at < l.data.length; r++, at += RECORD_FIELDS) {
      if (masks[li]![r] === 0) continue;
      if (!(l.data[at + F.FLAGS]! & FLAG.TOOLS_KNOWN)) out.push('?');
      else out.push(l.toolSets[l.data[at + F.TOOLS]!]!.join('+') || '-');
    }
  });
  return out.sort();
}

const all = fixtures();

describe('the tools of each request, in the lab’s recorded runs', () => {
  it('are recorded for the agents that make parallel calls of one tool and text-only answers', () => {
    expect(all.filter((f) => f.name === 'parallel').length).toBeGreaterThanOrEqual(2);
  });

  for (const f of all) {
    it(`${f.meta.package}@${f.meta.version}, ${f.name}: each request called what the server asked for`, () => {
      const home = mkdtempSync(join(tmpdir(), 'cctop-tools-'));
      try {
        cpSync(join(f.dir, 'home'), home, { recursive: true });
        const provider = providerById(f.meta.agent);
        const files = provider.discover(provider.roots({ HOME: home }), new ProblemLog());
        const ledgers = files.map((file) => provider.parse(file, null).ledger);
        const want = entriesOf(f.ledger, f.meta.scripts)
          .map((e) => [...new Set(e.calls.map((c) => c.name))].sort().join('+') || '-')
          .sort();
        expect(requestTools(ledgers)).toEqual(want);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });
  }
});
