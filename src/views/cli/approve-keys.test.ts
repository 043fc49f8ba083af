/**
 * `cctop approve` for a Codex session, where nothing is held and cctop would press the prompt's key:
 * every way it refuses before any key (the built CLI, a hook journal written as Codex's hooks write
 * it, and no terminal to type into). The keys themselves are lab-tested against the real TUI
 * (`test/lab/approve-codex-keys.test.ts`).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readApprovalJournal } from '../../approvals/store.js';
import { appendJournal } from '../../hooks/journal.js';
import { HOOK_EVENT_VERSION, type HookEvent } from '../../hooks/types.js';
import { runCli } from '../../test-support/cli-run.js';

const SESSION = '01a2529a-f17b-7703-b843-a2136d9d4a3a';

let dir: string;
let env: Record<string, string>;
let runtime: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cctop-approve-keys-'));
  runtime = join(dir, 'run');
  mkdirSync(runtime, { mode: 0o700 });
  mkdirSync(join(dir, 'home'));
  env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(dir, 'home'),
    CCTOP_RUNTIME_DIR: runtime,
    CCTOP_CACHE_DIR: join(dir, 'cache'),
    USER: 'ada',
  };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const heard = (event: string, at: number, input: string | null = null, ppid = 4242): void =>
  appendJournal(runtime, {
    v: HOOK_EVENT_VERSION,
    at,
    agent: 'codex',
    event,
    session: SESSION,
    cwd: '/work',
    notification: null,
    tool: input === null ? null : 'Bash',
    permissionMode: 'default',
    transcript: null,
    input,
    ppid,
  } satisfies HookEvent);

describe('cctop approve for a Codex session (nothing held: its prompt would be answered by its keys)', () => {
  it('refuses a call its hooks say waits when cctop finds no session of it to prove a terminal, and journals the refusal', async () => {
    heard('PreToolUse', 1_000, 'touch lab-escalated.txt');
    heard('PermissionRequest', 1_001, 'touch lab-escalated.txt');
    const r = await runCli(['approve', SESSION.slice(0, 8), 'allow'], env);
    expect([r.code, r.out, r.err]).toEqual([
      4,
      '',
      `cctop: refused: cctop finds no session ${SESSION} in the agents' files, so it cannot prove its terminal\n`,
    ]);
    expect(readApprovalJournal(runtime)).toMatchObject([
      {
        kind: 'refused',
        request: {
          agent: 'codex',
          session: SESSION,
          tool: 'Bash',
          input: 'touch lab-escalated.txt',
          pid: 4242,
        },
        answer: { verdict: { kind: 'allow' }, by: { via: 'cli', who: expect.any(String) } },
      },
    ]);
  });

  it('refuses words for a prompt that asks allow or deny', async () => {
    heard('PermissionRequest', 1_001, 'touch lab-escalated.txt');
    const r = await runCli(['approve', SESSION, '--answer', 'blue'], env);
    expect([r.code, r.err]).toEqual([
      4,
      'cctop: refused: not taken: it asks to allow or deny a tool call, not for words (use allow, or deny --reason TEXT)\n',
    ]);
  });

  it('says nothing waits once its hooks say the call went on, and exits 3', async () => {
    heard('PermissionRequest', 1_001, 'touch lab-escalated.txt');
    heard('PostToolUse', 1_002, 'touch lab-escalated.txt');
    const r = await runCli(['approve', SESSION, 'deny'], env);
    expect([r.code, r.out, r.err]).toEqual([
      3,
      '',
      `cctop: no call of ${SESSION} waits for an answer (its hooks' newest word: PostToolUse (working))\n`,
    ]);
    expect(readApprovalJournal(runtime)).toEqual([]);
  });

  it('refuses a request whose hook names no command: no prompt could be proved to be about it', async () => {
    heard('PermissionRequest', 1_001);
    const r = await runCli(['approve', SESSION, 'allow', '--json'], env);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.out)).toEqual({
      outcome: 'refused',
      words: `refused: the hook of ${SESSION} names no command, so cctop cannot prove its prompt asks about it; answer it in its own terminal`,
    });
  });

  it('leaves a session no hook has told of to the held requests: nothing waits', async () => {
    heard('SessionStart', 1_000);
    const r = await runCli(['approve', '590ab5e8', 'allow'], env);
    expect([r.code, r.err]).toEqual([
      3,
      'cctop: no request of 590ab5e8 waits for an answer (cctop approve --list shows those that do)\n',
    ]);
  });

  it('tells a person whose agents have run no cctop hook how to install them, when nothing waits', async () => {
    const r = await runCli(['approve', '590ab5e8', 'allow'], env);
    expect([r.code, r.err]).toEqual([
      3,
      "cctop: no request of 590ab5e8 waits for an answer (cctop approve --list shows those that do); cctop has heard no agent hooks: `cctop hooks install --approvals` holds Claude Code's requests, and `cctop hooks install --agent codex` lets it answer a Codex prompt in tmux (docs/act.md)\n",
    ]);
  });
});

describe('cctop pending lists a Codex call its hooks say waits, answered by its keys', () => {
  /** The "waiting N s" of a line, which moves with the clock, as N. */
  const steady = (out: string): string => out.replace(/waiting \d+ s/g, 'waiting N s');

  it('one line per call, marked answered by keys, with the command its prompt must show', async () => {
    // This test's own process stands for the agent: it is alive.
    heard('PermissionRequest', Date.now() - 5_000, 'touch lab-escalated.txt', process.pid);
    const r = await runCli(['pending'], env);
    expect([r.code, steady(r.out), r.err]).toEqual([
      0,
      `${SESSION}  codex  permission  waiting N s, answered by keys  Bash touch lab-escalated.txt\n`,
      '',
    ]);
    expect(Number(/waiting (\d+) s/.exec(r.out)?.[1])).toBeGreaterThanOrEqual(5);
  });

  it('as JSON, beside the held requests', async () => {
    heard('PermissionRequest', 1_001, 'touch lab-escalated.txt', process.pid);
    const r = await runCli(['approve', '--list', '--json'], env);
    expect([r.code, JSON.parse(r.out)]).toEqual([
      0,
      {
        requests: [],
        keys: [
          {
            agent: 'codex',
            session: SESSION,
            cwd: '/work',
            tool: 'Bash',
            input: 'touch lab-escalated.txt',
            at: 1_001,
            pid: process.pid,
          },
        ],
      },
    ]);
  });

  it('leaves out a call that went on, and one whose agent has ended', async () => {
    heard('PermissionRequest', 1_001, 'touch lab-escalated.txt', process.pid);
    heard('PostToolUse', 1_002, 'touch lab-escalated.txt', process.pid);
    const ended = spawnSync('true').pid;
    appendJournal(runtime, {
      v: HOOK_EVENT_VERSION,
      at: 1_003,
      agent: 'codex',
      event: 'PermissionRequest',
      session: 'f0e1d2c3-0000-7000-8000-000000000000',
      cwd: '/work',
      notification: null,
      tool: 'Bash',
      permissionMode: 'default',
      transcript: null,
      input: 'rm -rf build',
      ppid: ended,
    } satisfies HookEvent);
    const r = await runCli(['pending'], env);
    expect([r.code, r.out, r.err]).toEqual([0, 'No request waits for an answer.\n', '']);
  });
});
