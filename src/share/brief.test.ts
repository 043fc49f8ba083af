/**
 * A handoff brief says, from the session's own records, what it was for, how far its plan got, what
 * it changed, ran and failed at, and where it stopped; and it stays small and printable whatever the
 * transcript holds.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findSession } from '../index/find.js';
import { providerById } from '../providers/index.js';
import { buildReport } from '../report/build.js';
import { corpus, FakeHome, HAVE_CORPUS, jsonl, REPO } from '../test-support/corpus.js';
import { readCold } from '../test-support/snapshot.js';
import { MAX_BRIEF_BYTES, renderBrief } from './brief.js';
import { gatherFacts, MAX_BRIEF_COMMANDS } from './facts.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

async function factsOf(id: string) {
  const snap = await readCold(home.env, { nowMs: NOW });
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

describe('a brief of a Codex session (records written for these tests in the rollout format of codex-cli 0.40)', () => {
  const id = '0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000';
  let t = 0;
  const at = () => new Date(Date.parse('2026-11-20T09:00:00Z') + 1000 * t++).toISOString();
  const item = (payload: Record<string, unknown>) => ({ timestamp: at(), type: 'response_item', payload });
  const said = (role: 'user' | 'assistant', text: string) =>
    item({
      type: 'message',
      role,
      content: [{ type: role === 'user' ? 'input_text' : 'output_text', text }],
    });
  let calls = 0;
  /** A function call and its output, as codex-cli 0.40 wrote them. */
  const run = (name: string, args: unknown, output: string, exit = 0) => {
    const call_id = `call_${++calls}`;
    return [
      item({ type: 'function_call', name, arguments: JSON.stringify(args), call_id }),
      item({
        type: 'function_call_output',
        call_id,
        output: JSON.stringify({ output, metadata: { exit_code: exit, duration_seconds: 0.1 } }),
      }),
    ];
  };
  const shell = (command: string, output: string, exit = 0) =>
    run('shell', { command: ['bash', '-lc', command], workdir: '/home/kim/api' }, output, exit);
  const plan = (status: (i: number) => string) =>
    run(
      'update_plan',
      {
        plan: ['Find where the queue drains', 'Drain once per tick', 'Add a test'].map((step, i) => ({
          step,
          status: status(i),
        })),
      },
      'Plan updated',
    );
  // Each edit of src/queue.ts adds two lines and removes one.
  const patch = (n: number) =>
    run(
      'apply_patch',
      {
        input: `*** Begin Patch\n*** Update File: src/queue.ts\n@@\n-  drain()\n+  if (this.tick === ${n}) return\n+  drain()\n*** End Patch\n`,
      },
      'Success. Updated the following files:\nM src/queue.ts\n',
    );

  it('its goal, finished plan, last exchange, files, failures and newest commands', async () => {
    // 48 shell commands: 25 searches, a failing `npm test`, 20 more, the same failure again, then the
    // branch. The brief keeps the newest 40.
    const records = [
      {
        timestamp: at(),
        type: 'session_meta',
        payload: {
          id,
          timestamp: at(),
          cwd: '/home/kim/api',
          originator: 'codex_cli_rs',
          cli_version: '0.40.0',
        },
      },
      {
        timestamp: at(),
        type: 'turn_context',
        payload: {
          cwd: '/home/kim/api',
          approval_policy: 'on-request',
          model: 'gpt-5-codex',
          effort: 'medium',
        },
      },
      said('user', 'Make the retry queue drain once per tick'),
      ...plan((i) => (i === 0 ? 'in_progress' : 'pending')),
      ...Array.from({ length: 25 }, (_, i) => shell(`rg -n drain src/part${i}.ts`, `${i}: drain()`)).flat(),
      ...shell('npm test', '1 failing: drains twice', 1),
      ...patch(1),
      ...Array.from({ length: 20 }, (_, i) => shell(`rg -n tick src/part${i}.ts`, `${i}: tick`)).flat(),
      ...shell('npm test', '1 failing: drains twice', 1),
      ...patch(2),
      ...plan(() => 'completed'),
      said('assistant', 'The queue drains once per tick now.'),
      said('user', 'now make a branch fix/drain-once for it'),
      ...shell('git checkout -b fix/drain-once', "Switched to a new branch 'fix/drain-once'"),
      said('assistant', 'I created the branch `fix/drain-once`.'),
    ];
    home.write(home.codexFile(`rollout-2026-11-20T09-00-00-${id}.jsonl`, '2026/11/20'), jsonl(...records));
    const f = await factsOf('0199aaaa');
    expect(f.unread).toBeNull();
    expect(f.goal).toBe('Make the retry queue drain once per tick');
    expect(f.lastUser).toBe('now make a branch fix/drain-once for it');
    expect(f.lastAssistant).toBe('I created the branch `fix/drain-once`.');
    expect(f.plan?.steps.map((x) => x.status)).toEqual(['completed', 'completed', 'completed']);
    expect(f.commandCount).toBe(48);
    expect(f.commands).toHaveLength(MAX_BRIEF_COMMANDS);
    expect(f.commands.at(-1)).toEqual({
      command: 'git checkout -b fix/drain-once',
      failed: false,
      open: false,
    });
    const brief = renderBrief(f, 'claude', NOW);
    expect(brief).toContain('# Handoff brief: Make the retry queue drain once per tick');
    expect(brief).toContain('You are taking over a task from a Codex session');
    expect(brief).toContain('for Claude Code');
    expect(brief).toContain('- [x] Find where the queue drains (completed)');
    expect(brief).toContain('## Files changed');
    expect(brief).toContain('`src/queue.ts` (+4 -2, 2 edits)');
    expect(brief).toContain('`npm test` failed 2×');
    expect(brief).toContain('## Commands run (the last 40 of 48)');
    expect(brief.indexOf('## Goal')).toBeLessThan(brief.indexOf('## Where it stopped'));
    expect(Buffer.byteLength(brief)).toBeLessThanOrEqual(MAX_BRIEF_BYTES);
  });
});

describe('a brief of a Claude Code session', () => {
  // Records in the shape Claude Code 1.0.51 wrote; the words are ours.
  const base = {
    cwd: '/w/app',
    isSidechain: false,
    userType: 'external',
    version: '1.0.51',
    sessionId: 'b1',
  };
  let t = 0;
  const at = () => new Date(Date.parse('2026-11-20T10:00:00Z') + 1000 * t++).toISOString();
  const user = (content: unknown, extra: Record<string, unknown> = {}) => ({
    ...base,
    type: 'user',
    uuid: `u${t}`,
    timestamp: at(),
    message: { role: 'user', content },
    ...extra,
  });
  const assistant = (content: unknown[]) => ({
    ...base,
    type: 'assistant',
    uuid: `a${t}`,
    timestamp: at(),
    requestId: `req_${t}`,
    message: {
      id: `msg_${t}`,
      role: 'assistant',
      model: 'claude-opus-4-20250514',
      content,
      usage: { input_tokens: 10, output_tokens: 20 },
    },
  });
  const use = (id: string, name: string, input: Record<string, unknown>) =>
    assistant([{ type: 'tool_use', id, name, input }]);
  const result = (id: string, content: string, extra: Record<string, unknown> = {}, isError = false) =>
    user([{ type: 'tool_result', tool_use_id: id, content, ...(isError ? { is_error: true } : {}) }], extra);
  const todos = (status: string) => ({
    todos: ['Parse the flag', 'Skip writes when it is set', 'Document it'].map((content, i) => ({
      content,
      status,
      priority: 'high',
      id: String(i + 1),
    })),
  });

  it('its TodoWrite plan as last written, its Bash commands and the call left without a result', async () => {
    home.write(
      home.claudeFile('-w-app', 'b1.jsonl'),
      jsonl(
        user('Add a --dry-run flag to the sync command'),
        use('t1', 'TodoWrite', todos('pending')),
        result('t1', 'Todos have been modified successfully.'),
        use('t2', 'Bash', { command: 'npm test', description: 'Run the tests' }),
        result('t2', 'Error: 1 test failed', {}, true),
        use('t3', 'Edit', {
          file_path: '/w/app/src/sync.ts',
          old_string: 'write()',
          new_string: 'if (!dry) write()',
        }),
        result('t3', 'The file /w/app/src/sync.ts has been updated.', {
          toolUseResult: {
            filePath: '/w/app/src/sync.ts',
            structuredPatch: [
              {
                oldStart: 3,
                oldLines: 1,
                newStart: 3,
                newLines: 2,
                lines: ['-  write()', '+  if (!dry)', '+    write()'],
              },
            ],
          },
        }),
        use('t4', 'Bash', { command: 'npm test', description: 'Run the tests' }),
        result('t4', '12 passed'),
        use('t5', 'TodoWrite', todos('completed')),
        result('t5', 'Todos have been modified successfully.'),
        assistant([{ type: 'text', text: 'The flag is in, and the tests pass.' }]),
        use('t6', 'Read', { file_path: '/w/app/README.md' }),
      ),
    );
    const f = await factsOf('b1');
    expect(f.goal).toBe('Add a --dry-run flag to the sync command');
    expect(f.lastAssistant).toBe('The flag is in, and the tests pass.');
    expect(f.plan?.steps).toHaveLength(3);
    expect(f.plan?.steps.every((x) => x.status === 'completed')).toBe(true);
    expect(f.commands).toEqual([
      { command: 'npm test', failed: true, open: false },
      { command: 'npm test', failed: false, open: false },
    ]);
    const brief = renderBrief(f, 'codex', NOW);
    expect(brief).toContain('- A call had no result yet: `Read`');
    expect(brief).toContain('- [x] Parse the flag (completed)');
    expect(brief).toContain('`/w/app/src/sync.ts` (+2 -1, 1 edits)');
  });

  it('a session with a subagent lists it, with its kind (the bundled demo)', async () => {
    const project = join(REPO, 'demo', 'home', '.claude', 'projects', '-home-sam-src-billing');
    const id = 'a0d12928-daca-4076-a4ae-776fe074bc1e';
    const sub = `${id}/subagents/agent-a3a6448476ea5ca32`;
    for (const name of [`${id}.jsonl`, `${sub}.jsonl`])
      home.copy(join(project, name), home.claudeFile('-work-sub', name));
    // What Claude Code 2.1 writes beside a subagent's transcript.
    home.write(
      home.claudeFile('-work-sub', `${sub}.meta.json`),
      JSON.stringify({ agentType: 'Explore', spawnDepth: 1 }),
    );
    const brief = renderBrief(await factsOf('a0d12928'), 'gemini', NOW);
    expect(brief).toContain('## Subagents');
    expect(brief).toContain('- `a3a6448476ea5ca32` (Explore)');
  });
});

if (HAVE_CORPUS) {
  // Extra cases over `../shared/corpus`, registered only where it is present.
  describe('a brief from sessions in ../shared/corpus', () => {
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
  });
}

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
