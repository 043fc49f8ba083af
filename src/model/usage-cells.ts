/**
 * A session's requests summed per UTC hour, local day and model: the facts every spend report is
 * made from (daily, weekly and monthly periods, Claude's 5-hour blocks, where the money went,
 * budgets, the statusline's today and block). A build keeps them with each session, so a report
 * reads no transcript and no request ledger.
 *
 * Why this grain: a day report needs local days, a block needs UTC hours and the time of its first
 * and last request, and every report splits by model. Within one cell requests are less than an
 * hour apart, so a 5-hour gap between requests is always a gap between cells and blocks come out as
 * they would from single requests (see `spend/blocks.ts`). A UTC hour falls in two local days only in
 * a zone whose offset is not whole hours; it is then two cells.
 *
 * Absent is not zero: a token field no request recorded stays null, and a model without a price has
 * `usd: null`, never 0.
 *
 * Not here: which sessions count (the build's filters), or how a report groups cells.
 */
import type { ProviderId } from './facts.js';
import { TOKEN_FIELDS, type TokenCounts } from './usage.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;

export interface UsageCell {
  /** Start of the UTC hour (ms). */
  hour: number;
  /** Local day number (days since 1970-01-01 in the build's zone). */
  day: number;
  model: string;
  requests: number;
  tokens: TokenCounts;
  /** Retail cost (estimated, or reported by the harness); null when the model has no price. */
  usd: number | null;
  /** Times of the first and last request in the cell (ms). */
  firstMs: number;
  lastMs: number;
}

/** One session's cells, with what a report groups sessions by. */
export interface SessionUsage {
  provider: ProviderId;
  id: string;
  project: string | null;
  cells: readonly UsageCell[];
}

/** What `addLedger` fills: cells by a numeric key, so the per-request loop builds no string. */
export class CellSink {
  /** By hour and day (`hourDayKey`), then by model id. */
  private readonly cells = new Map<number, (UsageCell | undefined)[]>();
  private readonly modelIds = new Map<string, number>();
  private readonly models: string[] = [];

  /** A number for `model`, the same across every file of the session. */
  modelId(model: string): number {
    let id = this.modelIds.get(model);
    if (id === undefined) {
      id = this.models.length;
      this.models.push(model);
      this.modelIds.set(model, id);
    }
    return id;
  }

  /** The cell of a request at `tsMs` on local day `day`, made on first use. */
  cell(tsMs: number, day: number, modelId: number): UsageCell {
    const hourNumber = Math.floor(tsMs / HOUR);
    // A UTC hour holds at most two local days, each within a day of the UTC one.
    const key = hourNumber * 3 + (day - Math.floor((hourNumber * HOUR) / DAY) + 1);
    let byModel = this.cells.get(key);
    if (byModel === undefined) {
      byModel = [];
      this.cells.set(key, byModel);
    }
    let c = byModel[modelId];
    if (c === undefined) {
      c = {
        hour: hourNumber * HOUR,
        day,
        model: this.models[modelId]!,
        requests: 0,
        tokens: { input: null, output: null, cacheRead: null, cacheWrite: null, reasoning: null },
        usd: null,
        firstMs: tsMs,
        lastMs: tsMs,
      };
      byModel[modelId] = c;
    }
    if (tsMs < c.firstMs) c.firstMs = tsMs;
    if (tsMs > c.lastMs) c.lastMs = tsMs;
    return c;
  }

  /** Every cell, by hour, then day, then model. */
  list(): UsageCell[] {
    const out: UsageCell[] = [];
    for (const byModel of this.cells.values()) for (const c of byModel) if (c !== undefined) out.push(c);
    return out.sort(byHourDayModel);
  }
}

const byHourDayModel = (a: UsageCell, b: UsageCell): number =>
  a.hour - b.hour || a.day - b.day || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0);

/**
 * The cells as the index keeps them: `{"m":[models],"c":[[hour/3600000, day, model, requests,
 * input, output, cacheRead, cacheWrite, reasoning, usd, first s, last s], …]}` with null for what is
 * unknown. Times to the millisecond would make the text a third longer for nothing a report shows.
 */
export function encodeCells(cells: readonly UsageCell[]): string {
  const models: string[] = [];
  const ids = new Map<string, number>();
  const rows: (number | null)[][] = [];
  for (const c of cells) {
    let id = ids.get(c.model);
    if (id === undefined) {
      id = models.length;
      models.push(c.model);
      ids.set(c.model, id);
    }
    const t = c.tokens;
    rows.push([
      c.hour / HOUR,
      c.day,
      id,
      c.requests,
      t.input,
      t.output,
      t.cacheRead,
      t.cacheWrite,
      t.reasoning,
      c.usd,
      Math.floor(c.firstMs / 1000),
      Math.floor(c.lastMs / 1000),
    ]);
  }
  return JSON.stringify({ m: models, c: rows });
}

const ROW_LENGTH = 12;

/** Cells from `encodeCells`' text, or null when it is not what that writes. */
export function decodeCells(text: string): UsageCell[] | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const { m, c } = v as { m?: unknown; c?: unknown };
  if (!Array.isArray(m) || !m.every((x) => typeof x === 'string') || !Array.isArray(c)) return null;
  const out: UsageCell[] = [];
  for (const row of c) {
    if (!Array.isArray(row) || row.length !== ROW_LENGTH || !wellFormedRow(row, m.length)) return null;
    const [hour, day, model, requests, input, output, cacheRead, cacheWrite, reasoning, usd, first, last] =
      row as number[];
    out.push({
      hour: hour! * HOUR,
      day: day!,
      model: m[model!] as string,
      requests: requests!,
      tokens: {
        input: input!,
        output: output!,
        cacheRead: cacheRead!,
        cacheWrite: cacheWrite!,
        reasoning: reasoning!,
      },
      usd: usd!,
      firstMs: first! * 1000,
      lastMs: last! * 1000,
    });
  }
  return out;
}

function wellFormedRow(row: unknown[], models: number): boolean {
  for (let i = 0; i < ROW_LENGTH; i++) {
    const x = row[i];
    const nullable = i >= 4 && i <= 9;
    if (x === null ? !nullable : typeof x !== 'number' || !Number.isFinite(x)) return false;
  }
  const model = row[2] as number;
  return Number.isInteger(model) && model >= 0 && model < models;
}

/** Add `b`'s token counts into `a`, keeping a field null while neither knows it. */
export function addTokenCounts(a: TokenCounts, b: TokenCounts): void {
  for (const f of TOKEN_FIELDS) {
    const v = b[f];
    if (v !== null) a[f] = (a[f] ?? 0) + v;
  }
}
