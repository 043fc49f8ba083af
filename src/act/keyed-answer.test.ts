/**
 * The shared keyed answer (`keyed-answer.ts`) against a real tmux pane: a stand-in for Codex (a shell
 * whose program name is `codex`, so the process table takes it for the agent) prints a prompt as
 * Codex 0.169.0 draws it, captured in the lab, and waits for one key. The proof reads the pane's real
 * screen; each refusal presses nothing, and the one accepted key reaches the pane.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readApprovalJournal } from '../approvals/store.js';
import { HOOK_EVENT_VERSION, type HookEvent } from '../hooks/types.js';
import type { SessionDoc } from '../model/document.js';
import { unless, WHY } from '../test-support/skips.js';
import { HAVE_TMUX, Terminal } from '../test-support/terminal.js';
import { answerKeyed, type KeyedIo } from './keyed-answer.js';

const SESSION = '01a2529a-f17b-7703-b843-a2136d9d4a3a';
const CALL = 'touch lab-escalated.txt';
const ADA = { via: 'table', who: 'ada', from: 'here' } as const;

/** The bottom of a pane with Codex 0.169.0's prompt for `command` up, as captured in the lab. */
const promptFor = (command: string): string =>
  [
    '  >_ OpenAI Codex (v0.169.0)',
    '',
    `• Running ${command}`,
    '',
    '  Would you like to run the following command?',
    '',
    '  Reason: The lab asks to write a file outside the sandbox.',
    '',
    `  $ ${command}`,
    '',
    '› 1. Yes, proceed (y)',
    "  2. Yes, and don't ask again for commands that start with `touch` (p)",
    '  3. No, and tell Codex what to do differently (esc)',
    '',
    '  Press enter to confirm or esc to cancel',
    '',
  ].join('\n');

/** The same pane with no prompt: Codex at work. */
const WORKING = [
  '  >_ OpenAI Codex (v0.169.0)',
  '• Working (5s • esc to interrupt)',
  '',
  '› Ask Codex to do anything',
].join('\n');

/** Codex's hook heard a permission request for `input`, from process `ppid`. */
const asked = (input: string | null): HookEvent => ({
  v: HOOK_EVENT_VERSION,
  at: 1_000,
  agent: 'codex',
  event: 'PermissionRequest',
  session: SESSION,
  cwd: '/work',
  notification: null,
  tool: 'Bash',
  permissionMode: 'default',
  transcript: null,
  input,
  ppid: 4242,
});

/** How long a step waits for the pane to show what it must; the pane draws in milliseconds. */
const PATIENCE_MS = 10_000;

/**
 * The tmux servers' own socket directory: the proof asks every server of the user's socket directory
 * for its panes, and a shared machine's may hold thousands of stale sockets from other runs.
 */
const tmuxDir = mkdtempSync(join(tmpdir(), 'cctop-keyed-tmux-'));
process.env.TMUX_TMPDIR = tmuxDir;
const servers: Terminal[] = [];
afterAll(() => rmSync(tmuxDir, { recursive: true, force: true }));

let dir: string;
let runtime: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cctop-keyed-'));
  runtime = join(dir, 'run');
  mkdirSync(runtime, { mode: 0o700 });
});
afterEach(() => {
  for (const t of servers.splice(0)) t.stop();
  rmSync(dir, { recursive: true, force: true });
});

const env = (): Record<string, string> => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: dir,
  CCTOP_RUNTIME_DIR: runtime,
  TMUX_TMPDIR: tmuxDir,
});

/** A Codex session record of process `pid` (only what the proof reads). */
const sessionOf = (pid: number): SessionDoc =>
  ({ provider: 'codex', id: SESSION, running: true, process: { pids: [pid] } }) as unknown as SessionDoc;

const io = (events: HookEvent[], s: SessionDoc | null): KeyedIo => ({
  env: env(),
  runtime,
  events,
  find: async (id) => (s !== null && id === s.id ? s : null),
  keys: { closeMs: PATIENCE_MS },
});

let serial = 0;

/**
 * A pane showing `screen`, run by a stand-in for Codex that, given one key, clears the prompt and
 * says which key it got. Returns the pane's terminal and the stand-in's pid.
 */
async function paneShowing(screen: string): Promise<{ t: Terminal; pid: number }> {
  writeFileSync(join(dir, 'screen.txt'), `${screen}\n`);
  // `exec -a codex`: the pane's process is named as Codex is, in its own directory (no twin there).
  writeFileSync(
    join(dir, 'codex.sh'),
    `cd '${dir}'\ncat screen.txt\nexec -a codex bash -c 'read -rsn1 k; clear; printf "got %q\\n" "$k"; sleep 600; true'\n`,
  );
  serial += 1;
  const t = new Terminal(`cctop-keyed-${process.pid}-${serial}`, 'w', PATIENCE_MS);
  servers.push(t);
  t.open('w', `bash '${join(dir, 'codex.sh')}'`, 150, 30);
  await t.until('the prompt', (lines) => lines.join('\n').includes(screen.split('\n')[1] ?? ''));
  const pid = Number(t.tmux('display-message', '-p', '-t', 'w', '#{pane_pid}').stdout.trim());
  // The pane's shell has become the stand-in once it names itself so.
  await t.until('the stand-in', () => {
    const r = t.tmux('display-message', '-p', '-t', 'w', '#{pane_current_command}');
    return r.stdout.trim() === 'codex' || r.stdout.trim() === 'bash';
  });
  return { t, pid };
}

describe.skipIf(!HAVE_TMUX)(
  `a keyed answer, proved on a real tmux pane's screen${unless(HAVE_TMUX, WHY.tmux)}`,
  () => {
    it('presses allow once the screen shows the prompt for the call the hooks say waits, and journals it', async () => {
      const { t, pid } = await paneShowing(promptFor(CALL));
      const o = await answerKeyed(
        io([asked(CALL)], sessionOf(pid)),
        SESSION.slice(0, 8),
        { kind: 'allow' },
        ADA,
      );
      expect(o).toMatchObject({
        kind: 'pressed',
        verdict: 'allow',
        key: 'y',
        label: 'Yes, proceed',
        closed: true,
      });
      await t.until('the key it got', (lines) => lines.includes('got y'));
      expect(readApprovalJournal(runtime)).toMatchObject([
        { kind: 'typed', key: 'y', closed: true, request: { session: SESSION, input: CALL } },
      ]);
    });

    it("denies with the prompt's own deny key, which ends the turn; a reason is said to be undelivered", async () => {
      const { t, pid } = await paneShowing(promptFor(CALL));
      const o = await answerKeyed(
        io([asked(CALL)], sessionOf(pid)),
        SESSION,
        { kind: 'deny', reason: 'no' },
        ADA,
      );
      expect(o).toMatchObject({
        kind: 'pressed',
        verdict: 'deny',
        key: 'Escape',
        closed: true,
        endsTurn: true,
        reasonDropped: true,
      });
      await t.until('the key it got', (lines) => lines.includes("got $'\\E'"));
    });

    it('presses nothing when the prompt on the screen asks about another command', async () => {
      const { t, pid } = await paneShowing(promptFor('rm -rf /tmp/elsewhere'));
      const o = await answerKeyed(io([asked(CALL)], sessionOf(pid)), SESSION, { kind: 'allow' }, ADA);
      expect(o).toMatchObject({
        kind: 'refused',
        words:
          'the command its prompt shows is not the call cctop shows waiting; answer it in its own terminal, or look again with cctop pending',
      });
      expect(t.screen().some((l) => l.startsWith('got'))).toBe(false);
      expect(readApprovalJournal(runtime).map((l) => l.kind)).toEqual(['refused']);
    });

    it('presses nothing when no prompt is on the screen', async () => {
      const { t, pid } = await paneShowing(WORKING);
      const o = await answerKeyed(
        io([asked(CALL)], sessionOf(pid)),
        SESSION,
        { kind: 'deny', reason: null },
        ADA,
      );
      expect(o.kind).toBe('refused');
      expect(t.screen().some((l) => l.startsWith('got'))).toBe(false);
    });
  },
);

describe('a keyed answer refused before any screen is read', () => {
  it('refuses a session whose agent runs in no tmux pane', async () => {
    // A stand-in for Codex started outside tmux, in its own directory.
    const codex = spawn('sleep', ['600'], { argv0: 'codex', cwd: dir, stdio: 'ignore' });
    const o = await answerKeyed(io([asked(CALL)], sessionOf(codex.pid!)), SESSION, { kind: 'allow' }, ADA);
    codex.kill();
    expect(o).toMatchObject({
      kind: 'refused',
      words:
        'its terminal is not a tmux pane, and cctop did not start it; start the agent inside tmux, or with cctop run',
    });
    expect(readApprovalJournal(runtime).map((l) => l.kind)).toEqual(['refused']);
  });

  it('refuses a session cctop finds no record of', async () => {
    const o = await answerKeyed(io([asked(CALL)], null), SESSION, { kind: 'allow' }, ADA);
    expect(o).toMatchObject({
      kind: 'refused',
      words: `cctop finds no session ${SESSION} in the agents' files, so it cannot prove its terminal`,
    });
  });

  it('says which word of the hooks stands when no call waits, or the hook named no command', async () => {
    const went = { ...asked(CALL), event: 'PostToolUse', at: 2_000 };
    expect(await answerKeyed(io([asked(CALL), went], null), SESSION, { kind: 'allow' }, ADA)).toMatchObject({
      kind: 'not-waiting',
      session: SESSION,
    });
    expect(await answerKeyed(io([asked(null)], null), SESSION, { kind: 'allow' }, ADA)).toEqual({
      kind: 'unnamed',
      session: SESSION,
    });
    expect(await answerKeyed(io([], null), SESSION, { kind: 'allow' }, ADA)).toEqual({ kind: 'none' });
    expect(readApprovalJournal(runtime)).toEqual([]);
  });
});
