/**
 * `GET /api/handoff/<session>?to=HARNESS`: the line that hands a session over to another harness
 * (`cctop handoff ID --to HARNESS --run`), for the session page's Hand off button to show.
 *
 * A read like any other: it shows a command and runs nothing, writes no brief, and so answers both
 * token levels. The brief is written when the person runs the line, on the machine they run it on.
 *
 * Not here: the guards every request passes and the session lookup (`app.ts`), the line itself
 * (`share/targets.ts`).
 */
import type { Context, Hono } from 'hono';
import type { LiveSessions } from '../../live/engine.js';
import { defaultTarget, HANDOFF_TARGETS, handoffInvocation, isHandoffTarget } from '../../share/targets.js';
import type { ErrorAnswer, HandoffAnswer } from './api.js';
import type { Resolve, ServeEnv } from './app.js';
import { sessionId } from './ids.js';

export interface HandoffDeps {
  live: LiveSessions;
  /** Resolves once the first scan is done (the document is there to look in). */
  ready: () => Promise<unknown>;
  resolve: Resolve;
}

export function handoffRoutes(app: Hono<ServeEnv>, d: HandoffDeps): void {
  app.get('/api/handoff/:id', async (c: Context<ServeEnv>) => {
    await d.ready();
    const found = d.resolve(c, d.live.document!, sessionId(c.req.param('id')));
    if (!found.ok) return found.res;
    const s = found.session;
    const asked = c.req.query('to');
    c.header('Cache-Control', 'no-store');
    if (asked !== undefined && !isHandoffTarget(asked))
      return c.json(
        { error: `to= names a harness: ${HANDOFF_TARGETS.join(', ')}` } satisfies ErrorAnswer,
        400,
      );
    const to = asked ?? defaultTarget(s.provider);
    return c.json({
      session: s.id,
      to,
      targets: HANDOFF_TARGETS,
      command: handoffInvocation(s, to),
    } satisfies HandoffAnswer);
  });
}
