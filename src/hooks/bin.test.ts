/**
 * `cctop hook` as the agents run it: the built `dist/cli.js hook …` in a child process, with the
 * stdin an agent gives it. What the agent sees is all that is asserted: the exit code, and stdout.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PeerServer } from '../runtime/peers.js';
import type { HookMessage } from '../runtime/protocol.js';
import { REPO } from '../test-support/corpus.js';
import { readJournal } from './journal.js';
import { MAX_HOOK_INPUT_BYTES } from './run.js';

const CLI = join(REPO, 'dist', 'cli.js');

let home: string;
let dir: string;
const cleanups: (() => Promise<void> | void)[] = [];
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cctop-hook-bin-'));
  dir = join(home, 'runtime');
});
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  rmSync(home, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run `cctop hook …` with `input` on stdin, closed after it; `open` leaves stdin open for good. */
function hook(args: string[], input: string | Buffer | { open: string }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'hook', ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: home, CCTOP_RUNTIME_DIR: dir },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    // The hook stops reading at its bound and exits: the rest of a large write meets a closed pipe.
    child.stdin.on('error', () => {});
    if (typeof input === 'object' && !Buffer.isBuffer(input)) child.stdin.write(input.open);
    else child.stdin.end(input);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      child.stdin.destroy();
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const quiet = { code: 0, signal: null, stdout: '', stderr: '' };

const permission = JSON.stringify({
  session_id: '257ae998-a8d3-4e35-adba-fb73d79f40f9',
  transcript_path: '/LAB/home/.claude/projects/-LAB-work/257ae998-a8d3-4e35-adba-fb73d79f40f9.jsonl',
  cwd: '/LAB/work',
  permission_mode: 'default',
  hook_event_name: 'PermissionRequest',
  tool_name: 'Bash',
  tool_input: { command: 'touch lab-approved.txt && echo lab-touched', description: 'Run the lab command' },
});

/** A cctop listening in the runtime directory, closed after the test. */
async function running(): Promise<HookMessage[]> {
  const got: HookMessage[] = [];
  const r = await PeerServer.listen({ CCTOP_RUNTIME_DIR: dir }, (m) => {
    if (m.kind === 'hook') got.push(m);
  });
  if (r.kind !== 'listening') throw new Error(r.why);
  cleanups.push(() => r.server.close());
  return got;
}

describe.skipIf(!existsSync(join(REPO, 'dist', 'hooks', 'bin.js')))(
  `cctop hook, run by an agent${existsSync(join(REPO, 'dist', 'hooks', 'bin.js')) ? '' : ' (skipped: the CLI is not built in dist/; npm run build)'}`,
  () => {
    it('exits 0 and prints nothing for an agent it does not know, or a word that is no event', async () => {
      expect(await hook(['emacs', 'Stop'], permission)).toEqual(quiet);
      expect(await hook(['claude', '--help'], permission)).toEqual(quiet);
      expect(await hook([], '')).toEqual(quiet);
      expect(readJournal({ CCTOP_RUNTIME_DIR: dir })).toEqual([]);
    });

    it('exits 0 and prints nothing on garbage, and still records that the event happened', async () => {
      expect(await hook(['claude', 'Stop'], '\u0000\u001b[2J{{{ not json')).toEqual(quiet);
      expect(readJournal({ CCTOP_RUNTIME_DIR: dir })).toEqual([
        expect.objectContaining({ agent: 'claude', event: 'Stop', session: null }),
      ]);
    });

    it('exits 0 on stdin far over its bound, and reads the session from what it kept', async () => {
      const huge = JSON.stringify({
        session_id: 'ses-big',
        cwd: '/w',
        tool_name: 'Read',
        tool_response: 'x'.repeat(4 * MAX_HOOK_INPUT_BYTES),
      });
      expect(await hook(['claude', 'PostToolUse'], huge)).toEqual(quiet);
      expect(readJournal({ CCTOP_RUNTIME_DIR: dir })).toEqual([
        expect.objectContaining({ session: 'ses-big', tool: 'Read' }),
      ]);
    });

    it('ends on its own, with 0, when stdin never closes', async () => {
      const r = await hook(['claude', 'Notification'], {
        open: '{"session_id":"ses-open","notification_type":"idle',
      });
      expect(r).toEqual(quiet);
      expect(readJournal({ CCTOP_RUNTIME_DIR: dir })).toEqual([
        expect.objectContaining({ session: 'ses-open' }),
      ]);
    });

    it('prints the answer an agent requires, and only that', async () => {
      const r = await hook(
        ['cursor', 'beforeSubmitPrompt'],
        JSON.stringify({ conversation_id: 'c1', prompt: 'hi' }),
      );
      expect(r).toEqual({ ...quiet, stdout: '{"continue":true}\n' });
    });

    it('hands the reduced event to a running cctop', async () => {
      const got = await running();
      expect(await hook(['claude', 'PermissionRequest'], permission)).toEqual(quiet);
      await expect.poll(() => got.length).toBe(1);
      expect(got[0]!.event).toMatchObject({
        agent: 'claude',
        event: 'PermissionRequest',
        session: '257ae998-a8d3-4e35-adba-fb73d79f40f9',
        cwd: '/LAB/work',
        tool: 'Bash',
        permissionMode: 'default',
      });
    });

    it('exits 0 beside a cctop that accepts and never reads, and the others still get the event', async () => {
      const got = await running();
      const held: Socket[] = [];
      const deaf = createServer({ pauseOnConnect: true }, (c) => held.push(c));
      await new Promise<void>((resolve) => deaf.listen(join(dir, '999999.sock'), resolve));
      cleanups.push(() => {
        for (const c of held) c.destroy();
        return new Promise<void>((resolve) => deaf.close(() => resolve()));
      });
      expect(await hook(['claude', 'PermissionRequest'], permission)).toEqual(quiet);
      await expect.poll(() => got.length).toBe(1);
    });

    it('hooks that run at once each leave one whole line in the journal', async () => {
      const n = 12;
      const runs = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          hook(['claude', 'PreToolUse'], JSON.stringify({ session_id: `s${i}` })),
        ),
      );
      expect(runs.every((r) => r.code === 0)).toBe(true);
      const sessions = readJournal({ CCTOP_RUNTIME_DIR: dir }).map((e) => e.session);
      expect(sessions.sort()).toEqual(Array.from({ length: n }, (_, i) => `s${i}`).sort());
    });

    it("runs the user's own Codex notifier with the notification, and records the turn's end", async () => {
      const seen = join(home, 'seen.txt');
      const payload = JSON.stringify({
        type: 'agent-turn-complete',
        'thread-id': '019a5e1c-7d2f-7a40-9c1e-3b8f0d6a2e11',
        'turn-id': '1',
        cwd: '/home/dev/src/app',
      });
      const script = "require('node:fs').writeFileSync(process.argv[1], process.argv[2])";
      const r = await hook(['codex', 'notify', '--then', process.execPath, '-e', script, seen, payload], {
        open: '',
      });
      expect(r).toEqual(quiet);
      await expect
        .poll(() => (existsSync(seen) ? readFileSync(seen, 'utf8') : null), { timeout: 10_000 })
        .toBe(payload);
      expect(readJournal({ CCTOP_RUNTIME_DIR: dir })).toEqual([
        expect.objectContaining({
          agent: 'codex',
          event: 'agent-turn-complete',
          session: '019a5e1c-7d2f-7a40-9c1e-3b8f0d6a2e11',
        }),
      ]);
    });
  },
);
