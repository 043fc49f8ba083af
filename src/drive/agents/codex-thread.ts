/**
 * This run's share of a Codex thread's running token total.
 *
 * `turn.completed` reports the whole thread's running total, not the turn's: three runs of one
 * thread (codex-cli 0.169.0: `exec`, then `exec resume` twice) reported input 19857, 40088, 50338.
 * Reporting that as the run's usage would charge a resumed run for every run before it. So a resumed
 * run asks the Codex provider, before Codex starts, for the total the thread had already reached
 * (`providers/codex/thread.ts`: the last `token_count` in its rollout, the very counter
 * `turn.completed` continues), and the run's share is the final total minus that one.
 *
 * When the earlier total cannot be read (no rollout, no `token_count` within the tail read, a total
 * that went down), the run's share is unknown and stays null; the thread's total is still reported.
 */
import { emptyTokens, TOKEN_FIELDS, type TokenCounts } from '../../model/usage.js';
import { threadTotal } from '../../providers/codex/thread.js';
import type { Env } from '../env.js';
import type { Plan } from '../request.js';
import type { Baseline } from './spec.js';

/**
 * This run's share of a thread's running total. A field the baseline lacks is unknown; a total that
 * went down means the counter restarted, so nothing of the difference can be trusted.
 */
export function runShare(thread: TokenCounts, baseline: Baseline): TokenCounts {
  switch (baseline.kind) {
    case 'fresh':
      return { ...thread };
    case 'unknown':
      return emptyTokens();
    case 'known': {
      const out = emptyTokens();
      for (const key of TOKEN_FIELDS) {
        const now = thread[key];
        const before = baseline.tokens[key];
        if (now === null || before === null) continue;
        if (now < before) return emptyTokens();
        out[key] = now - before;
      }
      return out;
    }
  }
}

/** The thread's total before this run: read from its rollout when the run resumes one. */
export function codexBaseline(plan: Plan, env: Env): Baseline {
  if (plan.session.kind !== 'resume') return { kind: 'fresh' };
  // Plain-text output carries no usage to take a share of.
  if (plan.format === 'text') return { kind: 'unknown' };
  const tokens = threadTotal(env, plan.session.id);
  return tokens === null ? { kind: 'unknown' } : { kind: 'known', tokens };
}
