/**
 * The recorded acting runs (`lab/fixtures/act/<agent>/<case>/`, written by `npm run lab:record` from
 * act-tui.ts's suites and approvals.test.ts), read back on any clone without the agents: each home a
 * real TUI wrote while cctop typed into it or answered its approval is read by `cctop --json` and
 * `cctop chat`, and must show what a person would look for: every line cctop typed, as the person's
 * own words, and the approval's outcome where the model was told it.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Conversation } from '../../src/model/conversation.js';
import { cctopJson, cctopRead } from '../../src/test-support/lab/check.js';
import { actFixtures } from './act-fixture.js';

const all = actFixtures();

/** The home of a fixture, read as a user's: its sessions of the agent, and the one's conversation. */
function readBack(dir: string, agent: string): { ids: string[]; chat: Conversation | null } {
  const home = mkdtempSync(join(tmpdir(), 'cctop-act-fixture-'));
  try {
    cpSync(join(dir, 'home'), home, { recursive: true });
    const ids = cctopJson(home)
      .sessions.filter((s) => s.provider === agent)
      .map((s) => s.id);
    return { ids, chat: ids.length === 1 ? cctopRead<Conversation>(home, ['chat', ids[0]!]) : null };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

describe('recorded acting runs', () => {
  it('are in the repository: typed into in a pane and under cctop run, and answered by cctop approve', () => {
    const kinds = new Set(all.map((f) => (f.meta.approval ? 'approve' : f.meta.where)));
    expect([...kinds].sort()).toEqual(['approve', 'pane', 'run']);
  });

  for (const f of all) {
    it(`${f.meta.package}@${f.meta.version}, ${f.meta.where}: ${
      f.meta.approval
        ? `the ${f.meta.approval.verdict} cctop gave reaches the conversation`
        : 'every line cctop typed is the person’s words in the conversation'
    }`, () => {
      const { ids, chat } = readBack(f.dir, f.meta.agent);
      expect(ids).toHaveLength(1);
      const said = chat!.turns.filter((t) => t.role === 'user' && t.kind === 'message').map((t) => t.text);
      for (const typed of f.meta.typed) expect(said).toContain(typed);
      if (f.meta.approval) {
        const results = chat!.turns.flatMap((t) => t.tools.map((u) => u.result ?? ''));
        expect(results.some((r) => r.includes(f.meta.approval!.outcome))).toBe(true);
      }
    });
  }
});
