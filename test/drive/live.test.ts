/**
 * A smoke test against the real agents, for a machine that has them: one short read-only prompt
 * each. An agent that is not installed (or not logged in) is skipped with the reason printed, so
 * this costs nothing where no agent is set up.
 */
import { describe, expect, it } from 'vitest';
import { spec } from '../../src/drive/agents/index.js';
import { DriveError } from '../../src/drive/errors.js';
import { AGENTS } from '../../src/drive/events.js';
import { installed, run } from '../../src/drive/run.js';

describe('the real agents', () => {
  for (const agent of AGENTS) {
    const present = installed(agent);
    if (!present) console.warn(`live drive test: ${agent} is not installed here; skipped`);
    it.skipIf(!present)(
      // These need the agent installed and logged in on this machine, and its vendor's network: the
      // lab (test/lab) proves every agent offline; this says the same holds against the real service.
      `${agent} answers a one-word prompt${present ? '' : ` (skipped: not on PATH; ${spec(agent).installHint}, and log in)`}`,
      async (ctx) => {
        try {
          const o = await run({
            agent,
            prompt: 'Reply with exactly the word pong and nothing else.',
            timeoutMs: 180_000,
            env: 'inherit',
          });
          expect(o.stop.kind).toBe('completed');
          expect(o.text.toLowerCase()).toContain('pong');
          expect(o.session).not.toBeNull();
          expect(o.unparsed, `unparsed output, first: ${o.firstUnparsed}`).toBe(0);
        } catch (e) {
          if (e instanceof DriveError && e.failure.kind === 'not_authenticated') {
            ctx.skip(`${agent} is installed but not logged in (${e.message}); log in to ${agent}`);
          }
          throw e;
        }
      },
      200_000,
    );
  }
});
