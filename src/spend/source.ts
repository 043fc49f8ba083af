/**
 * Where the spend reports get their cells: the one session index, refreshed as `cctop --json` would
 * be (every harness asked for, no day filter, retail prices), so a report after a warm `--json` reads
 * no transcript, and the reports share one kept build whatever their flags. Day ranges and plans
 * are applied by the reports to the cells (`periods.ts`, `blocks.ts`, `where.ts`).
 */
import type { ProviderId } from '../model/facts.js';
import type { LocalTime } from '../model/time.js';
import type { SessionUsage } from '../model/usage-cells.js';
import type { Env } from '../providers/types.js';

export interface UsageQuery {
  env: Env;
  providers: readonly ProviderId[] | null;
  timeZone: string | undefined;
  useIndex: boolean;
  threads: number | undefined;
  nowMs?: number;
  /**
   * Whether the report splits cells by tool; false reads them without that split (none is made:
   * two thirds of decoding the cells of a day report). Left out: with it.
   */
  withTools?: boolean;
}

export interface LoadedUsage {
  sessions: SessionUsage[];
  time: LocalTime;
  notice: string | null;
}

export async function loadUsage(q: UsageQuery): Promise<LoadedUsage> {
  const withTools = q.withTools !== false;
  // Nothing changed since the last answer: the cells come from the warm snapshot, the index unopened.
  if (q.useIndex) {
    const { readWarm } = await import('../index/warm.js');
    const w = readWarm({
      env: q.env,
      plan: 'retail',
      providers: q.providers,
      timeZone: q.timeZone,
      sinceMs: null,
      untilMs: null,
      nowMs: q.nowMs ?? Date.now(),
    });
    if (w.kind === 'answered')
      return { sessions: w.snapshot.usage(withTools), time: w.snapshot.time, notice: null };
  }
  const { takeSnapshot } = await import('../index/snapshot.js');
  const progress = (await import('../views/cli/progress.js')).stderrProgress();
  const s = await takeSnapshot({
    env: q.env,
    plan: 'retail',
    providers: q.providers,
    timeZone: q.timeZone,
    sinceMs: null,
    untilMs: null,
    useIndex: q.useIndex,
    threads: q.threads,
    ...(q.nowMs === undefined ? {} : { nowMs: q.nowMs }),
    ...(progress ? { onBuilding: progress.onBuilding } : {}),
  }).finally(() => progress?.done());
  return { sessions: s.index.usage(undefined, withTools), time: s.time, notice: s.notice };
}
