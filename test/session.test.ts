/**
 * `cctop chat` and `cctop report` as a user runs them, against fake homes.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../src/model/conversation.js';
import type { SessionReport } from '../src/report/types.js';
import { FakeHome, jsonl, REPO } from '../src/test-support/corpus.js';
import { addClaude, DEMO_WITH_SUBAGENT, sessionIdOf } from '../src/test-support/owned.js';

const CLI = join(REPO, 'dist', 'cli.js');
const run = (args: string[], env: Record<string, string>) => {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

const base = { cwd: '/w/app', isSidechain: false, version: '2.1.80' };
const user = (session: string, uuid: string, at: string, content: unknown, extra: object = {}) => ({
  ...base,
  sessionId: session,
  type: 'user',
  uuid,
  timestamp: at,
  message: { role: 'user', content },
  ...extra,
});
const assistant = (session: string, id: string, at: string, content: unknown[], prompt = 20_000) => ({
  ...base,
  sessionId: session,
  type: 'assistant',
  uuid: `a-${id}`,
  timestamp: at,
  requestId: `req-${id}`,
  message: {
    id: `msg-${id}`,
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content,
    usage: { input_tokens: 5, cache_read_input_tokens: prompt, output_tokens: 50 },
  },
});

/** A session that retries one failing command three times, edits a file, and reads another. */
function loopingSession(id: string): string {
  const records: unknown[] = [user(id, 'u0', '2026-11-29T10:00:00Z', 'make the tests pass')];
  for (let i = 0; i < 3; i++) {
    records.push(
      assistant(
        id,
        `b${i}`,
        `2026-11-29T10:0${i + 1}:00Z`,
        [{ type: 'tool_use', id: `tb${i}`, name: 'Bash', input: { command: 'npm test' } }],
        20_000 + i * 1000,
      ),
    );
    records.push(
      user(id, `r${i}`, `2026-11-29T10:0${i + 1}:30Z`, [
        { type: 'tool_result', tool_use_id: `tb${i}`, is_error: true, content: `FAIL attempt ${i}` },
      ]),
    );
  }
  records.push(
    assistant(
      id,
      'e',
      '2026-11-29T10:05:00Z',
      [
        {
          type: 'tool_use',
          id: 'te',
          name: 'Edit',
          input: { file_path: '/w/app/src/a.ts', old_string: 'x', new_string: 'y' },
        },
      ],
      24_000,
    ),
  );
  records.push(
    user(id, 're', '2026-11-29T10:05:02Z', [{ type: 'tool_result', tool_use_id: 'te', content: 'ok' }], {
      toolUseResult: { structuredPatch: [{ lines: ['-x', '+y', '+z'] }] },
    }),
  );
  records.push(
    assistant(
      id,
      'r',
      '2026-11-29T10:06:00Z',
      [{ type: 'tool_use', id: 'tr', name: 'Read', input: { file_path: '/w/app/README.md' } }],
      30_000,
    ),
  );
  records.push(
    user(id, 'rr', '2026-11-29T10:06:01Z', [{ type: 'tool_result', tool_use_id: 'tr', content: 'readme' }]),
  );
  records.push(
    assistant(id, 'done', '2026-11-29T10:07:00Z', [{ type: 'text', text: 'All green now.' }], 41_000),
  );
  return jsonl(...records);
}

describe('cctop chat', () => {
  it('finds a session by a unique prefix and prints its turns, tools marked by outcome', () => {
    home.write(
      home.claudeFile('-w-app', 'feedbeef-0000-4000-8000-000000000001.jsonl'),
      loopingSession('feedbeef-0000-4000-8000-000000000001'),
    );
    const r = run(['chat', 'feedbeef'], home.env);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('make the tests pass');
    expect(r.out).toContain('✗ Bash npm test');
    expect(r.out).toContain('✓ Edit /w/app/src/a.ts +2 -1');
    expect(r.out).toContain('All green now.');
  });

  it('--json is the conversation document, --markdown is pasteable', () => {
    home.write(home.claudeFile('-w-app', 's1.jsonl'), loopingSession('s1'));
    const c = JSON.parse(run(['chat', 's1', '--json'], home.env).out) as Conversation;
    expect(c.supported).toBe(true);
    expect(c.turns[0]).toMatchObject({ seq: 0, role: 'user', text: 'make the tests pass' });
    expect(c.turns.flatMap((t) => t.tools).filter((t) => t.failed)).toHaveLength(3);
    const md = run(['chat', 's1', '--markdown'], home.env).out;
    expect(md).toMatch(/^# make the tests pass/);
    expect(md).toContain('**Bash**');
  });

  it('an ambiguous prefix lists the candidates and exits 2; an unknown one exits 2', () => {
    home.write(home.claudeFile('-w', 'abc1.jsonl'), loopingSession('abc1'));
    home.write(home.claudeFile('-w', 'abc2.jsonl'), loopingSession('abc2'));
    const r = run(['chat', 'abc'], home.env);
    expect(r.code).toBe(2);
    expect(r.err).toContain('abc1');
    expect(r.err).toContain('abc2');
    expect(run(['chat', 'zzz'], home.env).code).toBe(2);
  });

  it('a transcript with script tags prints them as inert text, and control characters cannot reach the terminal', () => {
    home.write(
      home.claudeFile('-w', 'x.jsonl'),
      jsonl(user('x', 'u', '2026-11-29T10:00:00Z', '<script>alert(1)</script> \u001b[2J cleared?')),
    );
    const out = run(['chat', 'x'], { ...home.env, FORCE_COLOR: '0' }).out;
    expect(out).toContain('<script>alert(1)</script>');
    expect(out).not.toContain('\u001b[2J');
  });
});

describe('cctop report', () => {
  it('groups a retried failing command into one row, and counts files, lines, growth and time', () => {
    home.write(home.claudeFile('-w-app', 's1.jsonl'), loopingSession('s1'));
    const r = JSON.parse(run(['report', 's1', '--json'], home.env).out) as SessionReport;
    expect(r.tools.failures).toHaveLength(1);
    expect(r.tools.failures[0]).toMatchObject({
      tool: 'Bash',
      detail: 'npm test',
      count: 3,
      samples: ['FAIL attempt 0', 'FAIL attempt 1', 'FAIL attempt 2'],
    });
    expect(r.files).toEqual([
      { path: '/w/app/src/a.ts', reads: 0, writes: 1, added: 2, removed: 1 },
      { path: '/w/app/README.md', reads: 1, writes: 0, added: 0, removed: 0 },
    ]);
    // The Read was followed by a request 11k tokens larger than the one that made it.
    expect(r.tools.heaviest[0]).toMatchObject({ tool: 'Read', growth: 11_000 });
    expect(r.tools.slowest[0]!.ms).toBe(30_000);
    expect(r.context.series.map((x) => x.prompt)).toEqual([20_005, 21_005, 22_005, 24_005, 30_005, 41_005]);
    const sum = r.cost.byDay.reduce((n, d) => n + (d.usd ?? 0), 0);
    expect(sum).toBeCloseTo(r.session.cost.usd!, 6);
  });

  it("lists a session's subagents with what they cost, and the kind Claude Code wrote beside each", () => {
    // The demo's billing session ran one subagent; Claude Code writes its kind in a .meta.json beside it.
    const path = addClaude(home.dir, DEMO_WITH_SUBAGENT, '-tmp');
    const id = sessionIdOf(path);
    const agent = 'a3a6448476ea5ca32';
    home.write(
      home.claudeFile('-tmp', `${id}/subagents/agent-${agent}.meta.json`),
      JSON.stringify({ agentType: 'Explore' }),
    );
    const r = JSON.parse(run(['report', id.slice(0, 8), '--json'], home.env).out) as SessionReport;
    expect(r.subagents).toHaveLength(1);
    expect(r.subagents[0]).toMatchObject({
      agent,
      type: 'Explore',
      title: 'Find every caller of parseInvoice and list them.',
      models: ['claude-haiku-4-5-20251001'],
      requests: 17,
      calls: 14,
    });
    expect(r.subagents[0]!.usd).toBeCloseTo(0.152493, 6);
    const c = JSON.parse(
      run(['chat', id.slice(0, 8), '--agent', agent, '--json'], home.env).out,
    ) as Conversation;
    expect(c.turns[0]!.text).toBe('Find every caller of parseInvoice and list them.');
  });

  it('prints a readable report on a terminal-less run', () => {
    home.write(home.claudeFile('-w-app', 's1.jsonl'), loopingSession('s1'));
    const out = run(['report', 's1'], home.env).out;
    expect(out).toContain('Failures, grouped by tool and argument');
    expect(out).toContain('3× Bash npm test');
  });
});
