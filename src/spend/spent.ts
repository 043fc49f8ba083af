/**
 * What a budget has spent: the retail cost of the usage cells in its days, of the sessions it
 * selects (a harness, a project and everything under it, or all). One function for every view that
 * shows budgets (`cctop budget`, `--list`, the live table, the dashboard, the statusline), so they
 * agree to the cent.
 *
 * Nothing spent is $0; spend on models without a price is unknown (null), never $0.
 * Retail whatever `--plan` shows: a plan changes what is paid, not what the agents burn.
 */
import { inProject, type SpentOf } from '../config/index.js';
import type { SessionUsage } from '../model/usage-cells.js';

export function spentOver(sessions: readonly SessionUsage[]): SpentOf {
  return ({ fromDay, toDay, harness, project }) => {
    let usd: number | null = null;
    let requests = 0;
    for (const s of sessions) {
      if (harness !== null && s.provider !== harness) continue;
      if (project !== null && !inProject(s.project, project)) continue;
      for (const c of s.cells) {
        if (c.day < fromDay || c.day > toDay) continue;
        requests += c.requests;
        if (c.usd !== null) usd = (usd ?? 0) + c.usd;
      }
    }
    // Nothing asked of any model is $0; requests none of which has a price are unknown.
    if (usd === null) return requests === 0 ? 0 : null;
    return Math.round(usd * 1e6) / 1e6;
  };
}
