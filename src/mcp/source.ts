/**
 * Where the server's tools get the sessions: the same snapshot a one-shot command takes
 * (`views/cli/snapshots.ts`: the index brought up to date incrementally, processes matched, the
 * agents' own word on states applied), taken afresh for each call, so every answer is of now. The
 * index is shared with every other cctop; a warm refresh reads only what changed.
 *
 * Behind an interface so the tools' own logic can be tested on a document made by hand.
 *
 * Not here: what a tool makes of it.
 */
import type { SessionDoc } from '../model/document.js';
import type { Env } from '../providers/types.js';
import type { SessionReport } from '../report/types.js';
import type { CommonOptions } from '../views/cli/options.js';

/** The sessions now, and a way to read one's report. */
export interface Picture {
  /** Every session, newest activity first, with `running` and `state` as of now. */
  sessions: readonly SessionDoc[];
  report(session: SessionDoc): Promise<SessionReport>;
}

export interface Source {
  picture(): Promise<Picture>;
}

/** The live source: a snapshot per call, under `env` with the command line's options. */
export function liveSource(env: Env, options: CommonOptions): Source {
  return {
    async picture() {
      const { snapshot } = await import('../views/cli/snapshots.js');
      const snap = await snapshot(options, env);
      return {
        sessions: snap.document.sessions,
        report: async (s) =>
          (await import('../report/of-snapshot.js')).reportFor(s, snap, () => snapshot(options, env, true)),
      };
    },
  };
}
