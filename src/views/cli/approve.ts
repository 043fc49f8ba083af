/**
 * `cctop approve ID allow|deny [--reason TEXT]`, `cctop approve ID --answer TEXT`, and `cctop approve
 * --list` (also `cctop pending`): answer a session's held request from any terminal of the same user,
 * or see which are open. The oldest open request of the session is the one answered (an agent asks
 * one thing at a time; a second waits behind the first).
 *
 * A Codex session has nothing held (its hook runs before its prompt): its prompt is answered by its
 * own keys in its proven tmux pane (`byKeys`, `act/keyed-answer.ts`).
 *
 * The exit code says what happened, for scripts: see `APPROVE_EXIT`.
 *
 * Not here: the list (`pending.ts`, which also shows the Codex calls whose hooks say they wait); the
 * rules of answering (`approvals/answer.ts`); holding (`approvals/hold.ts`).
 */
import { hostname, userInfo } from 'node:os';
import { ANSWER_CONFIRM_MS, type AnswerOutcome, answerRequest, pickSession } from '../../approvals/answer.js';
import { allRequests, appendApprovalJournal, approvalsDir, settlementOf } from '../../approvals/store.js';
import {
  type Answer,
  type Answerer,
  MAX_ANSWER_CHARS,
  settledWords,
  type Verdict,
} from '../../approvals/types.js';
import { type HookAgent, type HookEvent, providerOfAgent } from '../../hooks/types.js';
import type { SessionDoc } from '../../model/document.js';
import { placeById } from '../../providers/places.js';
import type { Env } from '../../providers/types.js';
import { runtimeDir } from '../../runtime/dir.js';
import { safeLine } from '../terminal-text.js';
import type { Io } from './main.js';
import { commonOptions, parse, UsageError } from './options.js';
import { listPending } from './pending.js';

/** What `cctop approve` exits with. */
export const APPROVE_EXIT = {
  /** The agent took the answer. */
  delivered: 0,
  /** The runtime directory was refused: nothing can be answered here. */
  fault: 1,
  usage: 2,
  /** No open request of that session (none waits, or its hook is gone). */
  none: 3,
  /**
   * Refused: answered first elsewhere, no longer open, not the kind of answer it takes, or (Codex) its
   * prompt not proven on its screen.
   */
  refused: 4,
  /** Written, but the holding hook had not taken it when the wait ended (Codex: its prompt still up after the key). */
  unconfirmed: 5,
} as const;

export const APPROVE_HELP = `cctop approve: answer a session's permission request or question from any terminal

Usage:
  cctop approve ID allow                 let the tool call run
  cctop approve ID deny [--reason TEXT]  refuse it; the reason is what the model is told
  cctop approve ID --answer TEXT         answer a question that wants words (Claude Code's
                                         AskUserQuestion), or send a plan back with them
  cctop approve --list                   the open requests, and the Codex calls answered by
                                         their keys (also: cctop pending)

ID is the agent's session id or the start of one. The oldest open request of that session is
answered. The agent's own dialog stays up meanwhile: whichever answers first decides, and a late
answer is refused with what happened. Needs \`cctop hooks install --approvals\` (docs/act.md).

Codex (in a tmux pane, with \`cctop hooks install --agent codex\`): nothing is held; cctop reads its
prompt on the pane's screen and, when it asks about the call its hooks say waits, presses its key
(allow: y; deny: esc, which ends the turn; a --reason is not delivered). Else it types nothing.

Exit codes: 0 the agent took the answer; 3 nothing of that session waits; 4 refused (answered
first elsewhere, no longer open, an answer it cannot take, or a prompt not proven on its screen);
5 not taken yet (the hook had not looked, or Codex's prompt was still up, when the wait ended);
1 no runtime directory; 2 a bad argument.

Options:
  --reason TEXT   with deny: what the model is told
  --answer TEXT   words for a question
  -l, --list      the open requests
  -j, --json      as JSON
  -h, --help      this help
`;

const FLAGS = {
  reason: { type: 'string' },
  answer: { type: 'string' },
  list: { type: 'boolean', short: 'l' },
  json: { type: 'boolean', short: 'j' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The answerer a command line is: this user, on this host (over ssh from where, when it is). */
export function cliAnswerer(env: Env): Answerer {
  let who = env.USER ?? 'unknown';
  try {
    who = userInfo().username;
  } catch {
    // No passwd entry (a container's arbitrary uid): $USER stands.
  }
  const ssh = env.SSH_CONNECTION?.split(' ')[0];
  return { via: 'cli', who, from: `${hostname()}${ssh ? ` (ssh from ${ssh})` : ''}` };
}

/** `cctop approve …` (`pending`: run as `cctop pending`, which lists). */
export async function approveCommand(args: string[], io: Io, pending = false): Promise<number> {
  const { values, positionals } = parse(args, FLAGS, pending ? 'pending' : 'approve');
  if (values.help === true) {
    io.out(APPROVE_HELP);
    return 0;
  }
  const rt = runtimeDir(io.env);
  if (rt.kind !== 'ok') {
    io.err(`cctop: the runtime directory ${rt.path} is refused (${safeLine(rt.why)}): nothing is held there`);
    return APPROVE_EXIT.fault;
  }
  const dir = approvalsDir(rt.path);
  const now = Date.now();
  if (pending || values.list === true) {
    if (positionals.length > 0) throw new UsageError('approve --list takes no ID');
    return listPending(io, dir, now, values.json === true);
  }

  const [id, word, ...more] = positionals;
  if (id === undefined) throw new UsageError('approve needs a session ID (cctop approve --list shows them)');
  if (more.length > 0) throw new UsageError(`approve: unexpected ${safeLine(more[0]!)}`);
  const verdict = verdictOf(word, values.reason, values.answer);
  const json = values.json === true;
  if (dir === null) {
    return byKeys(io, rt.path, id, verdict, json, `cctop: no request of ${safeLine(id)} waits for an answer`);
  }
  const picked = pickSession(dir, id, now);
  if (picked.kind === 'ambiguous') {
    io.err(`cctop: ${safeLine(id)} is the start of several waiting sessions: ${picked.sessions.join(', ')}`);
    return APPROVE_EXIT.usage;
  }
  if (picked.kind === 'none') {
    // The session's newest request, answered or released a moment ago: a late answer is told what became of it.
    const last = allRequests(dir)
      .filter((r) => r.session === id || (id.length > 0 && r.session.startsWith(id)))
      .at(-1);
    const settled = last === undefined ? null : settlementOf(dir, last.id);
    if (last !== undefined && settled !== null) {
      const late: Answer = { verdict, by: cliAnswerer(io.env), at: now };
      const words = `no longer open: ${settledWords(settled)}`;
      appendApprovalJournal(rt.path, { kind: 'refused', request: last, answer: late, why: words });
      return said(io, { kind: 'refused', why: 'closed', words, request: last }, json);
    }
    // Nothing held: a Codex session whose hooks say a call waits is answered at its prompt, by its keys.
    return byKeys(
      io,
      rt.path,
      id,
      verdict,
      json,
      `cctop: no request of ${safeLine(id)} waits for an answer (cctop approve --list shows those that do)`,
    );
  }
  const request = picked.requests[0]!;
  const answer: Answer = { verdict, by: cliAnswerer(io.env), at: Date.now() };
  const outcome = await answerRequest(
    {
      dir,
      runtime: rt.path,
      now: Date.now,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      confirmMs: ANSWER_CONFIRM_MS,
    },
    request,
    answer,
  );
  return said(io, outcome, json);
}

/**
 * What to add when nothing waits and no hook of any agent has ever been heard (`events` empty): cctop
 * sees requests only through its hooks, so a person who has not installed them learns how, instead
 * of being told only that nothing waits. Empty once any hook has been heard: then nothing waiting is
 * the answer.
 */
const unheard = (events: readonly HookEvent[]): string =>
  events.length > 0
    ? ''
    : "; cctop has heard no agent hooks: `cctop hooks install --approvals` holds Claude Code's requests, and `cctop hooks install --agent codex` lets it answer a Codex prompt in tmux (docs/act.md)";

/**
 * Answer the session `id` names by pressing its agent's own key at its approval prompt, for an agent
 * whose hook cannot be held (`act/keyed-answer.ts`). When no session of such an agent is named `id`,
 * nothing waits: `nothingWaits` is said (with how to install the hooks when none was ever heard).
 */
async function byKeys(
  io: Io,
  runtime: string,
  id: string,
  verdict: Verdict,
  json: boolean,
  nothingWaits: string,
): Promise<number> {
  const { readJournal } = await import('../../hooks/journal.js');
  const { answerKeyed } = await import('../../act/keyed-answer.js');
  const find = async (session: string, agent: HookAgent): Promise<SessionDoc | null> => {
    const { snapshot } = await import('./snapshots.js');
    const { findSession } = await import('../../index/find.js');
    // Only the agent's own sessions are read: the one the hooks named is among them.
    const o = { ...commonOptions({}), providers: [providerOfAgent(agent)] };
    const found = findSession((await snapshot(o, io.env)).document, session);
    return found.kind === 'one' ? found.session : null;
  };
  const events = readJournal(io.env);
  const r = await answerKeyed({ env: io.env, runtime, events, find }, id, verdict, cliAnswerer(io.env));
  const fail = (code: number, words: string, extra: object = {}): number => {
    if (json)
      io.out(JSON.stringify({ outcome: code === APPROVE_EXIT.none ? 'none' : 'refused', words, ...extra }));
    else io.err(safeLine(`cctop: ${words}`));
    return code;
  };
  switch (r.kind) {
    case 'none':
      io.err(`${nothingWaits}${unheard(events)}`);
      return APPROVE_EXIT.none;
    case 'ambiguous':
      io.err(
        `cctop: ${safeLine(id)} is the start of several sessions: ${r.sessions.map(safeLine).join(', ')}`,
      );
      return APPROVE_EXIT.usage;
    case 'not-waiting':
      return fail(
        APPROVE_EXIT.none,
        `no call of ${r.session} waits for an answer (its hooks' newest word: ${r.said})`,
      );
    case 'unnamed':
      return fail(
        APPROVE_EXIT.refused,
        `refused: the hook of ${r.session} names no command, so cctop cannot prove its prompt asks about it; answer it in its own terminal`,
      );
    case 'refused':
      return fail(APPROVE_EXIT.refused, `refused: ${r.words}`, { request: r.request });
    case 'pressed':
      break;
  }
  const { request, session: s } = r;
  const notes: string[] = [];
  if (r.reasonDropped)
    notes.push(
      `the reason was not delivered: ${placeById(s.provider).label}'s prompt takes no words (tell it with cctop send ${s.id.slice(0, 12)} TEXT)`,
    );
  if (r.endsTurn) notes.push('the deny ends its turn: the model is told the call was aborted by the user');
  const code = r.closed ? APPROVE_EXIT.delivered : APPROVE_EXIT.unconfirmed;
  if (json) {
    io.out(
      JSON.stringify({
        outcome: r.closed ? 'delivered' : 'unconfirmed',
        via: 'keys',
        where: r.where,
        key: r.key,
        reasonDelivered: r.reasonDropped ? false : null,
        notes,
        request,
      }),
    );
    return code;
  }
  const what = `${request.tool ?? 'the call'} ${request.input ?? ''}`.trimEnd();
  const pressed = `pressed ${r.key} ("${r.label}") in ${r.where}`;
  if (r.closed) io.out(safeLine(`Answered (${verdict.kind}): ${what} of ${s.id}: ${pressed}`));
  else
    io.err(safeLine(`cctop: ${pressed} for ${what}, but its prompt was still up when cctop stopped looking`));
  for (const n of notes) io.err(safeLine(`cctop: ${n}`));
  return code;
}

function said(io: Io, o: AnswerOutcome, json: boolean): number {
  const code =
    o.kind === 'delivered'
      ? APPROVE_EXIT.delivered
      : o.kind === 'unconfirmed'
        ? APPROVE_EXIT.unconfirmed
        : APPROVE_EXIT.refused;
  if (json) {
    io.out(
      JSON.stringify({
        outcome: o.kind,
        ...(o.kind === 'refused' ? { why: o.why, words: o.words } : {}),
        request: o.request,
      }),
    );
    return code;
  }
  const what = o.request === null ? '' : `${o.request.tool ?? 'the request'} of ${o.request.session}`;
  switch (o.kind) {
    case 'delivered':
      io.out(safeLine(`Answered: ${what}`));
      break;
    case 'unconfirmed':
      io.err(safeLine(`cctop: written for ${what}, but its hook has not taken it yet`));
      break;
    case 'refused':
      io.err(safeLine(`cctop: refused: ${o.words}`));
      break;
  }
  return code;
}

function verdictOf(word: string | undefined, reason: unknown, answer: unknown): Verdict {
  const bounded = (s: string, flag: string): string => {
    if (s.length > MAX_ANSWER_CHARS)
      throw new UsageError(`${flag}: longer than ${MAX_ANSWER_CHARS} characters`);
    return s;
  };
  if (typeof answer === 'string') {
    if (word !== undefined || reason !== undefined)
      throw new UsageError('approve ID --answer TEXT takes neither allow/deny nor --reason');
    if (answer.trim() === '') throw new UsageError('--answer: say something');
    return { kind: 'text', text: bounded(answer, '--answer') };
  }
  if (word === 'allow') {
    if (reason !== undefined) throw new UsageError('--reason goes with deny');
    return { kind: 'allow' };
  }
  if (word === 'deny')
    return {
      kind: 'deny',
      reason: typeof reason === 'string' && reason.trim() !== '' ? bounded(reason, '--reason') : null,
    };
  throw new UsageError('approve ID takes allow, deny [--reason TEXT], or --answer TEXT');
}
