/**
 * Acting on one session through its own terminal: typing a line into it, pressing its stop key. The
 * session must be tied to one process of its own harness, and that process to one tmux pane
 * (`pane.ts`); anything less is refused with why and what would make it possible.
 *
 * Shared by `cctop send`/`stop`, the live table's `s`, and the dashboard's box, so all three refuse
 * alike. Not here: the text's own checks (`typing.ts`), which callers run first to answer early.
 */

import { defaultSampler, type ProcessInfo, ProcessTable } from '../live/processes.js';
import type { SessionDoc } from '../model/document.js';
import { placeById } from '../providers/places.js';
import type { Env } from '../providers/types.js';
import { ask } from '../runtime/pty-client.js';
import { ptyRuns } from '../runtime/pty-runs.js';
import type { PtyRun } from '../runtime/pty-wire.js';
import { type Pane, paneOf, tmuxOn } from './pane.js';
import { checkText, ENTER_AFTER_MS, INTERRUPT_KEY, INTERRUPT_PRESSES } from './typing.js';

export type Refused = { kind: 'refused'; why: string; fix: string };

type Proven = { kind: 'pane'; pane: Pane } | { kind: 'pty'; run: PtyRun } | Refused;

/** The tmux pane that holds the session's agent, proven by pid, or why not. */
export function provePane(
  s: SessionDoc,
  env: Env,
  sample: () => ProcessInfo[] | null = defaultSampler(),
): Proven {
  if (s.running !== true || !s.process || s.process.pids.length === 0)
    return {
      kind: 'refused',
      why:
        s.running === null
          ? `cctop cannot see which process runs ${placeById(s.provider).label} sessions`
          : 'cctop sees no process running it',
      fix: 'resume it with cctop resume, or start the agent inside tmux or with cctop run',
    };
  const procs = sample();
  if (procs === null)
    return {
      kind: 'refused',
      why: 'the process table cannot be read here',
      fix: 'type into its terminal yourself',
    };
  const pid = s.process.pids[0]!;
  const agents = new ProcessTable(() => procs).agents() ?? [];
  const agent = agents.find((a) => a.pid === pid);
  if (!agent)
    return { kind: 'refused', why: `process ${pid} has ended`, fix: 'look again with cctop --list' };
  // Named on its command line, the session is the process's own; else the process must be the only
  // one of its harness in that directory, or the pairing by time could have swapped two agents.
  if (agent.sessionArg !== s.id) {
    const twins = agents.filter((a) => a.provider === agent.provider && a.cwd === agent.cwd);
    if (twins.length !== 1)
      return {
        kind: 'refused',
        why: `${twins.length} ${placeById(s.provider).label} processes run in ${agent.cwd ?? 'an unknown directory'} and none names this session on its command line, so cctop cannot tell which is its`,
        fix: `start it as ${placeById(s.provider).resumeCommand?.(s.id).join(' ') ?? 'a resumed session'}, or with cctop run`,
      };
  }
  // An agent cctop's own pty host holds is typed into there, whatever terminal watches it.
  const run = ptyRuns(env).find((r) => r.pid === pid);
  if (run) return { kind: 'pty', run };
  return paneOf(s.provider, pid, procs, env);
}

const paneWhere = (pane: Pane): string => `tmux pane ${pane.paneId} (pid ${pane.panePid})`;

/** Type `text` (checked again here) and Enter into the session's pane. */
export async function typeInto(
  s: SessionDoc,
  text: string,
  env: Env,
): Promise<{ kind: 'typed'; where: string } | Refused> {
  const check = checkText(text);
  if (check.kind === 'refused')
    return { kind: 'refused', why: check.why, fix: 'send one line of plain text' };
  const p = provePane(s, env);
  if (p.kind === 'refused') return p;
  if (p.kind === 'pty') return viaHost(env, 'T', p.run, { text: check.text }, 'typed');
  // Literal keys (`-l`): nothing in the text is read as a key name; `--` ends tmux's options.
  const typed = tmuxOn(p.pane, ['send-keys', '-t', p.pane.paneId, '-l', '--', check.text]);
  if (!typed.ok) return { kind: 'refused', why: typed.why, fix: 'type into the pane yourself' };
  await new Promise((r) => setTimeout(r, ENTER_AFTER_MS));
  const entered = tmuxOn(p.pane, ['send-keys', '-t', p.pane.paneId, 'Enter']);
  if (!entered.ok) return { kind: 'refused', why: entered.why, fix: 'press Enter in the pane yourself' };
  return { kind: 'typed', where: paneWhere(p.pane) };
}

/** The bytes a terminal sends for each stop key. */
const KEY_BYTES = { Escape: '\u001b', 'C-c': '\u0003' } as const;

/** A line or a key through cctop's own pty host, for an agent `cctop run` started. */
async function viaHost<K extends 'typed' | 'pressed'>(
  env: Env,
  type: 'T' | 'K',
  run: PtyRun,
  body: object,
  kind: K,
): Promise<{ kind: K; where: string } | Refused> {
  const r = await ask(env, type, { pid: run.pid, ...body });
  if (r.type === 'o') return { kind, where: `cctop's own terminal (run ${run.id})` };
  const why = !Array.isArray(r.body) && typeof r.body.why === 'string' ? r.body.why : 'the pty host refused';
  return { kind: 'refused', why, fix: `attach with cctop attach ${run.id} and type there` };
}

/** Press the harness's own stop key in the session's pane (as many times as its TUI wants). */
export async function interrupt(
  s: SessionDoc,
  env: Env,
): Promise<{ kind: 'pressed'; key: string; where: string } | Refused> {
  const key = INTERRUPT_KEY[s.provider];
  if (key === null)
    return {
      kind: 'refused',
      why: `${placeById(s.provider).label} has no terminal key cctop knows for stopping a turn`,
      fix: 'stop it in its own window',
    };
  const p = provePane(s, env);
  if (p.kind === 'refused') return p;
  const presses = INTERRUPT_PRESSES[s.provider] ?? 1;
  const pressed = presses === 1 ? key : presses === 2 ? `${key} twice` : `${key} ${presses} times`;
  let where = '';
  for (let i = 0; i < presses; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, ENTER_AFTER_MS));
    if (p.kind === 'pty') {
      const r = await viaHost(env, 'K', p.run, { key: KEY_BYTES[key] }, 'pressed');
      if (r.kind === 'refused') return r;
      where = r.where;
    } else {
      const sent = tmuxOn(p.pane, ['send-keys', '-t', p.pane.paneId, key]);
      if (!sent.ok) return { kind: 'refused', why: sent.why, fix: 'press its key in the pane yourself' };
      where = paneWhere(p.pane);
    }
  }
  return { kind: 'pressed', key: pressed, where };
}
