/**
 * Secrets never leave, end to end: a Claude Code session that carries a credential of every kind the
 * rules cover (in the person's prompt and so the title, in a call's input, in what a call read back,
 * in the agent's answer) is listed by `cctop secrets` without one value in full, and no output that
 * carries transcript text (chat, export, handoff, search) holds any of them. Runs the built CLI.
 */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeRecord, prompt, textAnswer, toolCall } from '../src/test-support/claude-records.js';
import { CLI, runCli } from '../src/test-support/cli-run.js';
import { FakeHome } from '../src/test-support/corpus.js';
import { type Planted, plantedSecrets } from '../src/test-support/planted-secrets.js';
import { HAVE_TMUX, Terminal } from '../src/test-support/terminal.js';
import { type RunningServer, startServer } from '../src/views/serve/server.js';

const ID = '5ec7e75a-0000-4000-8000-000000000032';
const CWD = '/work/shop';
const MODEL = 'claude-sonnet-4-5-20250929';
const PLANTED = plantedSecrets();

let home: FakeHome;

/** The planted values split four ways: the prompt, a call's input, its result, the agent's answer. */
function history(): string {
  const t0 = Date.parse('2026-12-01T10:00:00Z');
  const quarter = Math.ceil(PLANTED.length / 4);
  const part = (i: number) =>
    PLANTED.slice(i * quarter, (i + 1) * quarter)
      .map((p) => p.line)
      .join('\n');
  const lines = [
    claudeRecord(ID, CWD, t0, 'u1', prompt(`Deploy with these: ${part(0)}`)),
    claudeRecord(
      ID,
      CWD,
      t0 + 1000,
      'a1',
      toolCall(1, 'Bash', { command: `echo "${part(1)}" > .env` }, MODEL, 10, 5),
    ),
    claudeRecord(ID, CWD, t0 + 2000, 'r1', {
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: part(2) }] },
    }),
    claudeRecord(
      ID,
      CWD,
      t0 + 3000,
      'a2',
      textAnswer(2, `Found in the config:\n${part(3)}\nDeployed.`, MODEL, 10, 5),
    ),
  ];
  return lines.join('');
}

/** Every planted value the output holds in full. */
const leaked = (out: string): Planted[] => PLANTED.filter((p) => out.includes(p.value));

beforeAll(() => {
  home = new FakeHome();
  home.write(home.claudeFile('-work-shop', `${ID}.jsonl`), history(), Date.parse('2026-12-01T10:01:00Z'));
});
afterAll(() => home.cleanup());

describe('cctop secrets', () => {
  it('lists every planted credential, each by its kind, and prints none in full', async () => {
    const r = await runCli(['secrets', '--json', '--wait'], home.env);
    expect(r.code).toBe(0);
    expect(leaked(r.out + r.err)).toEqual([]);
    const listed = JSON.parse(r.out) as {
      secrets: { kind: string; first: string; last: string; turn: number }[];
    };
    for (const p of PLANTED)
      expect(
        listed.secrets.some((s) => s.kind === p.kind && p.line.includes(s.first) && p.line.includes(s.last)),
        `${p.kind} ${p.value.slice(0, 6)}`,
      ).toBe(true);
  });

  it('names the session, the turn and the kind in its table', async () => {
    const r = await runCli(['secrets'], { ...home.env, COLUMNS: '120' });
    expect(r.code).toBe(0);
    expect(leaked(r.out + r.err)).toEqual([]);
    expect(r.out.split('\n')[0]).toBe('SESSION   TURN  KIND                       SECRET     AGE  PROJECT');
    const openai = PLANTED.find((p) => p.kind === 'OpenAI key')!.value;
    expect(r.out).toContain(
      `5ec7e75a  #0    OpenAI key                 ${openai.slice(0, 4)}…${openai.slice(-4)}  `,
    );
    expect(r.out).toContain(`${PLANTED.length} secrets found.`);
  });

  it('a private key cut off where cctop stops keeping a result is redacted from its first line', async () => {
    const key = PLANTED.find((p) => p.kind === 'private key')!;
    const cut = `${'x'.repeat(700)}\n${key.line}`;
    const id = '5ec7e75a-0000-4000-8000-00000000c1a9';
    const t0 = Date.parse('2026-12-01T11:00:00Z');
    const h = new FakeHome();
    try {
      h.write(
        h.claudeFile('-work-shop', `${id}.jsonl`),
        [
          claudeRecord(id, CWD, t0, 'u1', prompt('read the key file')),
          claudeRecord(
            id,
            CWD,
            t0 + 1000,
            'a1',
            toolCall(1, 'Read', { file_path: '/k/id_rsa' }, MODEL, 10, 5),
          ),
          claudeRecord(id, CWD, t0 + 2000, 'r1', {
            type: 'user',
            message: {
              role: 'user',
              content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: cut }],
            },
          }),
        ].join(''),
      );
      const r = await runCli(['chat', id], { ...h.env, COLUMNS: '200' });
      expect(r.code).toBe(0);
      expect(r.out).toContain('----…[redacted: private key]');
      expect(r.out).not.toContain(key.value.slice(0, 40));
    } finally {
      h.cleanup();
    }
  });

  it('cctop doctor counts them', async () => {
    const r = await runCli(['doctor'], home.env);
    expect(r.out.split('\n')).toContain(
      `Secrets  ${PLANTED.length} secrets found in transcripts (cctop secrets lists them; rotate them)`,
    );
  });

  it('will not reveal a secret to a pipe', async () => {
    const r = await runCli(['secrets', '--reveal', `${ID.slice(0, 8)}:0`], home.env);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain('only to a terminal');
    expect(leaked(r.out + r.err)).toEqual([]);
  });
});

describe('no output that carries transcript text holds a planted secret', () => {
  for (const args of [
    ['chat', ID],
    ['chat', ID, '--json'],
    ['chat', ID, '--markdown'],
    ['export', ID],
    ['export', ID, '--format', 'json'],
    ['search', 'Deploy', '--json', '--wait'],
    ['search', 'config', '--wait'],
    ['--json'],
    ['--list'],
    ['report', ID],
    ['report', ID, '--json'],
  ])
    it(`cctop ${args.join(' ')}`, async () => {
      const r = await runCli(args, { ...home.env, COLUMNS: '200' });
      expect(r.code).toBe(0);
      expect(r.out.length).toBeGreaterThan(0);
      expect(leaked(r.out + r.err).map((p) => p.kind)).toEqual([]);
    });

  it('cctop handoff: the brief', async () => {
    const r = await runCli(['handoff', ID, '--to', 'claude'], { ...home.env, PATH: process.env.PATH ?? '' });
    expect(r.code).toBe(0);
    const path = /^Brief: (.+) \(\d+ bytes\)$/m.exec(r.out)?.[1];
    expect(path).toBeDefined();
    const brief = readFileSync(path!, 'utf8');
    expect(brief).toContain('[redacted: ');
    expect(leaked(brief + r.out + r.err).map((p) => p.kind)).toEqual([]);
  });

  it('chat shows what it redacted as its first characters and its kind', async () => {
    const r = await runCli(['chat', ID], { ...home.env, COLUMNS: '200' });
    const openai = PLANTED.find((p) => p.kind === 'OpenAI key')!;
    expect(r.out).toContain(`${openai.value.slice(0, 4)}…[redacted: OpenAI key]`);
  });
});

describe('MCP answers hold no planted secret', () => {
  /** How long one call may take on a loaded two-core machine (a cold index build included). */
  const PATIENCE_MS = 30_000;
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'secrets-test', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp'],
        env: { ...home.env, PATH: process.env.PATH ?? '/usr/bin:/bin' },
        stderr: 'pipe',
      }),
    );
  });
  afterAll(async () => {
    await client.close();
  });

  for (const [name, args] of [
    ['list_sessions', {}],
    ['search', { query: 'Deploy' }],
    ['search', { query: 'config' }],
    ['get_session', { id: ID }],
  ] as const)
    it(`${name} ${JSON.stringify(args)}`, async () => {
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: PATIENCE_MS });
      const text = JSON.stringify(r);
      expect(text.length).toBeGreaterThan(50);
      expect(leaked(text).map((p) => p.kind)).toEqual([]);
    });
});

describe("the dashboard's answers hold no planted secret", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({
      env: home.env,
      plan: 'retail',
      providers: null,
      useIndex: false,
      threads: 1,
      delayMs: 60_000,
      bind: '127.0.0.1',
      port: 0,
      stepPort: false,
      token: null,
    });
  });
  afterAll(async () => {
    await server.close();
  });

  for (const route of ['/api/sessions', `/api/chat/${ID}`, `/api/chat/${ID}/markdown`, `/api/report/${ID}`])
    it(route, async () => {
      const res = await fetch(`http://127.0.0.1:${server.port}${route}`);
      expect(res.status).toBe(200);
      const body = await res.text();
      expect(body).toContain(ID.slice(0, 8));
      expect(leaked(body).map((p) => p.kind)).toEqual([]);
    });
});

describe.skipIf(!HAVE_TMUX)(
  `--reveal on a terminal${HAVE_TMUX ? '' : ' (skipped: tmux is not installed; apt-get install tmux)'}`,
  () => {
    it("prints that turn's secrets in full, and only that turn's", async () => {
      const term = new Terminal(`cctop-secrets-${process.pid}`, 'reveal', 30_000);
      try {
        term.cctop(home.dir, home.env, `secrets --reveal ${ID.slice(0, 8)}:0`, 400, 40);
        const openai = PLANTED.find((p) => p.kind === 'OpenAI key')!;
        const slack = PLANTED.find((p) => p.kind === 'Slack token')!;
        const lines = await term.until('the OpenAI key in full', (l) =>
          l.join('').includes(`OpenAI key: ${openai.value}`),
        );
        expect(lines.join('\n')).not.toContain(slack.value);
      } finally {
        term.stop();
      }
    });
  },
);
