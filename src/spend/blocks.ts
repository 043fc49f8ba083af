/**
 * Claude Code's 5-hour billing blocks (`cctop blocks`, the statusline's block), with ccusage's rules:
 * a block starts at the UTC hour of its first request and lasts five hours; a request past the end,
 * or more than five hours after the block's last request, starts the next one; a silence longer
 * than five hours is shown as a gap (from five hours after the last request to the next request).
 *
 * Built from usage cells, not single requests: every request of one cell lies in one UTC hour, so a
 * cell's hour decides whether it is past a block's end, and a gap of five hours between requests is
 * always between cells (its first and last times are kept to the second). The one difference from
 * single requests: a request at exactly the fifth hour to the millisecond starts the next block here
 * and stays in its block in ccusage.
 *
 * Another machine's blocks are not merged block by block (two machines' blocks need not line up):
 * its requests per UTC hour (`hourCells`, sent with `cctop blocks --json --hours`) are read back as
 * cells and counted with this machine's, so one account's windows come out as if every request had
 * been made here.
 *
 * Not here: which sessions count (Claude Code's; the caller chooses), printing.
 */
import type { ProviderId } from '../model/facts.js';
import { TOKEN_FIELDS } from '../model/usage.js';
import type { SessionUsage, UsageCell } from '../model/usage-cells.js';
import { addCell, emptyTally, type SpendTally, settled } from './tally.js';

/** How long a block lasts, and the silence that ends one. */
export const BLOCK_MS = 5 * 3_600_000;

export interface BurnRate {
  /** Every token kind (input, output, cache read and write) per minute, first to last request. */
  tokensPerMinute: number;
  usdPerMinute: number | null;
}

export interface Projection {
  /** What the block will have spent at its end at the burn rate so far. */
  totalTokens: number;
  usd: number | null;
  remainingMinutes: number;
}

export type Block =
  | (SpendTally & {
      kind: 'block';
      startMs: number;
      endMs: number;
      /** The time of its last request. */
      lastMs: number;
      firstMs: number;
      active: boolean;
      models: string[];
      burnRate: BurnRate | null;
      projection: Projection | null;
      /** Over `--token-limit`. */
      overLimit: boolean;
    })
  | { kind: 'gap'; startMs: number; endMs: number };

export interface BlockOptions {
  nowMs: number;
  included: (provider: ProviderId) => boolean;
  /** `--token-limit`: a number, `max` (the largest finished block), or none. */
  tokenLimit: number | 'max' | null;
}

export interface BlockReport {
  blocks: Block[];
  /** The limit blocks were measured against (`max` resolved), or null. */
  tokenLimit: number | null;
}

interface Hour {
  hour: number;
  cells: { cell: UsageCell; included: boolean }[];
  firstMs: number;
  lastMs: number;
}

/** Every cell of the given sessions merged per UTC hour, oldest first. */
function hoursOf(sessions: readonly SessionUsage[], included: BlockOptions['included']): Hour[] {
  const hours = new Map<number, Hour>();
  for (const s of sessions) {
    const inc = included(s.provider);
    for (const cell of s.cells) {
      let h = hours.get(cell.hour);
      if (h === undefined) {
        h = { hour: cell.hour, cells: [], firstMs: cell.firstMs, lastMs: cell.lastMs };
        hours.set(cell.hour, h);
      }
      h.cells.push({ cell, included: inc });
      h.firstMs = Math.min(h.firstMs, cell.firstMs);
      h.lastMs = Math.max(h.lastMs, cell.lastMs);
    }
  }
  return [...hours.values()].sort((a, b) => a.hour - b.hour);
}

/** One UTC hour's requests per model, with its first and last request: what a block is cut from. */
export interface HourCells {
  hour: number;
  firstMs: number;
  lastMs: number;
  cells: Pick<UsageCell, 'model' | 'requests' | 'tokens' | 'usd'>[];
}

/** The requests of `sessions` (give it Claude Code's) per UTC hour and model, oldest first. */
export function hourCells(sessions: readonly SessionUsage[]): HourCells[] {
  return hoursOf(sessions, () => false).map((h) => {
    const byModel = new Map<string, HourCells['cells'][number]>();
    for (const { cell } of h.cells) {
      // Priced and unpriced requests of a model stay apart, as they are counted apart.
      const key = `${cell.usd === null ? 'unpriced' : 'priced'} ${cell.model}`;
      const m = byModel.get(key);
      if (m === undefined) {
        byModel.set(key, {
          model: cell.model,
          requests: cell.requests,
          tokens: { ...cell.tokens },
          usd: cell.usd,
        });
        continue;
      }
      m.requests += cell.requests;
      for (const f of TOKEN_FIELDS) {
        const v = cell.tokens[f];
        if (v !== null) m.tokens[f] = (m.tokens[f] ?? 0) + v;
      }
      if (cell.usd !== null) m.usd = (m.usd ?? 0) + cell.usd;
    }
    return { hour: h.hour, firstMs: h.firstMs, lastMs: h.lastMs, cells: [...byModel.values()] };
  });
}

function closeBlock(hours: Hour[], nowMs: number): Block & { kind: 'block' } {
  const tally = emptyTally();
  const models = new Set<string>();
  for (const h of hours) {
    for (const { cell, included } of h.cells) {
      addCell(tally, cell, included);
      models.add(cell.model);
    }
  }
  const startMs = hours[0]!.hour;
  const endMs = startMs + BLOCK_MS;
  const firstMs = hours[0]!.firstMs;
  const lastMs = hours.at(-1)!.lastMs;
  const active = nowMs - lastMs < BLOCK_MS && nowMs < endMs;
  const t = settled(tally);
  const burnRate = burnOf(t, firstMs, lastMs);
  return {
    kind: 'block',
    ...t,
    startMs,
    endMs,
    firstMs,
    lastMs,
    active,
    models: [...models].sort(),
    burnRate,
    projection: active && burnRate !== null ? projectionOf(t, burnRate, endMs, nowMs) : null,
    overLimit: false,
  };
}

function burnOf(t: SpendTally, firstMs: number, lastMs: number): BurnRate | null {
  const minutes = (lastMs - firstMs) / 60_000;
  if (minutes <= 0) return null;
  return {
    tokensPerMinute: (t.totalTokens ?? 0) / minutes,
    usdPerMinute: t.cost.usd === null ? null : t.cost.usd / minutes,
  };
}

function projectionOf(t: SpendTally, rate: BurnRate, endMs: number, nowMs: number): Projection {
  const remainingMinutes = Math.max(0, (endMs - nowMs) / 60_000);
  return {
    totalTokens: Math.round((t.totalTokens ?? 0) + rate.tokensPerMinute * remainingMinutes),
    usd:
      t.cost.usd === null || rate.usdPerMinute === null
        ? null
        : t.cost.usd + rate.usdPerMinute * remainingMinutes,
    remainingMinutes: Math.round(remainingMinutes),
  };
}

/** The blocks of `sessions` (give it Claude Code's), oldest first, gaps between them. */
export function blockReport(sessions: readonly SessionUsage[], o: BlockOptions): BlockReport {
  const blocks: Block[] = [];
  let current: Hour[] = [];
  for (const h of hoursOf(sessions, o.included)) {
    const first = current[0];
    if (first !== undefined) {
      const last = current.at(-1)!;
      const silent = h.firstMs - last.lastMs > BLOCK_MS;
      if (h.hour - first.hour >= BLOCK_MS || silent) {
        blocks.push(closeBlock(current, o.nowMs));
        if (silent) blocks.push({ kind: 'gap', startMs: last.lastMs + BLOCK_MS, endMs: h.firstMs });
        current = [];
      }
    }
    current.push(h);
  }
  if (current.length > 0) blocks.push(closeBlock(current, o.nowMs));
  // A gap starts five hours after a block's last request, which can be after the next block's start
  // (floored to its hour): in order of start, as ccusage lists them.
  blocks.sort((a, b) => a.startMs - b.startMs);
  const tokenLimit = limitOf(blocks, o.tokenLimit);
  if (tokenLimit !== null)
    for (const b of blocks) if (b.kind === 'block') b.overLimit = (b.totalTokens ?? 0) > tokenLimit;
  return { blocks, tokenLimit };
}

function limitOf(blocks: readonly Block[], limit: BlockOptions['tokenLimit']): number | null {
  if (limit !== 'max') return limit;
  let max = 0;
  for (const b of blocks) if (b.kind === 'block' && !b.active) max = Math.max(max, b.totalTokens ?? 0);
  return max > 0 ? max : null;
}

/** The block running now, if any. */
export function activeBlock(r: BlockReport): (Block & { kind: 'block' }) | null {
  const last = r.blocks.at(-1);
  return last?.kind === 'block' && last.active ? last : null;
}
