/**
 * The live table's reach into held requests (docs/act.md): which request a session's agent holds,
 * and sending an answer to it, said on the status line when the holding hook has settled it. The
 * answerer is this user, "via table", from this host.
 *
 * Not here: the keys (`held-key.ts`), the rules of answering (`approvals/answer.ts`).
 */
import { hostname, userInfo } from 'node:os';
import { ANSWER_CONFIRM_MS, answerRequest } from '../../approvals/answer.js';
import { approvalsDir, openRequests } from '../../approvals/store.js';
import type { Answerer } from '../../approvals/types.js';
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
  };
}
