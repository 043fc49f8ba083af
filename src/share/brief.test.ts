/**
 * A handoff brief says, from the session's own records, what it was for, how far its plan got, what
 * it changed, ran and failed at, and where it stopped; and it stays small and printable whatever the
 * transcript holds.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findSession } from '../index/find.js';
import { takeSnapshot } from '../index/snapshot.js';
import { providerById } from '../providers/index.js';
import { buildReport } from '../report/build.js';
import { corpus, FakeHome, HAVE_CORPUS, jsonl, NO_CORPUS_REASON } from '../test-support/corpus.js';
import { MAX_BRIEF_BYTES, renderBrief } from './brief.js';
import { gatherFacts, MAX_BRIEF_COMMANDS } from './facts.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

async function factsOf(id: string) {
  const snap = await takeSnapshot({
    env: home.env,
    plan: 'retail',
    providers: null,
    sinceMs: null,
    untilMs: null,
    useIndex: false,
    nowMs: NOW,
    threads: 1,
  });
  const found = findSession(snap.document, id);
  if (found.kind !== 'one') throw new Error(`no one session ${id}: ${found.kind}`);
  const s = found.session;
  const mine = snap.filesOf(s)!;
  const report = buildReport({
    session: s,
    files: mine.files,
    ...(mine.masks ? { masks: mine.masks } : {}),
    book: snap.book,
    time: snap.time,
    nowMs: NOW,
  });
  return gatherFacts(report, providerById(s.provider));
}

describe.skipIf(!HAVE_CORPUS)(
  `a brief from corpus sessions${HAVE_CORPUS ? '' : ` (${NO_CORPUS_REASON})`}`,
  () => {
    it('a Codex session (codex-cli 0.39, 272 turns): its goal, finished plan, last exchange, files, failures and newest commands', async () => {
      home.codexFromCorpus(
        'agentcmd__rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl',
      );
      const f = await factsOf('01997e76');
      expect(f.turns).toBe(272);
      expect(f.unread).toBeNull();
      expect(f.goal).toContain('Updating a team to assign a lead');
      expect(f.lastUser).toContain('feat/dashboard-refactor');
      expect(f.lastAssistant).toContain('created the new working branch `feat/dashboard-refactor`');
      expect(f.plan?.steps.map((s) => s.status)).toEqual(['completed', 'completed', 'completed']);
      expect(f.commandCount).toBe(120);
      expect(f.commands).toHaveLength(MAX_BRIEF_COMMANDS);
      expect(f.commands.at(-1)).toEqual({
        command: 'git checkout -b feat/dashboard-refactor',
        failed: false,
        open: false,
      });
      const brief = renderBrief(f, 'claude', NOW);
      expect(brief).toContain('# Handoff brief: Updating a team');
      expect(brief).toContain('You are taking over a task from a Codex session');
      expect(brief).toContain('for Claude Code');
      expect(brief).toContain('- [x] Add backend support for fetching a single team with stats');
      expect(brief).toContain('## Files changed');
      expect(brief).toContain(
        '`apps/spectora-labs/src/app/(protected)/settings/teams/components/TeamSheet.tsx` (+297 -236, 6 edits)',
      );
      expect(brief).toContain('`pnpm --filter @repo/spectora-labs check-types` failed 2×');
      expect(brief).toContain('## Commands run (the last 40 of 120)');
      expect(brief.indexOf('## Goal')).toBeLessThan(brief.indexOf('## Where it stopped'));
      expect(Buffer.byteLength(brief)).toBeLessThanOrEqual(MAX_BRIEF_BYTES);
    });

    it('a Claude Code session (1.0.51, trimmed): its TodoWrite plan as last written, its Bash commands and the call left without a result', async () => {
      home.claudeFromCorpus(
        'happy-cli__400429ba-c1e1-4ef5-a7ec-fe40608df53b.trimmed.jsonl',
        '-work-demo',
        '400429ba-c1e1-4ef5-a7ec-fe40608df53b',
      );
      const f = await factsOf('400429ba');
      expect(f.goal).toBe(
        'implement what is requested in CLAUDE.md file First get my approval of your highly detailed plan',
      );
      expect(f.lastAssistant).toBe(
        "I'll implement the session management first, then debug the hanging issue.",
      );
      expect(f.plan?.steps).toHaveLength(16);
      expect(f.plan?.steps.every((s) => s.status === 'completed')).toBe(true);
      expect(f.commands.some((c) => c.command === 'npm test' && c.failed)).toBe(true);
      const brief = renderBrief(f, 'codex', NOW);
      expect(brief).toContain('- A call had no result yet: `Read`');
      expect(brief).toContain('- [x] Set up TypeScript configuration and dependencies (completed)');
      expect(brief).toContain(
        '`/Users/kirilldubovitskiy/projects/handy-cli/src/commands/start.ts` (+54 -33, 12 edits)',
      );
    });

    it('a Claude Code session with a subagent lists it, with its kind', async () => {
      const dir = corpus('claude-code', 'transcripts', 'agent-sessions__subagent');
      const id = '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f';
      const sub = `${id}/subagents/agent-a0ad4f44468bdf20d`;
      for (const name of [`${id}.jsonl`, `${sub}.jsonl`, `${sub}.meta.json`])
        home.copy(join(dir, name), home.claudeFile('-work-sub', name));
      const brief = renderBrief(await factsOf('0a1b2c3d'), 'gemini', NOW);
      expect(brief).toContain('## Subagents');
      expect(brief).toContain('- `a0ad4f44468bdf20d` (general-purpose)');
    });
  },
);

describe('a brief of a hostile transcript', () => {
  const base = { cwd: '/w/app', isSidechain: false, version: '2.1.80', sessionId: 'evil-1' };
  const user = (uuid: string, at: string, content: unknown) => ({
    ...base,
    type: 'user',
    uuid,
    timestamp: at,
    message: { role: 'user', content },
  });
  const assistant = (id: string, at: string, content: unknown[]) => ({
    ...base,
    type: 'assistant',
    uuid: `a-${id}`,
    timestamp: at,
    requestId: `req-${id}`,
    message: {
      id: `msg-${id}`,
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content,
      usage: { input_tokens: 5, output_tokens: 5 },
    },
  });

  it('is at most MAX_BRIEF_BYTES, with no control characters, however long and strange the messages', async () => {
    const huge = `\u001b]52;c;ZXZpbA==\u0007\u202e${'x'.repeat(50_000)}`;
    const records: unknown[] = [user('u0', '2026-11-29T10:00:00Z', huge)];
    for (let i = 0; i < 200; i++)
      records.push(
        assistant(`b${i}`, '2026-11-29T10:00:01Z', [
          {
            type: 'tool_use',
            id: `t${i}`,
            name: 'Write',
            input: { file_path: `/w/app/${'d'.repeat(1000)}${i}\u001b[2J.ts`, content: 'x' },
          },
        ]),
        user(`r${i}`, '2026-11-29T10:00:02Z', [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'ok' }]),
      );
    records.push(user('u9', '2026-11-29T10:01:00Z', huge));
    home.write(home.claudeFile('-w-app', 'evil-1.jsonl'), jsonl(...records));
    const brief = renderBrief(await factsOf('evil-1'), 'codex', NOW);
    expect(Buffer.byteLength(brief)).toBeLessThanOrEqual(MAX_BRIEF_BYTES);
    expect(brief).toContain('cctop export evil-1');
    // eslint-disable-next-line no-control-regex
    expect(brief).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(brief).toContain('(cut: the first 4000 of');
  });
});
