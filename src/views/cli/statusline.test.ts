import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIGEST_VERSION } from '../../statusline/digest.js';
import { writeDigest } from '../../statusline/refresh.js';
import { lockPath } from '../../statusline/refresh-lock.js';
import { claudeResponse, FakeHome, REPO } from '../../test-support/corpus.js';
import type { Io } from './main.js';
import { UsageError } from './options.js';
import { statuslineCommand } from './statusline.js';

let home: FakeHome;
let out: string[];
let err: string[];
let io: Io;
beforeEach(() => {
  home = new FakeHome();
  out = [];
  err = [];
  io = {
    out: (s) => out.push(String(s)),
    err: (s) => err.push(s),
    isTty: false,
    columns: undefined,
    env: { ...home.env, NO_COLOR: '1' },
  };
});
afterEach(() => home.cleanup());

const stdin = (text: string) => {
  const s = new PassThrough();
  s.end(text);
  return s;
};

/** A digest as a refresh a moment ago would have left it, so that no refresh starts. */
function freshDigest(todayUsd: number) {
  const now = Date.now();
  writeDigest(home.env.CCTOP_CACHE_DIR!, {
    version: DIGEST_VERSION,
    builtAtMs: now,
    today: { startMs: now - 1000, endMs: now + 3_600_000, usd: todayUsd },
    sessions: {},
    block: null,
    budget: null,
  });
}

const settings = () => join(home.dir, '.claude', 'settings.json');

describe('cctop statusline', () => {
  it('prints one line from what Claude Code sent and what the last refresh kept', async () => {
    freshDigest(45.1);
    const input = JSON.stringify({ model: { id: 'claude-opus-4-6' }, cost: { total_cost_usd: 3.2 } });
    expect(await statuslineCommand([], io, stdin(input))).toBe(0);
    expect(out).toEqual(['opus-4.6 · $3.20 · today $45.10']);
  });

  it('prints a line and exits 0 on input that is not JSON', async () => {
    freshDigest(2);
    expect(await statuslineCommand([], io, stdin('\u001b]52;c;aGk=\u0007{{{'))).toBe(0);
    expect(out).toEqual(['today $2.00']);
  });

  it('says it knows nothing, and exits 0, with neither input nor a digest', async () => {
    home.write(
      lockPath(home.env.CCTOP_CACHE_DIR!),
      JSON.stringify({ pid: process.pid, token: 'held', atMs: Date.now() }),
    );
    expect(await statuslineCommand([], io, stdin(''))).toBe(0);
    expect(out).toEqual(['cctop: no session']);
  });

  it('lets no escape sequence from stdin reach the terminal', async () => {
    freshDigest(0);
    const input = JSON.stringify({ model: { id: 'opus\u001b]0;owned\u0007\u001b[2J\u009b1m' } });
    await statuslineCommand(
      [],
      { ...io, env: { ...io.env, NO_COLOR: undefined, FORCE_COLOR: '1' } },
      stdin(input),
    );
    expect(out).toHaveLength(1);
    expect(out[0]).not.toMatch(/[\u0007\u009b]|\u001b\]|\u001b\[2J/);
  });

  it('shows the parts --format names, and refuses one that is not a part', async () => {
    freshDigest(7);
    await statuslineCommand(
      ['--format', 'today,model'],
      io,
      stdin(JSON.stringify({ model: { id: 'claude-haiku-4-5' } })),
    );
    expect(out).toEqual(['today $7.00 · haiku-4.5']);
    await expect(statuslineCommand(['--format', 'modle'], io, stdin(''))).rejects.toThrow(UsageError);
  });

  it('refuses words and flags that do not belong together', async () => {
    await expect(statuslineCommand(['instal'], io)).rejects.toThrow(/expected install, remove, status/);
    await expect(statuslineCommand(['--replace'], io)).rejects.toThrow(/--replace is for/);
    await expect(statuslineCommand(['status', '--replace'], io)).rejects.toThrow(/--replace is for/);
    await expect(statuslineCommand(['install', '--format', 'model'], io)).rejects.toThrow(/--format is for/);
  });
});

describe('cctop statusline install, status and remove', () => {
  it("put cctop's status line into Claude Code's settings, report it, and take it out again", async () => {
    home.write(settings(), '{\n  "model": "opus"\n}\n');
    expect(await statuslineCommand(['install'], io)).toBe(0);
    expect(out.at(-1)).toMatch(/cctop's status line is in .*settings\.json/);
    const command = JSON.parse(readFileSync(settings(), 'utf8')).statusLine.command as string;
    expect(command).toMatch(/ statusline$/);
    expect(await statuslineCommand(['status'], io)).toBe(0);
    expect(out.at(-1)).toContain("the status line is cctop's");
    expect(await statuslineCommand(['remove'], io)).toBe(0);
    expect(readFileSync(settings(), 'utf8')).toBe('{\n  "model": "opus"\n}\n');
  });

  it('refuses to replace another tool’s status line without --replace, and puts it back on remove', async () => {
    const original = JSON.stringify(
      { statusLine: { type: 'command', command: 'bun x ccusage statusline' } },
      null,
      2,
    );
    home.write(settings(), original);
    expect(await statuslineCommand(['install'], io)).toBe(1);
    expect(err.at(-1)).toMatch(
      /already has a status line \(bun x ccusage statusline\); run cctop statusline install --replace/,
    );
    expect(readFileSync(settings(), 'utf8')).toBe(original);
    expect(await statuslineCommand(['install', '--replace'], io)).toBe(0);
    expect(await statuslineCommand(['remove'], io)).toBe(0);
    expect(out.at(-1)).toContain('the one it replaced is back (bun x ccusage statusline)');
    expect(readFileSync(settings(), 'utf8')).toBe(original);
  });

  it('refuses a settings file that does not read, naming it and its line, and writes nothing', async () => {
    const broken = '{\n  "model": "opus"\n  "theme": "dark"\n}';
    home.write(settings(), broken);
    expect(await statuslineCommand(['install'], io)).toBe(1);
    expect(err.at(-1)).toMatch(/settings\.json:3:3: not valid JSON/);
    expect(readFileSync(settings(), 'utf8')).toBe(broken);
    expect(readdirSync(join(home.dir, '.claude'))).toEqual(['settings.json']);
  });

  it('says when the status line runs a cctop that is gone', async () => {
    home.write(
      settings(),
      JSON.stringify({ statusLine: { type: 'command', command: '/gone/cctop statusline' } }),
    );
    await statuslineCommand(['status'], io);
    expect(out.join('\n')).toContain(
      'It runs /gone/cctop, which is gone: run cctop statusline install to repoint it.',
    );
  });
});

/** One `statusline` run of the build, fed `input`. */
function run(
  bin: string,
  env: Record<string, string>,
  input: string,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [bin], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let text = '';
    c.stdout.on('data', (d) => {
      text += d;
    });
    c.stdin.end(input);
    c.on('close', (code) => resolve({ code, out: text }));
  });
}

describe('many status lines at once, on the build', () => {
  const bin = join(REPO, 'dist', 'statusline', 'bin.js');
  it.skipIf(!existsSync(bin))(
    `start one refresh between them, which leaves the digest they read next${existsSync(bin) ? '' : ' (skipped: the CLI is not built in dist/; npm run build)'}`,
    async () => {
      home.write(home.claudeFile('-w', 's.jsonl'), claudeResponse('1', 10, new Date().toISOString(), 5000));
      const input = JSON.stringify({ session_id: 's', transcript_path: home.claudeFile('-w', 's.jsonl') });
      const runs = await Promise.all(Array.from({ length: 20 }, () => run(bin, home.env, input)));
      for (const r of runs) {
        expect(r.code).toBe(0);
        // What the transcript's tail tells, or, for a run that started after the refresh was done
        // (a loaded machine starts processes slowly), the digest's figures too.
        expect(r.out).toMatch(
          /^sonnet-4\.5 · (\$0\.\d\d · )?ctx 3%( · today \$0\.\d\d · block \$0\.\d\d \S+ left)?\n$/,
        );
      }
      const cache = home.env.CCTOP_CACHE_DIR!;
      for (let i = 0; i < 600 && existsSync(lockPath(cache)); i++)
        await new Promise((r) => setTimeout(r, 50));
      const log = readFileSync(join(cache, 'statusline-refresh.log'), 'utf8').trim().split('\n');
      expect(log).toHaveLength(1);
      expect(log[0]).toMatch(/pid \d+: (built|patched|kept), 1 sessions/);
      const next = await run(bin, home.env, input);
      // The request just made opened a 5-hour block: its cost and time left follow today's.
      expect(next.out).toMatch(
        /^sonnet-4\.5 · \$0\.\d\d · ctx 3% · today \$0\.\d\d · block \$0\.\d\d \S+ left\n$/,
      );
    },
  );
});

describe('a refresh started late, on the build', () => {
  const script = join(REPO, 'dist', 'statusline', 'refresh-main.js');
  const refreshOnce = (seen: string) =>
    new Promise<number | null>((resolve) => {
      const c = spawn(process.execPath, [script, 'token-of-test', seen], {
        env: { PATH: process.env.PATH ?? '', ...home.env },
        stdio: 'ignore',
      });
      c.on('close', resolve);
    });
  const logLines = () => {
    const path = join(home.env.CCTOP_CACHE_DIR!, 'statusline-refresh.log');
    return existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').length : 0;
  };

  it.skipIf(!existsSync(script))(
    `does nothing when another refresh wrote a digest after its status line looked, and runs when none did${existsSync(script) ? '' : ' (skipped: the CLI is not built in dist/; npm run build)'}`,
    async () => {
      home.write(home.claudeFile('-w', 's.jsonl'), claudeResponse('1', 10, new Date().toISOString(), 5000));
      freshDigest(1);
      // Its status line saw no digest; one has been written since: this refresh would repeat it.
      expect(await refreshOnce('none')).toBe(0);
      expect(logLines()).toBe(0);
      // Its status line saw the digest there is now: it refreshes.
      const seen = JSON.parse(
        readFileSync(join(home.env.CCTOP_CACHE_DIR!, 'statusline.json'), 'utf8'),
      ).builtAtMs;
      expect(await refreshOnce(String(seen))).toBe(0);
      expect(logLines()).toBe(1);
    },
  );
});
