/**
 * `cctop run AGENT [ARGS…]` and `cctop attach ID`: an agent on a pty cctop owns, held by the per-user
 * pty host so that closing the terminal does not end it, and taken back from any terminal.
 *
 * The terminal is transparent: raw mode, the agent's own bytes (colours included), the size as it
 * changes, Ctrl-C and the rest as keys to the agent, and the agent's exit code as cctop's. Ctrl-\
 * then d detaches. Without the optional `@lydell/node-pty`, `cctop run` says why and nothing else
 * changes.
 *
 * Not here: the host (`runtime/pty-host.ts`) and the wire (`runtime/pty-client.ts`).
 */
import { spawnSync } from 'node:child_process';
import { remoteCommand, sshProgram } from '../../hosts/ssh.js';
import { parseHost } from '../../hosts/target.js';
import { findSession } from '../../index/find.js';
import { hold, reachHost } from '../../runtime/pty-client.js';
import { ptyRuns } from '../../runtime/pty-runs.js';
import { frame } from '../../runtime/pty-wire.js';
import { safeLine } from '../terminal-text.js';
import type { Io } from './main.js';
import { commonOptions, UsageError } from './options.js';
import { snapshot } from './snapshots.js';

/** The agents `cctop run` starts: the terminal agents cctop knows. */
export const RUN_AGENTS = ['claude', 'codex', 'gemini', 'qwen', 'opencode', 'pi', 'copilot'] as const;

async function ptyMissing(): Promise<string | null> {
  try {
    await import('@lydell/node-pty');
    return null;
  } catch (err) {
    return `cctop run needs the optional package @lydell/node-pty, which is not usable here (${
      err instanceof Error ? err.message.split('\n')[0] : String(err)
    }); every other command works without it`;
  }
}

function noTerminal(io: Io, what: string): number | null {
  if (process.stdin.isTTY && process.stdout.isTTY) return null;
  io.err(`cctop: ${what} holds a terminal: run it in one`);
  return 1;
}

const size = () => ({ cols: process.stdout.columns || 80, rows: process.stdout.rows || 24 });

async function held(io: Io, first: Buffer, start: boolean): Promise<number> {
  const r = await reachHost(io.env, start);
  if (r.kind === 'refused') {
    io.err(`cctop: ${safeLine(r.why)}`);
    return 1;
  }
  const end = await hold(r.sock, first, process.stdin, process.stdout);
  switch (end.kind) {
    case 'exited':
      return end.code;
    case 'detached':
      io.err(`[cctop: ${safeLine(end.why)}; the agent runs on: cctop attach ${end.id ?? ''}]`);
      return 0;
    case 'refused':
    case 'lost':
      io.err(`cctop: ${safeLine(end.why)}`);
      return 1;
  }
}

/** `cctop run AGENT [ARGS…]`: the arguments after the agent go to it as they are. */
export async function runCommand(io: Io, args: string[]): Promise<number> {
  const [agent, ...rest] = args;
  if (agent === undefined)
    throw new UsageError(`run takes an agent (${RUN_AGENTS.join(', ')}) and its arguments`);
  if (!(RUN_AGENTS as readonly string[]).includes(agent))
    throw new UsageError(`cctop run starts ${RUN_AGENTS.join(', ')} (got ${safeLine(agent)})`);
  const missing = await ptyMissing();
  if (missing) {
    io.err(`cctop: ${missing}`);
    return 1;
  }
  const tty = noTerminal(io, 'cctop run');
  if (tty !== null) return tty;
  const start = frame('S', {
    agent,
    args: rest,
    cwd: process.cwd(),
    env: io.env,
    term: io.env.TERM || 'xterm-256color',
    ...size(),
  });
  return held(io, start, true);
}

/** The run `query` names: a run id (or its start), else a session whose process is a run's. */
async function runFor(io: Io, query: string): Promise<{ id: string } | string> {
  const runs = ptyRuns(io.env);
  const byId = runs.filter((r) => r.id.startsWith(query));
  if (byId.length === 1) return { id: byId[0]!.id };
  const snap = await snapshot(commonOptions({}), io.env);
  const found = findSession(snap.document, query);
  if (found.kind !== 'one') return `no run or session ${safeLine(query)} (cctop --list shows them)`;
  const pids = new Set(found.session.process?.pids ?? []);
  const run = runs.find((r) => pids.has(r.pid));
  return run ? { id: run.id } : `session ${found.session.id.slice(0, 12)} does not run under cctop run`;
}

/** `cctop attach [--host H] ID`. */
export async function attachCommand(io: Io, args: string[]): Promise<number> {
  const at = args.indexOf('--host');
  const host = at >= 0 ? args[at + 1] : undefined;
  const rest = at >= 0 ? [...args.slice(0, at), ...args.slice(at + 2)] : args;
  if (rest.length !== 1 || (at >= 0 && host === undefined))
    throw new UsageError('attach takes one run or session id, and optionally --host HOST');
  const query = rest[0]!;
  if (host !== undefined) {
    // The id goes into a remote shell's command line: only the characters an id has.
    if (!/^[\w-]{1,100}$/.test(query)) throw new UsageError(`${safeLine(query)} is not a run or session id`);
    // `[user@]host[:path-to-cctop]`, as every --host takes it; checked so ssh reads no option in it.
    const spec = parseHost(host);
    if (spec.kind === 'bad') throw new UsageError(`${safeLine(host)} is not a host: ${spec.why}`);
    const r = spawnSync(
      sshProgram(io.env),
      ['-t', '--', spec.host.name, remoteCommand(spec.host, ['attach', query])],
      { stdio: 'inherit' },
    );
    return r.status ?? 1;
  }
  const tty = noTerminal(io, 'cctop attach');
  if (tty !== null) return tty;
  const run = await runFor(io, query);
  if (typeof run === 'string') {
    io.err(`cctop: ${run}`);
    return 1;
  }
  return held(io, frame('A', { id: run.id, ...size() }), false);
}
