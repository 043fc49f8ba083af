/**
 * One report from this machine's and other machines' (`--host`): the same period's tallies summed
 * with the rule every local sum uses (`addSpend`: an unknown token field stays unknown, spend on
 * models without a price stays apart and is never $0), each split merged by its key, and a period
 * only one machine has kept as it is. The local report is not changed.
 *
 * Why totals are summed rather than re-counted: a remote machine sends its report, not its requests,
 * so a tally is all there is to add. A tool group's tokens are a total with no kinds (its five token
 * fields are null), so a group's total tokens are summed as totals, not re-derived from the kinds.
 *
 * Not here: reading the remote reports (`remote-read.ts`) or asking for them (`remote.ts`). Blocks
 * are not merged (docs/reports.md says why).
 */
import { money } from '../model/money.js';
import { addSpend } from '../model/totals.js';
import { byCost, type Group, type PeriodReport, type PeriodRow, settledShares } from './periods.js';
import type { RemoteWhere } from './remote-read.js';
import { emptyTally, type SpendTally, settled } from './tally.js';
import { DIMENSIONS, type Ranked, type WhereReport } from './where.js';

/** Add `o` into `t`: `addSpend`'s rules, and total tokens summed as totals (null-aware). */
export function sumInto(t: SpendTally, o: SpendTally): void {
  addSpend(t, {
    requests: o.requests,
    tokens: o.tokens,
    usd: o.cost.usd,
    included: o.cost.included,
    unpricedTokens: o.cost.unpricedTokens,
  });
  if (o.totalTokens !== null) t.totalTokens = (t.totalTokens ?? 0) + o.totalTokens;
}

type Keyed = SpendTally & { key: string };

function mergeKeyed(into: Map<string, SpendTally>, list: readonly Keyed[] | undefined): void {
  for (const g of list ?? []) {
    let t = into.get(g.key);
    if (t === undefined) {
      t = emptyTally();
      into.set(g.key, t);
    }
    sumInto(t, g);
  }
}

const groupsOf = (m: Map<string, SpendTally>, shares: boolean): Group[] =>
  [...m]
    .map(([key, t]) => {
      const g = { key, ...settled(t) };
      return shares ? settledShares(g) : g;
    })
    .sort(byCost);

interface Building {
  row: Pick<PeriodRow, 'period' | 'from' | 'to'>;
  tally: SpendTally;
  models: Set<string>;
  groups: Map<string, SpendTally> | null;
  breakdown: Map<string, SpendTally> | null;
}

/**
 * `local` with the periods of other machines summed in, oldest first (the caller orders them); a
 * period only a remote machine has is added. `remotes` are rows read from each host's report of
 * the same kind, split and zone; `breakdown`: whether the per-model lines were asked for.
 */
export function mergePeriods(
  local: PeriodReport,
  remotes: readonly (readonly PeriodRow[])[],
  breakdown: boolean,
): PeriodReport {
  const periods = new Map<string, Building>();
  for (const rows of [local.periods, ...remotes]) {
    for (const r of rows) {
      let p = periods.get(r.period);
      if (p === undefined) {
        p = {
          row: { period: r.period, from: r.from, to: r.to },
          tally: emptyTally(),
          models: new Set(),
          groups: local.by === null ? null : new Map(),
          breakdown: breakdown ? new Map() : null,
        };
        periods.set(r.period, p);
      }
      sumInto(p.tally, r);
      for (const m of r.models) p.models.add(m);
      if (p.groups !== null) mergeKeyed(p.groups, r.groups);
      if (p.breakdown !== null) mergeKeyed(p.breakdown, r.breakdown);
    }
  }
  const totals = emptyTally();
  const out: PeriodRow[] = [];
  for (const key of [...periods.keys()].sort()) {
    const p = periods.get(key)!;
    sumInto(totals, p.tally);
    const row: PeriodRow = { ...p.row, ...settled(p.tally), models: [...p.models].sort() };
    if (p.groups !== null) row.groups = groupsOf(p.groups, local.by === 'tool');
    if (p.breakdown !== null) row.breakdown = groupsOf(p.breakdown, false);
    out.push(row);
  }
  return { unit: local.unit, by: local.by, periods: out, totals: settled(totals) };
}

/** Add two costs: unknown only when both are. */
const plusUsd = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : a + b;

const roundUsd = (v: number | null): number | null => (v === null ? null : money(v));

/** `local` (`cctop spend`) with other machines' spend over the same period summed in. */
export function mergeWhere(local: WhereReport, remotes: readonly RemoteWhere[]): WhereReport {
  const total = emptyTally();
  const previousTotal = emptyTally();
  sumInto(total, local.total);
  sumInto(previousTotal, local.previousTotal);
  for (const r of remotes) {
    sumInto(total, r.total);
    sumInto(previousTotal, r.previousTotal);
  }
  const all = settled(total);
  const totalUsd = all.cost.usd;
  const ranked = {} as WhereReport['ranked'];
  for (const d of DIMENSIONS) {
    const sums = new Map<string, SpendTally>();
    const before = new Map<string, number | null>();
    for (const list of [local.ranked[d], ...remotes.map((r) => r.ranked[d])]) {
      mergeKeyed(sums, list);
      for (const r of list) before.set(r.key, plusUsd(before.get(r.key) ?? null, r.previousUsd));
    }
    ranked[d] = groupsOf(sums, d === 'tool')
      .map(
        (g): Ranked => ({
          ...g,
          share: totalUsd === null || totalUsd === 0 || g.cost.usd === null ? null : g.cost.usd / totalUsd,
          previousUsd: roundUsd(before.get(g.key) ?? null),
        }),
      )
      .sort(byCost);
  }
  return { ...local, total: all, previousTotal: settled(previousTotal), ranked };
}
