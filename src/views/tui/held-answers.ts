/**
 * The live table's reach into held requests (docs/act.md): which request a session's agent holds,
 * and sending an answer to it, said on the status line when the holding hook has settled it. For an
 * agent whose prompt is answered by its keys (Codex in tmux: nothing is held), which call its hooks
 * say waits, and pressing the prompt's key once its screen proves it (`act/keyed-answer.ts`). The
 * answerer is this user, "via table", from this host.
 *
 * Not here: the keys (`held-key.ts`), the rules of answering (`approvals/answer.ts`), the proof and
 * the key (`act/keyed-answer.ts`).
 */
import { hostname, userInfo } from 'node:os';
import { answerKeyed, type KeyedOutcome } from '../../act/keyed-answer.js';
import { ANSWER_CONFIRM_MS, answerRequest } from '../../approvals/answer.js';
import { approvalsDir, openRequests } from '../../approvals/store.js';
import type { Answerer } from '../../approvals/types.js';
import { KEYED_AGENTS, requestOfEvent, waitingCall } from '../../approvals/waiting-call.js';
import { readJournal } from '../../hooks/journal.js';
import { providerOfAgent } from '../../hooks/types.js';
import { placeById } from '../../providers/places.js';
import type { Env } from '../../providers/types.js';
import { runtimeDir } from '../../runtime/dir.js';
import type { HeldContext } from './held-key.js';

export function heldAnswers(env: Env, say: (text: string) => void): HeldContext {
  const dirs = (): { runtime: string; dir: string } | null => {
    const rt = runtimeDir(env);
    const dir = rt.kind === 'ok' ? approvalsDir(rt.path) : null;
    return rt.kind === 'ok' && dir !== null ? { runtime: rt.path, dir } : null;
  };
  let who = env.USER ?? 'unknown';
  try {
    who = userInfo().username;
  } catch {
    // No passwd entry (a container's arbitrary uid): $USER stands.
  }
  const by: Answerer = { via: 'table', who, from: `${hostname()} (the live table, pid ${process.pid})` };
  return {
    say,
    held: (provider, id) => {
      const d = dirs();
      if (d === null) return null;
      return openRequests(d.dir, Date.now()).find((r) => r.agent === provider && r.session === id) ?? null;
    },
    answerHeld: (request, verdict) => {
      const d = dirs();
      if (d === null) {
        say('not answered: the runtime directory is refused (cctop doctor says why)');
        return;
      }
      const io = {
        ...d,
        now: Date.now,
        sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
        confirmMs: ANSWER_CONFIRM_MS,
      };
      const what = request.tool ?? 'the request';
      void answerRequest(io, request, { verdict, by, at: Date.now() }).then((o) => {
        switch (o.kind) {
          case 'delivered':
            say(
              `${verdict.kind === 'allow' ? 'allowed' : verdict.kind === 'deny' ? 'denied' : 'answered'}: ${what}`,
            );
            return;
          case 'unconfirmed':
            say(`sent; ${what}'s hook has not taken it yet`);
            return;
          case 'refused':
            say(`not answered: ${o.words}`);
            return;
        }
      });
    },
    keyed: (s) => {
      const pick = waitingCall(readJournal(env), KEYED_AGENTS, s.id);
      // Only this session's own call: a start of an id shared with another session names no other.
      if (
        pick.kind !== 'waiting' ||
        pick.session !== s.id ||
        providerOfAgent(pick.event.agent) !== s.provider
      )
        return null;
      return requestOfEvent(pick.event, pick.event.ppid ?? 0);
    },
    answerKeyed: (s, verdict) => {
      const rt = runtimeDir(env);
      if (rt.kind !== 'ok') {
        say('not answered: the runtime directory is refused (cctop doctor says why)');
        return;
      }
      const io = {
        env,
        runtime: rt.path,
        events: readJournal(env),
        // The session on the table is the one proved: no other record is read.
        find: async (id: string) => (id === s.id ? s : null),
      };
      void answerKeyed(io, s.id, verdict, by).then((o) => say(keyedWords(o, placeById(s.provider).label)));
    },
  };
}

/** A keyed answer's outcome, on the status line (`label`: the agent's name). */
export function keyedWords(o: KeyedOutcome, label: string): string {
  switch (o.kind) {
    case 'none':
      return 'not answered: its hooks say no call waits';
    case 'ambiguous':
      return `not answered: several sessions answer to its id: ${o.sessions.join(', ')}`;
    case 'not-waiting':
      return `not answered: no call waits any more (its hooks' newest word: ${o.said})`;
    case 'unnamed':
      return 'not answered: its hook names no command, so cctop cannot prove its prompt asks about it; answer it in its own terminal';
    case 'refused':
      return `not answered: ${o.words}`;
    case 'pressed': {
      // What the answer did comes before the command, which the person just read in the question: a
      // long command is what the status line's width cuts, never the news.
      const what = o.request.input ?? o.request.tool ?? 'the call';
      const dropped = o.reasonDropped
        ? `; the reason was not delivered (${label}'s prompt takes no words)`
        : '';
      if (!o.closed) return `pressed ${o.key}, but its prompt was still up${dropped}: ${what}`;
      const ends = o.endsTurn ? `, ending ${label}'s turn` : '';
      return `${o.verdict === 'allow' ? 'allowed' : 'denied'}${ends}${dropped}: ${what}`;
    }
  }
}
