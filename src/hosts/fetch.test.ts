import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_RESULT_CHARS, MAX_TEXT_CHARS, MAX_TOOLS_PER_TURN, MAX_TURNS } from '../model/conversation.js';
import { MAX_JSON_DEPTH } from '../model/json.js';
import { tempDir } from '../test-support/corpus.js';
import { standInSsh } from '../test-support/stand-in-ssh.js';
import { renderChat } from '../views/cli/chat.js';
import { PLAIN } from '../views/cli/color.js';
import { fetchConversation, fetchProblem, fetchReport, hasNoSuch } from './fetch.js';
import { readChatAnswer } from './fetch-read.js';
import { MAX_REMOTE_REPORT_ROWS, readReportAnswer } from './fetch-report.js';

/** A turn as cctop 0.1.0's `chat --json` wrote it (agentcmd__full-session-two, trimmed). */
const TURN = {
  seq: 3,
  role: 'assistant',
  kind: 'message',
  ts: '2025-10-24T20:54:43.031Z',
  text: 'I\'ll help you move the "New Session" button.',
  clipped: false,
  tools: [
    {
      name: 'Read',
      detail: '/Users/me/src/app/CommandMenu.tsx',
      full: null,
      result: '1→"use client";',
      failed: false,
      added: 0,
      removed: 0,
      diff: [],
    },
  ],
};

/** `cctop chat agentcmd__full-session-two --json`, cctop 0.1.0 (two turns kept). */
const CHAT = {
  session: 'agentcmd__full-session-two',
  provider: 'claude',
  title: 'please move the + button',
  project: '/Users/me/src/app',
  supported: true,
  turns: [
    {
      seq: 2,
      role: 'user',
      kind: 'message',
      ts: '2025-10-24T20:54:39.926Z',
      text: 'please move the + button',
      clipped: false,
      tools: [],
    },
    TURN,
  ],
  earlier: 2,
  note: null,
};

/** `cctop report agentcmd__full-session-two --json`, cctop 0.1.0 (trimmed). */
const REPORT = {
  version: 1,
  session: {
    provider: 'claude',
    id: 'agentcmd__full-session-two',
    file: '/home/me/.claude/projects/-work-demo/agentcmd__full-session-two.jsonl',
    state: 'idle',
    title: 'please move the + button',
    tokens: { input: 45, output: 107, cacheRead: 307871, cacheWrite: 63095, reasoning: null },
    cost: { usd: 0.330708, source: 'estimated', included: false, unpriced: [], byModel: [] },
  },
  cost: {
    byModel: [
      {
        model: 'claude-sonnet-4-5-20250929',
        tokens: { input: 45, output: 107, cacheRead: 307871, cacheWrite: 63095, reasoning: null },
        usd: 0.330708,
        requests: 11,
      },
    ],
    byDay: [{ day: '2025-10-24', usd: 0.330708, tokens: 371118 }],
    byHour: [
      { hour: '2025-10-24T20:00:00.000Z', usd: 0.083183, tokens: 56318 },
      { hour: '2025-10-24T21:00:00.000Z', usd: 0.247525, tokens: 314800 },
    ],
  },
  context: {
    used: 36911,
    window: 200000,
    compactAt: 167000,
    compactions: [],
    series: [{ at: '2025-10-24T20:54:43.031Z', prompt: 23964 }],
    breakdown: null,
  },
  tools: {
    calls: 10,
    failed: 1,
    byTool: [{ name: 'ExitPlanMode', calls: 2, failed: 1 }],
    failures: [
      {
        tool: 'ExitPlanMode',
        detail: 'Move the "+" button',
        argument: 'Move the "+" button from inside the search input',
        count: 1,
        lastAt: '2025-10-24T21:26:06.537Z',
        samples: ["The user doesn't want to proceed with this tool use."],
      },
    ],
    slowest: [{ tool: 'Read', detail: '/tmp/x', ms: 1200, at: '2025-10-24T21:26:01.733Z', origin: 'main' }],
    heaviest: [{ tool: 'Read', detail: '/tmp/x', growth: 8382, shared: false, at: null }],
    dropped: 0,
  },
  files: [{ path: '/Users/me/src/app/CommandMenu.tsx', reads: 1, writes: 2, added: 19, removed: 18 }],
  subagents: [],
  problems: [],
};

const bytes = (v: unknown) => Buffer.from(JSON.stringify(v));
const chat = (v: unknown) => {
  const r = readChatAnswer(bytes(v));
  if (r.kind !== 'read') throw new Error(`not read: ${JSON.stringify(r)}`);
  return r.value;
};
const report = (v: unknown) => {
  const r = readReportAnswer(bytes(v));
  if (r.kind !== 'read') throw new Error(`not read: ${JSON.stringify(r)}`);
  return r.value;
};

describe('a conversation from another machine', () => {
  it('reads back exactly as the remote cctop wrote it', () => {
    expect(chat(CHAT)).toEqual(CHAT);
    expect(chat({ ...CHAT, at: 3 }).at).toBe(3);
  });

  it('reads a field of the wrong type as unknown, never as a made-up value', () => {
    const c = chat({
      ...CHAT,
      title: 5,
      project: undefined,
      earlier: 'many',
      note: 7,
      turns: [
        {
          ...TURN,
          kind: 'shouting',
          ts: 1234,
          text: { html: '<b>' },
          tools: [{ ...TURN.tools[0], result: 42, full: ['x'], added: '9', failed: 'yes', diff: [1, 'ok'] }],
        },
      ],
    });
    expect(c.earlier).toBe(0);
    expect(c.note).toBeNull();
    expect(c).toMatchObject({ title: null, project: null });
    const t = c.turns[0]!;
    expect(t).toMatchObject({ kind: 'message', ts: '', text: '' });
    expect(t.tools[0]).toMatchObject({ result: null, full: null, added: 0, failed: false, diff: ['ok'] });
  });

  it('drops a turn without its place or speaker, and a call without a name', () => {
    const c = chat({
      ...CHAT,
      turns: [
        { ...TURN, seq: -1 },
        { ...TURN, seq: 1.5 },
        { ...TURN, role: 'root' },
        'a string',
        { ...TURN, tools: [{ detail: 'no name' }, TURN.tools[0]] },
      ],
    });
    expect(c.turns).toHaveLength(1);
    expect(c.turns[0]!.tools.map((t) => t.name)).toEqual(['Read']);
  });

  it('cuts text to the bounds a local read keeps, and says a message was cut', () => {
    const huge = 'x'.repeat(MAX_TEXT_CHARS * 10);
    const c = chat({
      ...CHAT,
      turns: [
        {
          ...TURN,
          text: huge,
          tools: Array.from({ length: MAX_TOOLS_PER_TURN + 5 }, () => ({ ...TURN.tools[0], result: huge })),
        },
      ],
    });
    const t = c.turns[0]!;
    expect(t.text).toHaveLength(MAX_TEXT_CHARS);
    expect(t.clipped).toBe(true);
    expect(t.tools).toHaveLength(MAX_TOOLS_PER_TURN);
    // The head a local read keeps, with room for the mark it puts after a cut.
    expect(t.tools[0]!.result!.length).toBeGreaterThanOrEqual(MAX_RESULT_CHARS);
    expect(t.tools[0]!.result!.length).toBeLessThan(MAX_RESULT_CHARS + 20);
  });

  it('counts characters as a local read does: an emoji is one, and never cut in half', () => {
    const emoji = '😀'.repeat(MAX_TEXT_CHARS);
    expect(chat({ ...CHAT, turns: [{ ...TURN, text: emoji }] }).turns[0]).toMatchObject({
      text: emoji,
      clipped: false,
    });
    const text = `${'x'.repeat(MAX_TEXT_CHARS - 1)}😀😀`;
    expect(chat({ ...CHAT, turns: [{ ...TURN, text }] }).turns[0]!.text).toBe(
      `${'x'.repeat(MAX_TEXT_CHARS - 1)}😀`,
    );
  });

  it('keeps the newest turns of an overlong answer and counts the rest as earlier', () => {
    const turns = Array.from({ length: MAX_TURNS + 30 }, (_, i) => ({ ...TURN, seq: i }));
    const c = chat({ ...CHAT, turns, earlier: 5 });
    expect(c.turns).toHaveLength(MAX_TURNS);
    expect(c.turns[0]!.seq).toBe(30);
    expect(c.earlier).toBe(35);
  });

  it('keeps control characters as data, and the terminal view prints none of them', () => {
    const text = 'done\u001b[2J\u001b]0;owned\u0007 \u009b31m';
    const c = chat({ ...CHAT, turns: [{ ...TURN, text }] });
    expect(c.turns[0]!.text).toBe(text);
    const lines = renderChat(
      { provider: 'claude', id: c.session, title: null } as Parameters<typeof renderChat>[0],
      c,
      PLAIN,
      100,
    );
    expect(lines.join('\n')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(lines.join('\n')).toContain('done');
  });

  it('is not an answer when it is not JSON, nests too deep, or names no session of a known harness', () => {
    expect(readChatAnswer(Buffer.from('Welcome to devbox!\n'))).toMatchObject({ kind: 'not-an-answer' });
    expect(readChatAnswer(Buffer.alloc(0))).toEqual({ kind: 'not-an-answer', why: 'it printed nothing' });
    const deep = `${'['.repeat(MAX_JSON_DEPTH + 2)}${']'.repeat(MAX_JSON_DEPTH + 2)}`;
    expect(readChatAnswer(Buffer.from(deep))).toEqual({
      kind: 'not-an-answer',
      why: 'its JSON nests too deep',
    });
    expect(readChatAnswer(bytes([CHAT]))).toMatchObject({ kind: 'not-an-answer' });
    expect(readChatAnswer(bytes({ ...CHAT, provider: 'emacs' }))).toMatchObject({ kind: 'not-an-answer' });
    expect(readChatAnswer(bytes({ ...CHAT, session: 12 }))).toMatchObject({ kind: 'not-an-answer' });
  });
});

describe('a report from another machine', () => {
  it('reads back as the remote cctop wrote it, its session rebuilt as a remote row is', () => {
    const r = report(REPORT);
    const { session, ...rest } = r;
    const { session: _, ...sent } = REPORT;
    expect(rest).toEqual(sent);
    expect(session).toMatchObject({ id: REPORT.session.id, title: REPORT.session.title, state: 'idle' });
  });

  it('reads a wrong type as unknown: a price in a string is no price, not $0', () => {
    const r = report({
      ...REPORT,
      cost: { ...REPORT.cost, byDay: [{ day: '2025-10-24', usd: '0.33', tokens: 'lots' }] },
      context: { ...REPORT.context, used: 'big', breakdown: { window: 1 } },
      tools: { ...REPORT.tools, failed: '1', slowest: [{ tool: 'Read', ms: 'slow' }] },
    });
    expect(r.cost.byDay).toEqual([{ day: '2025-10-24', usd: null, tokens: 0 }]);
    expect(r.context.used).toBeNull();
    expect(r.context.breakdown).toBeNull();
    expect(r.tools.failed).toBeNull();
    expect(r.tools.slowest).toEqual([]);
  });

  it(`keeps at most ${MAX_REMOTE_REPORT_ROWS} rows of a list, the newest days and hours`, () => {
    const files = Array.from({ length: MAX_REMOTE_REPORT_ROWS + 10 }, (_, i) => ({ path: `/f${i}` }));
    const byHour = Array.from({ length: MAX_REMOTE_REPORT_ROWS + 10 }, (_, i) => ({
      hour: new Date(i * 3_600_000).toISOString(),
      usd: 0,
      tokens: 1,
    }));
    const r = report({ ...REPORT, files, cost: { ...REPORT.cost, byHour } });
    expect(r.files).toHaveLength(MAX_REMOTE_REPORT_ROWS);
    expect(r.cost.byHour).toHaveLength(MAX_REMOTE_REPORT_ROWS);
    expect(r.cost.byHour.at(-1)).toEqual(byHour.at(-1));
  });

  it('is refused when it is of another report version, or its session is not one', () => {
    expect(readReportAnswer(bytes({ ...REPORT, version: 2 }))).toEqual({
      kind: 'version',
      remote: 2,
      ours: 1,
    });
    expect(readReportAnswer(bytes({ ...REPORT, version: undefined }))).toMatchObject({
      kind: 'not-an-answer',
    });
    expect(readReportAnswer(bytes({ ...REPORT, session: { id: 'x' } }))).toMatchObject({
      kind: 'not-an-answer',
    });
  });
});

describe('fetching over ssh', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir('cctop-fetch-'));
  });
  afterEach(() => cleanup());

  /** A stand-in ssh that notes its arguments and prints `answer` (exit `code`, `stderr` on stderr). */
  function fakeSsh(answer: unknown, code = 0, stderr = ''): Record<string, string> {
    writeFileSync(join(dir, 'answer'), typeof answer === 'string' ? answer : JSON.stringify(answer));
    writeFileSync(join(dir, 'stderr'), stderr);
    return standInSsh(dir, [
      `printf '%s\\n' "$@" > '${dir}/args'`,
      `cat '${dir}/answer'`,
      `cat '${dir}/stderr' >&2`,
      `exit ${code}`,
    ]);
  }
  const remoteLine = () => readFileSync(join(dir, 'args'), 'utf8').trim().split('\n').at(-1);
  const host = { name: 'devbox', cctop: '/opt/cctop' };

  it('asks the remote cctop for the window, with the id after -- so it is never an option', async () => {
    const env = fakeSsh(CHAT);
    const r = await fetchConversation(host, '--help', { before: 40, agent: 'a1' }, { env });
    expect(r).toMatchObject({ kind: 'read', value: CHAT });
    expect(remoteLine()).toBe('env CCTOP_HOSTS= /opt/cctop chat --json --before 40 --agent a1 -- --help');
    await fetchReport(host, 'abc', { env, args: ['--plan', 'max'] });
    expect(remoteLine()).toBe('env CCTOP_HOSTS= /opt/cctop report --json --plan max -- abc');
  });

  it('tells a host without the session from a host that failed', async () => {
    const none = await fetchReport(host, 'zz', {
      env: fakeSsh('', 2, 'cctop: no session matches "zz" (cctop --list shows them)\n'),
    });
    if (none.kind !== 'failed') throw new Error('read');
    expect(hasNoSuch(none)).toBe(true);
    expect(fetchProblem('devbox', none)).toBe(
      'the cctop on devbox says: no session matches "zz" (cctop --list shows them)',
    );
    const broken = await fetchReport(host, 'zz', {
      env: fakeSsh('', 255, 'Permission denied (publickey).\n'),
    });
    if (broken.kind !== 'failed') throw new Error('read');
    expect(hasNoSuch(broken)).toBe(false);
    expect(fetchProblem('devbox', broken)).toContain('ssh-copy-id devbox');
  });

  it('says a remote that answered with something else is not this cctop', async () => {
    const r = await fetchConversation(host, 'abc', {}, { env: fakeSsh('[{"id":"abc"}]') });
    if (r.kind !== 'failed') throw new Error('read');
    expect(fetchProblem('devbox', r)).toMatch(/did not answer with a session document .*install this cctop/);
  });

  it('does not send an id too long to be one', async () => {
    const r = await fetchConversation(host, 'x'.repeat(5000), {}, { env: fakeSsh(CHAT) });
    expect(r).toMatchObject({ kind: 'failed', failure: { kind: 'not-a-document' } });
  });
});
