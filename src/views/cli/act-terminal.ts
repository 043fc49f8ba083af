/**
 * `cctop send`, `cctop stop`, `cctop resume` and `cctop wait`: acting on a session through its own
 * terminal, however it was started.
 *
 * `send` and `stop` type into the tmux pane proven to hold the session's agent (`act/pane.ts`), and
 * refuse, saying why and what would make it possible, when no pane is proven: a session cctop cannot
 * tie to one process of its own harness (two agents of a kind in one directory and no session id on
 * either command line), a process of another user, a terminal that is not tmux. `resume` opens the
 * harness's own resume command in a new tmux window; `wait` follows the live picture (refreshes and
 * hook events) until the session reaches a state.
 *
 * Not here: answering an agent's questions (the approvals), or deciding states (`live/`).
 */
import { interrupt, typeInto } from '../../act/session-pane.js';
import { checkText, DEFAULT_WAIT_S } from '../../act/typing.js';
import { findSession } from '../../index/find.js';
import { watchedStates } from '../../live/agent-state.js';
import { LiveSessions } from '../../live/engine.js';
import type { SessionDoc } from '../../model/document.js';
import type { SessionState } from '../../model/state.js';
import { placeById } from '../../providers/places.js';
import { shellWord } from '../shell-word.js';
import { safeLine } from '../terminal-text.js';
import type { Io } from './main.js';
import { type CommonOptions, UsageError } from './options.js';
import { snapshot } from './snapshots.js';

/** How often `cctop wait` refreshes the picture when no hook says anything first. */
const WAIT_REFRESH_MS = 1_000;

export type Act = 'send' | 'stop' | 'resume' | 'wait';

/** The one session `query` names, or a usage error saying why not. */
async function theSession(io: Io, act: Act, query: string, o: CommonOptions): Promise<SessionDoc> {
  const snap = await snapshot(o, io.env);
  const found = findSession(snap.document, query);
  switch (found.kind) {
    case 'one':
      return found.session;
    case 'none':
      throw new UsageError(`no session ${safeLine(query)} (cctop --list shows them)`);
    case 'many':
      throw new UsageError(
        `${safeLine(query)} names ${found.candidates.length} sessions: ${found.candidates
          .map((s) => s.id.slice(0, 12))
          .join(', ')}; type more of the id for ${act}`,
      );
  }
}

function refuse(io: Io, what: string, s: SessionDoc, p: { why: string; fix: string }): number {
  io.err(`cctop: cannot ${what} session ${s.id.slice(0, 12)}: ${safeLine(p.why)}; ${safeLine(p.fix)}`);
  return 1;
}

/** `cctop send ID TEXT…`: the words joined by spaces, typed, then Enter. */
export async function sendCommand(io: Io, positionals: string[], o: CommonOptions): Promise<number> {
  const [query, ...words] = positionals;
  if (query === undefined || words.length === 0)
    throw new UsageError('send takes a session id and the text to type (try cctop send --help)');
  const check = checkText(words.join(' '));
  if (check.kind === 'refused') throw new UsageError(`send: ${check.why}`);
  const s = await theSession(io, 'send', query, o);
  const r = await typeInto(s, check.text, io.env);
  if (r.kind === 'refused') return refuse(io, 'type into', s, r);
  io.out(`typed ${check.text.length} characters and Enter into ${r.where}, session ${s.id.slice(0, 12)}`);
  return 0;
}

/** `cctop stop ID`: the harness's own key for stopping its current turn. */
export async function stopCommand(io: Io, positionals: string[], o: CommonOptions): Promise<number> {
  if (positionals.length !== 1) throw new UsageError('stop takes one session id (try cctop stop --help)');
  const s = await theSession(io, 'stop', positionals[0]!, o);
  const r = await interrupt(s, io.env);
  if (r.kind === 'refused') return refuse(io, 'stop', s, r);
  io.out(`pressed ${r.key} in ${r.where}, session ${s.id.slice(0, 12)}`);
  return 0;
}

/** `cctop resume ID`: the harness's own resume command, in a new window of the tmux cctop runs in. */
export async function resumeCommand(io: Io, positionals: string[], o: CommonOptions): Promise<number> {
  if (positionals.length !== 1) throw new UsageError('resume takes one session id (try cctop resume --help)');
  const s = await theSession(io, 'resume', positionals[0]!, o);
  const command = placeById(s.provider).resumeCommand?.(s.id);
  if (!command)
    return refuse(io, 'resume', s, {
      why: `cctop knows no resume command for ${placeById(s.provider).label}`,
      fix: 'resume it from the agent itself',
    });
  const shown = command.map(shellWord).join(' ');
  if (s.running === true)
    return refuse(io, 'resume', s, {
      why: `it is still running (pid ${s.process?.pids[0] ?? '─'}); two agents writing one session would garble it`,
      fix: 'type into it with cctop send, or stop it first',
    });
  if (!io.env.TMUX)
    return refuse(io, 'resume', s, {
      why: 'cctop is not running inside tmux, so there is no window to open',
      fix: `run it yourself: ${s.project ? `cd ${shellWord(s.project)} && ` : ''}${safeLine(shown)}`,
    });
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(
    'tmux',
    [
      'new-window',
      ...(s.project ? ['-c', s.project] : []),
      '-n',
      `${s.provider}:${s.id.slice(0, 8)}`,
      '--',
      ...command,
    ],
    { encoding: 'utf8', env: io.env },
  );
  if (r.status !== 0)
    return refuse(io, 'resume', s, {
      why: (r.stderr || r.error?.message || `tmux exited ${r.status}`).trim(),
      fix: `run it yourself: ${safeLine(shown)}`,
    });
  io.out(`opened a tmux window running ${safeLine(shown)}`);
  return 0;
}

/** The states `--until` accepts. */
const UNTIL: readonly SessionState[] = ['idle', 'waiting'];

/** `cctop wait ID --until idle|waiting [--timeout S]`: 0 once the session is there, 1 at the timeout. */
export async function waitCommand(
  io: Io,
  positionals: string[],
  o: CommonOptions,
  until: string | undefined,
  timeout: string | undefined,
): Promise<number> {
  if (positionals.length !== 1) throw new UsageError('wait takes one session id (try cctop wait --help)');
  if (until === undefined || !(UNTIL as readonly string[]).includes(until))
    throw new UsageError(`wait needs --until ${UNTIL.join('|')}`);
  const seconds = timeout === undefined ? DEFAULT_WAIT_S : Number(timeout);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(`--timeout takes a number of seconds above 0 (got ${safeLine(timeout ?? '')})`);
  const s = await theSession(io, 'wait', positionals[0]!, o);
  const live = new LiveSessions({
    env: io.env,
    plan: o.plan,
    providers: [s.provider],
    timeZone: o.timeZone,
    threads: o.threads,
    useIndex: o.useIndex,
    delayMs: WAIT_REFRESH_MS,
    ...watchedStates(io.env),
  });
  const reached = await new Promise<SessionState | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), seconds * 1000);
    live.on('update', (doc) => {
      const now = doc.sessions.find((x) => x.provider === s.provider && x.id === s.id);
      if (now?.state === until) {
        clearTimeout(timer);
        resolve(now.state);
      }
    });
    live.on('error', (err) => io.err(`cctop wait: refresh failed: ${safeLine(err.message)}`));
    live.start();
  });
  live.stop();
  if (reached === null) {
    io.err(`cctop: session ${s.id.slice(0, 12)} was not ${until} within ${seconds} s`);
    return 1;
  }
  io.out(`session ${s.id.slice(0, 12)} is ${reached}`);
  return 0;
}
