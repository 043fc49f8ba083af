/**
 * `cctop pending` (and `cctop approve --list`): the requests held open for an answer, then the calls
 * of agents answered by keys whose hooks say they wait. Kept apart from answering: listing reads the
 * runtime directory and the hooks' journal, and presses nothing.
 *
 * Not here: answering (`approve.ts`), which calls wait (`approvals/waiting-call.ts`).
 */
import { openRequests } from '../../approvals/store.js';
import { KEYED_AGENTS, waitingCalls } from '../../approvals/waiting-call.js';
import type { HookAgent } from '../../hooks/types.js';
import { pidRuns } from '../../pid.js';
import type { Env } from '../../providers/types.js';
import { safeLine } from '../terminal-text.js';
import type { Io } from './main.js';

/** Print what waits for an answer: held requests (`dir`, null when none was ever held) and keyed calls. */
export async function listPending(io: Io, dir: string | null, now: number, json: boolean): Promise<number> {
  const open = dir === null ? [] : openRequests(dir, now);
  const keyed = await keyedCalls(io.env);
  if (json) {
    io.out(JSON.stringify({ requests: open, keys: keyed }));
    return 0;
  }
  if (open.length === 0 && keyed.length === 0) {
    io.out('No request waits for an answer.');
    return 0;
  }
  for (const r of open) {
    const asks =
      r.kind === 'question' ? `asks: ${r.questions.join(' / ')}` : `${r.tool ?? '─'} ${r.input ?? ''}`;
    io.out(
      safeLine(
        `${r.session}  ${r.agent}  ${r.kind}  waiting ${Math.round((now - r.at) / 1000)} s, ${Math.max(0, Math.round((r.expiresAt - now) / 1000))} s left  ${asks}`.trimEnd(),
      ),
    );
  }
  for (const c of keyed)
    io.out(
      safeLine(
        `${c.session}  ${c.agent}  permission  waiting ${Math.max(0, Math.round((now - c.at) / 1000))} s, answered by keys  ${c.tool ?? '─'} ${c.input}`.trimEnd(),
      ),
    );
  return 0;
}

/** A call of an agent answered by keys that its hooks say waits, as `cctop pending` lists it. */
interface KeyedCall {
  agent: HookAgent;
  session: string;
  cwd: string | null;
  tool: string | null;
  /** The command the hook named: the one the prompt must show. */
  input: string;
  /** When its hook asked (ms since the epoch). */
  at: number;
  /** The agent's process, as its hook saw it, or null. */
  pid: number | null;
}

/**
 * The calls the hooks of agents answered by keys (Codex) say wait: nothing is held for them, so they
 * are not among the open requests, but `cctop approve ID allow|deny` and the table answer them. A
 * call whose agent process has ended waits on nobody and is left out.
 */
async function keyedCalls(env: Env): Promise<KeyedCall[]> {
  const { readJournal } = await import('../../hooks/journal.js');
  return waitingCalls(readJournal(env), KEYED_AGENTS)
    .filter((c) => c.event.ppid === null || pidRuns(c.event.ppid))
    .map(({ session, event: e }) => ({
      agent: e.agent,
      session,
      cwd: e.cwd,
      tool: e.tool,
      input: e.input,
      at: e.at,
      pid: e.ppid,
    }));
}
