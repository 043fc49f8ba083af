/**
 * Each provider's carried parser state is typed, and what the index hands back (JSON out of SQLite)
 * is checked by the provider's `readCarry` before a pass continues from it: a carry as written reads
 * back whole; one that is not (another version's, a damaged row) makes the file be read from the
 * start, with the same result a first read gives.
 *
 * The files are the conformance lab's recordings of the real CLIs (`lab/fixtures/<harness>/*`), and
 * for the damaged-carry case a Claude Code 2.1.328 transcript written here (trimmed).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROVIDERS } from '../model/facts.js';
import { ProblemLog } from '../model/problems.js';
import { FakeHome, jsonl, REPO } from '../test-support/corpus.js';
import { spendResponse } from '../test-support/spend-history.js';
import { readSource } from './fence.js';
import { providerById } from './index.js';
import type { ParseResult, SourceFile } from './types.js';

const LAB = join(REPO, 'lab', 'fixtures');

/** The lab's recorded homes of a harness, one per scenario (none for a harness the lab cannot run). */
const homesOf = (id: string): string[] => {
  const dir = join(LAB, id);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((scenario) => join(dir, scenario, 'home'))
    .filter((home) => existsSync(home));
};

const RECORDED = PROVIDERS.filter((id) => homesOf(id).length > 0);

describe("a provider's carried state, read back from the index", () => {
  it('the lab has recordings of the harnesses whose readers carry state between passes', () => {
    expect(RECORDED).toEqual(['claude', 'codex', 'gemini', 'copilot', 'opencode', 'pi', 'qwen', 'openclaw']);
  });

  for (const id of RECORDED) {
    it(`${id}: every carry its parser writes reads back as written, after a trip through JSON`, () => {
      const provider = providerById(id);
      let files = 0;
      for (const home of homesOf(id)) {
        const env = { HOME: home, XDG_DATA_HOME: join(home, '.local', 'share') };
        for (const file of provider.discover(provider.roots(env), new ProblemLog())) {
          const result = provider.parse(file, null);
          const stored: unknown = JSON.parse(JSON.stringify(result.carry));
          expect(provider.readCarry(stored)).toEqual(result.carry);
          files++;
        }
      }
      expect(files).toBeGreaterThan(0);
    });
  }

  it('a harness that reads a changed file whole carries null, and nothing else reads as its carry', () => {
    for (const id of ['cursor', 'windsurf', 'devin', 'opencode'] as const) {
      expect(providerById(id).readCarry(null)).toBeNull();
      expect(providerById(id).readCarry({ pending: [] })).toBeUndefined();
    }
  });

  it('a carry that does not read makes the file be read from the start, as a first read would', () => {
    const home = new FakeHome();
    try {
      const path = home.write(
        home.claudeFile('-w-app', 's1.jsonl'),
        jsonl(
          spendResponse('s1', 0, '2026-11-02T09:00:00Z', 100, undefined, ['Bash']),
          spendResponse('s1', 1, '2026-11-02T09:01:00Z', 200),
        ),
      );
      const file: SourceFile = {
        provider: 'claude',
        path,
        root: join(home.dir, '.claude'),
        sessionHint: 's1',
        role: 'main',
        size: 0,
        mtimeMs: 0,
        ino: 0,
      };
      const provider = providerById('claude');
      const whole = provider.parse(file, null);
      for (const damaged of [null, 'a string', { pending: 'not a list', done: [], boundaryOpen: false }]) {
        // As the index would hand it back: everything read so far, with a carry that is not Claude's.
        const previous: ParseResult = { ...whole, carry: damaged };
        const read = readSource(provider, file, previous);
        expect(read.kind).toBe('answered');
        if (read.kind !== 'answered') continue;
        expect(read.value.ledger).toEqual(whole.ledger);
        expect(read.value.facts).toEqual(whole.facts);
      }
      // A carry that reads continues where the last pass stopped: nothing new, nothing counted twice.
      const resumed = readSource(provider, file, whole);
      expect(resumed.kind === 'answered' ? resumed.value.ledger : null).toEqual(whole.ledger);
    } finally {
      home.cleanup();
    }
  });
});
