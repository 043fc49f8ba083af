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
 * Each cell also splits its requests by the tools they called (`tools`): a request's cost, total
 * tokens and count are spread evenly over its tools, `(none)` when it called none and `(unknown)`
 * when its harness does not say. The shares of a cell add up to the cell; a cell none of whose
 * requests said has no split at all (read as all `(unknown)`, `toolShares`), so harnesses that never
 * say cost nothing.
 *
 * Not here: which sessions count (the build's filters), or how a report groups cells.
 */
import type { ProviderId } from './facts.js';
import { sparseList } from './kinds.js';
import { TOKEN_FIELDS, type TokenCounts, totalTokens } from './usage.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** Where requests that called no tool are counted. */
export const NO_TOOL = '(none)';
/** Where requests are counted whose harness does not say which tools they called. */
export const UNKNOWN_TOOLS = '(unknown)';

/** One tool's part of a cell: its even share of each request that called it. */
export interface ToolShare {
  tool: string;
  /**
   * Its share of the cell's priced cost; 0 when none of its requests had a price (the cell's `usd`
   * says whether any request in it had one, as it does for the cell's tokens).
   */
  usd: number;
  /** Its share of input + output + cache read + cache write: a fraction, rounded when printed. */
  tokens: number;
  /** Its share of the requests: a fraction too. */
  requests: number;
}

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
  /** By tool, by name; absent when no request in the cell said which tools it called. */
  tools?: ToolShare[];
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
  /** By hour and day (`hourDayKey`), then by model id (arrays with gaps from birth, `kinds.ts`). */
  private readonly cells = new Map<number, (UsageCell | undefined)[]>();
  private readonly modelIds = new Map<string, number>();
  private readonly models: string[] = [];
  private readonly toolIds = new Map<string, number>();
  private readonly toolNames: string[] = [];
  /** Each cell's shares by tool id, filled by `split` and listed on the cell by `list`. */
  private readonly shares = new Map<UsageCell, (ToolShare | undefined)[]>();

  /** A number for a tool name (or `NO_TOOL`, `UNKNOWN_TOOLS`), the same across the session's files. */
  toolId(name: string): number {
    let id = this.toolIds.get(name);
    if (id === undefined) {
      id = this.toolNames.length;
      this.toolNames.push(name);
      this.toolIds.set(name, id);
    }
    return id;
  }

  /** The cell `split` was last given and its shares: a session's requests come cell after cell. */
  private lastCell: UsageCell | null = null;
  private lastShares = sparseList<ToolShare>();

  /** Spread one request of `cell` (its cost, its total tokens) evenly over the tools `tools` names. */
  split(cell: UsageCell, tools: ArrayLike<number>, usd: number, tokens: number): void {
    let byTool = cell === this.lastCell ? this.lastShares : this.shares.get(cell);
    if (byTool === undefined) {
      byTool = sparseList<ToolShare>();
      this.shares.set(cell, byTool);
    }
    this.lastCell = cell;
    this.lastShares = byTool;
    const part = 1 / tools.length;
    for (let k = 0; k < tools.length; k++) {
      const id = tools[k]!;
      let s = byTool[id];
      if (s === undefined) {
        s = { tool: this.toolNames[id]!, usd: 0, tokens: 0, requests: 0 };
        byTool[id] = s;
      }
      s.usd += usd * part;
      s.tokens += tokens * part;
      s.requests += part;
    }
  }

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
      byModel = sparseList<UsageCell>();
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

  /** Every cell, by hour, then day, then model, with its split by tool where a request said. */
  list(): UsageCell[] {
    const out: UsageCell[] = [];
    for (const byModel of this.cells.values()) for (const c of byModel) if (c !== undefined) out.push(c);
    for (const c of out) {
      const tools = (this.shares.get(c) ?? []).filter((s) => s !== undefined);
      if (tools.length === 0 || (tools.length === 1 && tools[0]!.tool === UNKNOWN_TOOLS)) delete c.tools;
      else c.tools = tools.sort(byTool);
    }
    return out.sort(byHourDayModel);
  }
}

const byTool = (a: ToolShare, b: ToolShare): number => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0);

/** A cell's split by tool; a cell without one is all `(unknown)`. */
export function toolShares(c: UsageCell): readonly ToolShare[] {
  return (
    c.tools ?? [
      { tool: UNKNOWN_TOOLS, usd: c.usd ?? 0, tokens: totalTokens(c.tokens) ?? 0, requests: c.requests },
    ]
  );
}

const byHourDayModel = (a: UsageCell, b: UsageCell): number =>
  a.hour - b.hour || a.day - b.day || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0);

/** Names in the order a text first uses them, each written once. */
class Names {
  readonly list: string[] = [];
  private readonly ids = new Map<string, number>();

  id(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.list.length;
      this.list.push(name);
      this.ids.set(name, id);
    }
    return id;
  }
}

/**
 * Decimal places a stored share keeps: a nano-dollar, a millionth of a token or request. A share is a
 * sum of requests split in thirds or sevenths; its full binary fraction would make the text half as
 * long again for digits no report prints (money is settled to the micro-dollar).
 */
const SHARE_USD_SCALE = 1e9;
const SHARE_COUNT_SCALE = 1e6;
const rounded = (x: number, scale: number): number => Math.round(x * scale) / scale;

/**
 * The cells as the index keeps them: `{"m":[models],"t":[tools],"c":[[hour/3600000, day, model,
 * requests, input, output, cacheRead, cacheWrite, reasoning, usd, first s, last s], …]}` with null
 * for what is unknown; a cell split by tool adds `[[tool, usd, tokens, requests], …]` to its row.
 * Times to the millisecond would make the text a third longer for nothing a report shows.
 */
export function encodeCells(cells: readonly UsageCell[]): string {
  const models = new Names();
  const tools = new Names();
  const rows: (number | null | number[][])[][] = [];
  for (const c of cells) {
    const t = c.tokens;
    const row: (number | null | number[][])[] = [
      c.hour / HOUR,
      c.day,
      models.id(c.model),
      c.requests,
      t.input,
      t.output,
      t.cacheRead,
      t.cacheWrite,
      t.reasoning,
      c.usd,
      Math.floor(c.firstMs / 1000),
      Math.floor(c.lastMs / 1000),
    ];
    if (c.tools !== undefined)
      row.push(
        c.tools.map((s) => [
          tools.id(s.tool),
          rounded(s.usd, SHARE_USD_SCALE),
          rounded(s.tokens, SHARE_COUNT_SCALE),
          rounded(s.requests, SHARE_COUNT_SCALE),
        ]),
      );
    rows.push(row);
  }
  return JSON.stringify({ m: models.list, t: tools.list, c: rows });
}

const ROW_LENGTH = 12;

const names = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * Cells from `encodeCells`' text, or null when it is not what that writes. `withTools` false reads
 * them without their split by tool (no `tools`, and no share made: a day report over 4,000 sessions
 * makes 33,000 of them, two thirds of its decoding): only for a reader that never asks `toolShares`
 * (a report not split by tool), and never to be encoded again.
 */
export function decodeCells(text: string, withTools = true): UsageCell[] | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const { m, t, c } = v as { m?: unknown; t?: unknown; c?: unknown };
  if (!names(m) || !names(t) || !Array.isArray(c)) return null;
  const out: UsageCell[] = [];
  for (const row of c) {
    if (!Array.isArray(row) || !wellFormedRow(row, m.length)) return null;
    const [hour, day, model, requests, input, output, cacheRead, cacheWrite, reasoning, usd, first, last] =
      row as number[];
    const cell: UsageCell = {
      hour: hour! * HOUR,
      day: day!,
      model: m[model!]!,
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
    };
    if (row.length > ROW_LENGTH && !withTools) {
      if (!Array.isArray(row[ROW_LENGTH])) return null;
    } else if (row.length > ROW_LENGTH) {
      const tools = sharesOf(row[ROW_LENGTH], t);
      if (tools === null) return null;
      cell.tools = tools;
    }
    out.push(cell);
  }
  return out;
}

/** A row's split by tool, or null when it is not what `encodeCells` writes. */
function sharesOf(v: unknown, tools: readonly string[]): ToolShare[] | null {
  if (!Array.isArray(v)) return null;
  const out: ToolShare[] = [];
  for (const s of v) {
    if (!Array.isArray(s) || s.length !== 4 || !s.every((x) => typeof x === 'number' && Number.isFinite(x)))
      return null;
    const [tool, usd, tokens, requests] = s as number[];
    if (!Number.isInteger(tool) || tool! < 0 || tool! >= tools.length) return null;
    out.push({ tool: tools[tool!]!, usd: usd!, tokens: tokens!, requests: requests! });
  }
  return out;
}

function wellFormedRow(row: unknown[], models: number): boolean {
  if (row.length !== ROW_LENGTH && row.length !== ROW_LENGTH + 1) return false;
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
