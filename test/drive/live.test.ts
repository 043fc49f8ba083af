/**
 * A smoke test against the real agents, for a machine that has them: one short read-only prompt to
 * each agent installed and logged in. It is opt-in by its nature (it needs the vendors' services), so
 * it is one test: where no agent is set up it is one skip saying how to set one up, not seven.
 */
import { describe, expect, it } from 'vitest';
import { spec } from '../../src/drive/agents/index.js';
import { DriveError } from '../../src/drive/errors.js';
import { AGENTS } from '../../src/drive/events.js';
import { installed, run } from '../../src/drive/run.js';

const PRESENT = AGENTS.filter((a) => installed(a));
const HOW = `no agent CLI on PATH; ${spec('claude').installHint} (or any other agent cctop drives), and log in`;

describe('the real agents', () => {
  it.skipIf(PRESENT.length === 0)(
    // These need the agent installed and logged in on this machine, and its vendor's network: the
    // lab (test/lab) proves every agent offline; this says the same holds against the real service.
    `each agent on PATH answers a one-word prompt${PRESENT.length === 0 ? ` (skipped: ${HOW})` : ''}`,
    async (ctx) => {
      const answered: string[] = [];
      const loggedOut: string[] = [];
      for (const agent of PRESENT) {
        try {
          const o = await run({
            agent,
            prompt: 'Reply with exactly the word pong and nothing else.',
            timeoutMs: 180_000,
            env: 'inherit',
          });
          expect.soft(o.stop.kind, agent).toBe('completed');
          expect.soft(o.text.toLowerCase(), agent).toContain('pong');
          expect.soft(o.session, agent).not.toBeNull();
          expect.soft(o.unparsed, `${agent}: unparsed output, first: ${o.firstUnparsed}`).toBe(0);
          answered.push(agent);
        } catch (e) {
          if (e instanceof DriveError && e.failure.kind === 'not_authenticated') loggedOut.push(agent);
          else throw e;
        }
      }
      if (answered.length === 0)
        ctx.skip(`${loggedOut.join(', ')} installed but not logged in; log in to one of them`);
    },
    200_000 * AGENTS.length,
  );
});
