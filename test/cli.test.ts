/**
 * The `cctop` command as a user runs it: the built `dist/cli.js` in a child process, against fake
 * homes. `npm test` builds first.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionDocument } from '../src/model/document.js';
import { CLI, type Ran, runCli } from '../src/test-support/cli-run.js';
import { claudeResponse, FakeHome, jsonl } from '../src/test-support/corpus.js';
import { addClaude, addCodex, labTranscript, sessionIdOf } from '../src/test-support/owned.js';
import { unless, WHY } from '../src/test-support/skips.js';
import { HAVE_TMUX, Terminal } from '../src/test-support/terminal.js';
import { width } from '../src/views/cli/format.js';

function cctop(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function cctopAsync(args: string[], env: Record<string, string>): Promise<Ran> {
  return runCli(args, { PATH: process.env.PATH ?? '', ...env });
}

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

describe('cctop on a machine with no agent history', () => {
  it('answers in one line naming the places it looked, not with an empty table', () => {
    const r = cctop(['--list'], home.env);
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n')).toHaveLength(1);
    expect(r.out).toContain('No agent sessions found');
    expect(r.out).toContain('~/.claude');
    expect(r.out).toContain('~/.codex');
  });

  it('--json still prints a valid, empty session document', () => {
    const doc = JSON.parse(cctop(['--json'], home.env).out) as SessionDocument;
    expect(doc.version).toBe(1);
    expect(doc.sessions).toEqual([]);
  });
});

describe('cctop --demo', () => {
  it('reads the bundled sample history of several harnesses, with every state a user meets', () => {
    const doc = JSON.parse(cctop(['--demo', '--json'], home.env).out) as SessionDocument;
    expect(new Set(doc.sessions.map((s) => s.provider))).toEqual(new Set(['claude', 'codex']));
    const states = new Set(doc.sessions.map((s) => s.state));
    expect(states).toContain('waiting');
    expect(states).toContain('error');
    expect(states).toContain('idle');
    // The newest record is shifted to a couple of minutes ago, so the demo reads as today's work.
    const newest = Math.max(...doc.sessions.map((s) => Date.parse(s.lastActiveAt ?? '')));
    expect(Date.now() - newest).toBeLessThan(10 * 60_000);
    expect(doc.sessions.every((s) => s.cost.usd !== null && s.cost.usd > 0)).toBe(true);
  });

  it('--list fits an 80-column terminal and has no colour when piped', () => {
    const r = cctop(['--demo', '--list'], home.env);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(8);
    for (const line of lines) expect(width(line), line).toBeLessThanOrEqual(80);
    expect(r.out).not.toContain('\u001b[');
    expect(r.out).toContain('Claude Code');
    expect(r.out).toContain('Codex');
  });

  it('FORCE_COLOR colours the state marks', () => {
    expect(cctop(['--demo', '--list'], { ...home.env, FORCE_COLOR: '1' }).out).toContain('\u001b[');
  });

  it('--plan max shows Claude usage as included, still with its retail estimate, and leaves Codex priced', () => {
    const doc = JSON.parse(cctop(['--demo', '--json', '--plan', 'max'], home.env).out) as SessionDocument;
    const claude = doc.sessions.filter((s) => s.provider === 'claude');
    const codex = doc.sessions.filter((s) => s.provider === 'codex');
    expect(claude.every((s) => s.cost.included && s.cost.usd !== null)).toBe(true);
    expect(codex.every((s) => !s.cost.included)).toBe(true);
    expect(cctop(['--demo', '--list', '--plan', 'max'], home.env).out).toContain('incl');
  });

  it('--provider keeps only the harnesses asked for', () => {
    const doc = JSON.parse(
      cctop(['--demo', '--json', '--provider', 'codex'], home.env).out,
    ) as SessionDocument;
    expect(doc.sessions.length).toBeGreaterThan(0);
    expect(doc.sessions.every((s) => s.provider === 'codex')).toBe(true);
  });
});

describe('arguments', () => {
  it('an unknown flag is a usage error with exit code 2', () => {
    const r = cctop(['--frobnicate'], home.env);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--frobnicate');
  });

  it('a bad plan names the choices', () => {
    const r = cctop(['--json', '--plan', 'gold'], home.env);
    expect(r.code).toBe(2);
    expect(r.err).toContain('retail, max or included');
  });
});

describe('cctop on transcripts the real CLIs wrote (the lab’s recordings)', () => {
  it('--json prints the session document with every field the schema promises', () => {
    addClaude(home.dir, labTranscript('claude', 'call'));
    const rollout = addCodex(home.dir, labTranscript('codex', 'call'));
    const doc = JSON.parse(cctop(['--json'], home.env).out) as SessionDocument;
    expect(doc.sessions).toHaveLength(2);
    for (const s of doc.sessions) {
      expect(Object.keys(s)).toEqual(
        expect.arrayContaining([
          'provider',
          'id',
          'file',
          'project',
          'title',
          'model',
          'models',
          'startedAt',
          'lastActiveAt',
          'state',
          'running',
          'tokens',
          'cost',
          'context',
          'tools',
          'compactions',
        ]),
      );
      // No agent process runs these copied transcripts (Linux and macOS can look; elsewhere it is unknown).
      if (process.platform === 'linux') expect(s.running).toBe(false);
      expect(s.cost.byHour?.usd).toHaveLength(48);
      expect(s.cost.byDay?.usd).toHaveLength(31);
    }
    const codex = doc.sessions.find((s) => s.provider === 'codex')!;
    expect(codex.tokens.cacheWrite).toBeNull();
    expect(codex.id).toBe(sessionIdOf(rollout));
    expect(codex.id).toBe('01a2337e-7431-7350-9b6b-d8fb1359c4ab');
  });

  it('doctor lists the roots, the sessions found and the lines it could not read', () => {
    addClaude(home.dir, labTranscript('claude', 'text'));
    home.write(home.claudeFile('-broken', 'b.jsonl'), 'this is not json\n{"also":\n');
    const r = cctop(['doctor'], home.env);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Claude Code: 2 sessions');
    expect(r.out).toContain('~/.claude');
    expect(r.out).toContain('Lines that are not JSON');
    expect(r.out).toContain('b.jsonl');
  });

  it('an unpriced model shows as no price (─), is null in JSON, and doctor names it', () => {
    home.write(
      home.claudeFile('-w', 'x.jsonl'),
      jsonl({
        type: 'assistant',
        sessionId: 'x',
        timestamp: '2026-11-29T10:00:00Z',
        requestId: 'r',
        message: {
          id: 'm',
          role: 'assistant',
          model: 'claude-imaginary-9',
          content: [],
          usage: { input_tokens: 5, output_tokens: 5 },
        },
      }),
    );
    const doc = JSON.parse(cctop(['--json'], home.env).out) as SessionDocument;
    expect(doc.sessions[0]!.cost.usd).toBeNull();
    expect(cctop(['--list'], home.env).out).toMatch(/ ─ +10 /);
    expect(cctop(['doctor'], home.env).out).toContain('claude-imaginary-9');
  });
});

describe('a warm answer', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  const noClock = (out: string) => out.replace(/"generatedAt": ?"[^"]*"/g, '');

  it('cctop --json, --list and daily --json with nothing changed print what the index printed, without opening it', () => {
    // Mid-minute, so LAST reads the same in both runs.
    const at = new Date(Date.now() - 5.5 * 60_000).toISOString();
    home.write(
      home.claudeFile('-w', 'a.jsonl'),
      claudeResponse('m1', 40, at, 7) + claudeResponse('m2', 9, at, 3),
    );
    const json = cctop(['--json'], home.env);
    const daily = cctop(['daily', '--json'], home.env);
    const list = cctop(['--list'], home.env);
    expect(json.code).toBe(0);
    const cache = join(home.dir, '.cache', 'cctop');
    expect(readdirSync(cache).filter((n) => n.startsWith('warm-') && n.endsWith('.snap'))).toHaveLength(1);
    expect(readdirSync(cache)).toContain('warm-default.doc');
    // An index that cannot be opened would be rebuilt, and said so: a warm answer never opens it.
    writeFileSync(join(cache, 'index.sqlite'), 'not a database');
    const warm = cctop(['--json'], home.env);
    expect(warm.err).toBe('');
    expect(noClock(warm.out)).toBe(noClock(json.out));
    const warmDaily = cctop(['daily', '--json'], home.env);
    expect(warmDaily.err).toBe('');
    expect(noClock(warmDaily.out)).toBe(noClock(daily.out));
    const warmList = cctop(['--list'], home.env);
    expect(warmList.err).toBe('');
    expect(warmList.out).toBe(list.out);
    expect(warmList.out).toContain('5m');
    // A new transcript in the folder: through the index again (which finds it damaged and says so).
    home.write(home.claudeFile('-w', 'b.jsonl'), claudeResponse('m3', 5, at, 1));
    const moved = cctop(['--json'], home.env);
    expect(moved.err).toMatch(/index/);
    expect((JSON.parse(moved.out) as SessionDocument).sessions.length).toBeGreaterThan(0);
  });
});

describe('cctop pricing update', () => {
  it('saves a newer catalogue and every later run prices with it; a failed fetch keeps the bundled one', async () => {
    home.write(
      home.claudeFile('-w', 'x.jsonl'),
      jsonl({
        type: 'assistant',
        sessionId: 'x',
        timestamp: '2026-11-29T10:00:00Z',
        requestId: 'r',
        message: {
          id: 'm',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [],
          usage: { input_tokens: 1_000_000, output_tokens: 0 },
        },
      }),
    );
    const before = (JSON.parse(cctop(['--json'], home.env).out) as SessionDocument).sessions[0]!.cost.usd;
    // Sonnet 4.5 has a long-context tier: a 1M-token prompt is priced at $6/M.
    expect(before).toBeCloseTo(6, 6);
    const catalogue = [
      {
        id: 'anthropic',
        name: 'Anthropic',
        api_pattern: 'https://api\\.anthropic\\.com',
        model_match: { starts_with: 'claude' },
        models: [
          {
            id: 'claude-sonnet-4-5',
            match: { starts_with: 'claude-sonnet-4-5' },
            prices: { input_mtok: 2, output_mtok: 10 },
          },
        ],
      },
    ];
    let fail = false;
    const server = createServer((_req, res) => {
      res.statusCode = fail ? 500 : 200;
      res.end(fail ? 'nope' : JSON.stringify(catalogue));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/data.json`;
      const up = await cctopAsync(['pricing', 'update'], { ...home.env, CCTOP_PRICES_URL: url });
      expect(up.code, up.err).toBe(0);
      const after = (JSON.parse(cctop(['--json'], home.env).out) as SessionDocument).sessions[0]!.cost.usd;
      expect(after).toBeCloseTo(2, 6);
      expect(cctop(['doctor'], home.env).out).toContain('updated catalogue');
      fail = true;
      const down = await cctopAsync(['pricing', 'update'], { ...home.env, CCTOP_PRICES_URL: url });
      expect(down.code).toBe(1);
      expect(down.err).toContain('HTTP 500');
      expect(
        (JSON.parse(cctop(['--json'], home.env).out) as SessionDocument).sessions[0]!.cost.usd,
      ).toBeCloseTo(2, 6);
    } finally {
      server.close();
    }
  });
});

describe('what a person types gets an answer that says what to type instead', () => {
  const DAY_MS = 86_400_000;
  /** `YYYY-MM-DD` in UTC, the fake home's time zone. */
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

  it('a date the calendar does not have is refused, naming it with an example of one it has', () => {
    for (const [flag, bad] of [
      ['--since', '2026-13-45'],
      ['--since', '2026-02-30'],
      ['--until', '20260230'],
    ] as const) {
      const r = cctop(['--list', flag, bad], home.env);
      expect(r.code).toBe(2);
      expect(r.err.trim()).toBe(
        `cctop: ${flag} ${bad} is not a date (expected YYYY-MM-DD, e.g. ${day(Date.now())})`,
      );
    }
  });

  it('the date forms accepted before still are, leap days included', () => {
    for (const since of ['2026-11-29', '20261129', '2024-02-29'])
      expect(cctop(['--list', '--since', since], home.env).code).toBe(0);
  });

  it('a date flag with no date says which format it wants, not what the parser missed', () => {
    for (const args of [
      ['--list', '--since'],
      ['--since', '--list'],
    ]) {
      const r = cctop(args, home.env);
      expect(r.code).toBe(2);
      expect(r.err.trim()).toBe(`cctop: --since needs a date (YYYY-MM-DD, e.g. ${day(Date.now())})`);
    }
  });

  it('a filter that matches nothing says so, and how many sessions there are without it', () => {
    const all = (JSON.parse(cctop(['--demo', '--json'], home.env).out) as SessionDocument).sessions.length;
    expect(cctop(['--demo', '--list', '--provider', 'gemini'], home.env).out.trim()).toBe(
      `No session matches --harness gemini (${all} sessions without this filter).`,
    );
    const tomorrow = day(Date.now() + DAY_MS);
    expect(
      cctop(['--demo', '--list', '--since', tomorrow, '--provider', 'claude'], home.env).out.trim(),
    ).toBe(
      `No session matches --harness claude --since ${tomorrow} (${all} sessions without these filters).`,
    );
  });

  it('chat and report with a filter that matches nothing say so too, not "no sessions found"', () => {
    const all = (JSON.parse(cctop(['--demo', '--json'], home.env).out) as SessionDocument).sessions.length;
    for (const command of ['chat', 'report']) {
      const r = cctop(['--demo', command, '--provider', 'gemini'], home.env);
      expect(r.code).toBe(2);
      expect(r.err.trim()).toBe(
        `cctop: No session matches --harness gemini (${all} sessions without this filter).`,
      );
    }
  });

  it('options go anywhere on the line: cctop --demo serve serves the demo', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [CLI, '--demo', 'serve', '--port', '0', '--no-token'], {
      env: { PATH: process.env.PATH ?? '', ...home.env },
    });
    try {
      const link = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d) => {
          out += d;
          const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
          if (m) resolve(m[0]);
        });
        child.on('exit', (code) => reject(new Error(`cctop --demo serve exited with ${code}`)));
      });
      const doc = (await (await fetch(`${link}/api/sessions`)).json()) as SessionDocument;
      expect(doc.sessions.length).toBeGreaterThan(0);
    } finally {
      child.kill();
    }
  });

  it('every command has its own help: its usage, what it does, its options', () => {
    for (const [command, args] of [
      ['chat', ['help', 'chat']],
      ['chat', ['chat', '--help']],
      ['report', ['report', '--help']],
      ['report', ['--help', 'report']],
      ['doctor', ['doctor', '-h']],
      ['pricing', ['help', 'pricing']],
      ['serve', ['help', 'serve']],
      ['exec', ['help', 'exec']],
    ] as const) {
      const r = cctop([...args], home.env);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.out, args.join(' ')).toMatch(new RegExp(`^cctop ${command}`));
      expect(r.out, args.join(' ')).toMatch(new RegExp(`Usage:\\s+cctop ${command}`));
    }
    expect(cctop(['help'], home.env).out).toContain('Options go anywhere on the line');
  });

  it.skipIf(!HAVE_TMUX)(
    `the live table says which filter matched nothing, and refuses a day range it would ignore${unless(HAVE_TMUX, WHY.tmux)}`,
    async () => {
      // A server of its own for each run: a new session on a socket whose server is still shutting
      // down can fail to start, and the run then waits out its deadline on an empty screen.
      let runs = 0;
      const run = async (args: string, wanted: string): Promise<string> => {
        const term = new Terminal(`cctop-typed-${process.pid}-${runs++}`, 'live', 30_000);
        term.cctop(
          home.dir,
          { ...home.env, PATH: process.env.PATH ?? '', TERM: 'xterm-256color' },
          args,
          160,
          30,
        );
        try {
          const deadline = Date.now() + term.patienceMs;
          let screen = '';
          while (Date.now() < deadline && !screen.includes(wanted)) {
            await new Promise((r) => setTimeout(r, 150));
            screen = term.screen().join('\n');
          }
          return screen;
        } finally {
          term.stop();
        }
      };
      const all = (JSON.parse(cctop(['--demo', '--json'], home.env).out) as SessionDocument).sessions.length;
      const empty = `no session matches --harness gemini (${all} sessions without this filter)`;
      expect(await run('--demo --provider gemini', empty)).toContain(empty);
      const refused = 'cctop: the live table shows every day; --since and --until are for --list';
      expect(await run('--demo --since 2026-11-29', refused)).toContain(refused);
    },
  );

  it('a mistyped command is answered with the command it is closest to', () => {
    const r = cctop(['reprot'], home.env);
    expect(r.code).toBe(2);
    expect(r.err.trim()).toBe('cctop: unknown command reprot, did you mean report? (try cctop --help)');
    expect(cctop(['list'], home.env).err).toContain('did you mean --list?');
    expect(cctop(['frobnicate'], home.env).err.trim()).toBe(
      'cctop: unknown command frobnicate (try cctop --help)',
    );
  });

  it('an unknown flag gets a message of ours that points at that command’s help', () => {
    const r = cctop(['chat', '--frobnicate'], home.env);
    expect(r.code).toBe(2);
    expect(r.err.trim()).toBe('cctop: unknown option --frobnicate (try cctop chat --help)');
    expect(cctop(['--list', '--provder', 'claude'], home.env).err.trim()).toBe(
      'cctop: unknown option --provder, did you mean --provider? (try cctop --help)',
    );
    expect(cctop(['serve', '--since', '2026-11-29'], home.env).err.trim()).toBe(
      'cctop: unknown option --since (try cctop serve --help)',
    );
  });
});
