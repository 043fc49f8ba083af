import { describe, expect, it } from 'vitest';
import { toolsOf } from '../test-support/tools.js';
import { addLedger, emptyTotals } from './cost.js';
import { MAX_TOOL_NAMES } from './facts.js';
import { LedgerBuilder, type RequestRecord } from './ledger.js';
import { PriceBook } from './pricing.js';
import { LocalTime } from './time.js';
import {
  decodeToolSets,
  encodeToolSets,
  MAX_TOOL_NAME_CHARS,
  MAX_TOOL_SETS,
  MAX_TOOLS_PER_SET,
  OTHER_TOOL,
  ToolSetTable,
} from './tool-sets.js';
import { decodeCells, encodeCells, NO_TOOL, toolShares, UNKNOWN_TOOLS } from './usage-cells.js';

const T = Date.parse('2026-11-29T10:00:00Z');

const request = (tools: readonly string[] | null | undefined, output = 1_000_000): RequestRecord => ({
  key: null,
  request: 0,
  tsMs: T,
  model: 'claude-sonnet-4-5',
  sidechain: false,
  tokens: { input: 0, output, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, reasoning: null },
  tools,
});

describe('the tools a ledger record called', () => {
  it('are a set: any order, repeats once; none is the empty set; not saying is unknown, not none', () => {
    const b = new LedgerBuilder();
    b.push(request(['Read', 'Bash', 'Read']));
    b.push(request(['Bash', 'Read']));
    b.push(request([]));
    b.push(request(null));
    b.push(request(undefined));
    const l = b.build();
    expect(toolsOf(l)).toEqual([['Bash', 'Read'], ['Bash', 'Read'], [], null, null]);
    expect(l.toolSets).toHaveLength(2);
  });

  it('grow by union when another copy of the response names more calls, and survive a resumed build', () => {
    const b = new LedgerBuilder();
    const at = b.push(request(['Bash']));
    b.push(request(null));
    b.addTools(at, ['Read']);
    b.addTools(1, []);
    const l = b.build();
    expect(toolsOf(l)).toEqual([['Bash', 'Read'], []]);
    const again = new LedgerBuilder(l.models, l.data, l.toolSets);
    again.push(request(['Read', 'Bash']));
    again.push(request(['Grep']));
    const m = again.build();
    expect(toolsOf(m)).toEqual([['Bash', 'Read'], [], ['Bash', 'Read'], ['Grep']]);
    expect(m.toolSets).toHaveLength(l.toolSets.length + 1);
  });

  it('keep a hostile file’s table bounded: a long name, a huge fan-out and endless sets become (other)', () => {
    const t = new ToolSetTable();
    expect(t.sets[t.idOf(['x'.repeat(MAX_TOOL_NAME_CHARS + 1)])]).toEqual([OTHER_TOOL]);
    const wide = Array.from({ length: MAX_TOOLS_PER_SET * 2 }, (_, i) => `t${String(i).padStart(3, '0')}`);
    const set = t.sets[t.idOf(wide)]!;
    expect(set).toHaveLength(MAX_TOOLS_PER_SET);
    expect(set).toContain(OTHER_TOOL);
    const named = t.sets[t.idOf([OTHER_TOOL, ...wide])]!;
    expect(named.filter((n) => n === OTHER_TOOL)).toHaveLength(1);
    expect(named).toHaveLength(MAX_TOOLS_PER_SET);
    for (let i = 0; i < MAX_TOOL_SETS * 2; i++) t.idOf([`a${i % MAX_TOOL_NAMES}`, `b${i}`]);
    expect(t.sets.length).toBeLessThanOrEqual(MAX_TOOL_SETS + 1);
    expect(t.sets[t.idOf(['new', 'pair'])]).toEqual([OTHER_TOOL]);
    expect(t.sets[t.idOf([])]).toEqual([]);
  });

  it('survive their codec, and a table that is not what it writes is refused', () => {
    const sets = [['Bash', 'Read'], [], ['Read'], [OTHER_TOOL]];
    expect(decodeToolSets(encodeToolSets(sets))).toEqual(sets);
    expect(() => decodeToolSets('{"n":["a"],"s":[[1]]}')).toThrow();
    expect(() => decodeToolSets('{"n":[1],"s":[]}')).toThrow();
    expect(() => decodeToolSets('[]')).toThrow();
  });
});

describe('usage cells split by tool', () => {
  const book = new PriceBook();
  const clock = { time: new LocalTime('UTC'), sinceMs: null, untilMs: null };

  it('spread each request evenly over its tools, (none) and (unknown) apart, summing to the cell', () => {
    const b = new LedgerBuilder();
    b.push(request(['Bash', 'Read'], 1_000_000));
    b.push(request(['Bash'], 2_000_000));
    b.push(request([], 4_000_000));
    b.push(request(null, 8_000_000));
    const totals = emptyTotals();
    addLedger(totals, b.build(), null, book, 'anthropic', clock);
    const [cell] = totals.cells.list();
    const usd = cell!.usd!;
    const per = usd / 15; // each request costs in proportion to its output: 1, 2, 4 and 8 parts
    const byTool = Object.fromEntries(cell!.tools!.map((s) => [s.tool, s]));
    expect(Object.keys(byTool)).toEqual([NO_TOOL, UNKNOWN_TOOLS, 'Bash', 'Read'].sort());
    expect(byTool.Read!.usd).toBeCloseTo(0.5 * per, 9);
    expect(byTool.Bash!.usd).toBeCloseTo(2.5 * per, 9);
    expect(byTool[NO_TOOL]!.usd).toBeCloseTo(4 * per, 9);
    expect(byTool[UNKNOWN_TOOLS]!.usd).toBeCloseTo(8 * per, 9);
    expect(byTool.Read).toMatchObject({ tokens: 500_000, requests: 0.5 });
    expect(byTool.Bash).toMatchObject({ tokens: 2_500_000, requests: 1.5 });
    const shares = cell!.tools!;
    expect(shares.reduce((a, s) => a + s.usd, 0)).toBeCloseTo(usd, 9);
    expect(shares.reduce((a, s) => a + s.requests, 0)).toBe(cell!.requests);
    expect(decodeCells(encodeCells([cell!]))).toEqual([cell]);
    // A report that does not split by tool reads the cell without its split, and nothing else less.
    const { tools: _split, ...rest } = cell!;
    expect(decodeCells(encodeCells([cell!]), false)).toEqual([rest]);
    // A split that is not one is refused still, read or not.
    const kept = JSON.parse(encodeCells([cell!])) as { c: unknown[][] };
    kept.c[0]![12] = 7;
    expect(decodeCells(JSON.stringify(kept), false)).toBeNull();
  });

  it('are left out where no request said, and read back as all (unknown)', () => {
    const b = new LedgerBuilder();
    b.push(request(null));
    const totals = emptyTotals();
    addLedger(totals, b.build(), null, book, 'anthropic', clock);
    const [cell] = totals.cells.list();
    expect(cell!.tools).toBeUndefined();
    expect(encodeCells([cell!])).not.toContain(UNKNOWN_TOOLS);
    expect(toolShares(cell!)).toEqual([
      { tool: UNKNOWN_TOOLS, usd: cell!.usd, tokens: 1_000_000, requests: 1 },
    ]);
  });
});
