/**
 * Taking a named session for one run: its lock, which agent session the name means, and how to
 * bind the name once the agent announces a session it chose itself.
 *
 * It decides before the spawn and refuses early (a name bound to another agent, a fork of nothing),
 * so a run that would resume the wrong conversation never starts. Storing the records and the lock
 * protocol are `sessions.ts`'s business, not this module's.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { AgentSpec } from './agents/index.js';
import type { Env } from './env.js';
import { DriveError } from './errors.js';
import type { AgentId } from './events.js';
import type { NamedSession, SessionPlan } from './request.js';
import { defaultSessionDir, type Lease, SessionStore } from './sessions.js';

/** A name held for one run. */
export interface Claim {
  /** Held until the run ends, so two runs never continue one conversation at once. */
  lease: Lease;
  /** Which session the run starts in, now that the name has been read. */
  session: SessionPlan;
  /** Records the session the agent announced under the name. */
  bind(session: string): void;
}

/**
 * Take `named` for a run of `agent` in `cwd`. Throws a {@link DriveError} when the name is busy,
 * bound to another agent, or asked to fork a session it does not have; the lock is given back
 * before a refusal leaves, so a refused run holds nothing.
 */
export function claimName(
  named: NamedSession,
  agent: AgentId,
  spec: AgentSpec,
  cwd: string,
  parent: Env,
): Claim {
  const store = named.store ?? new SessionStore(defaultSessionDir(parent));
  const project = resolve(named.project ?? cwd);
  const lease = store.acquire(project, named.name);
  try {
    const record = store.get(project, named.name);
    if (record !== null && record.agent !== agent) {
      throw new DriveError({
        kind: 'session_conflict',
        name: named.name,
        project,
        bound: record.agent,
        requested: agent,
      });
    }
    const fork = named.fork === true;
    if (fork) {
      if (!spec.caps.fork) throw new DriveError({ kind: 'unsupported', agent, what: 'forking a session' });
      if (record === null) {
        throw new DriveError({
          kind: 'invalid_request',
          what: `there is no session named "${named.name}" to fork`,
        });
      }
    }
    const session: SessionPlan =
      record !== null
        ? { kind: 'resume', id: record.session, fork }
        : // An agent that takes a chosen id gets one now, so the name is known to mean it from the start.
          spec.caps.mintSession
          ? { kind: 'mint', id: randomUUID() }
          : { kind: 'new' };
    return { lease, session, bind: (id) => store.bind(project, named.name, agent, id) };
  } catch (e) {
    lease.release();
    throw e;
  }
}
