/**
 * Which tools a billed request called, as the ledger keeps it: each record holds the index of a set
 * of tool names in its ledger's table, so a request costs four bytes more and the per-request loops
 * compare numbers, never strings. What a spend report splits by tool (`cctop daily --by tool`) is
 * read from here (`cost.ts` spreads each request over its set).
 *
 * Three answers are kept apart: a set of names (the request called these), the empty set (it called
 * none: it answered in words) and no set at all (its harness does not say; see `FLAG.TOOLS_KNOWN`
 * in `ledger.ts`). The last is never reported as the second.
 *
 * Names come from transcripts, which are hostile input: the table, its names and each set are
 * bounded, and what does not fit is counted under `(other)`, as `tallyTool` does for the facts.
 *
 * Not here: counting calls or their failures (that is `FileFacts.tools`), or deciding which calls a
 * request made (each provider knows its own records).
 */
import { MAX_TOOL_NAMES } from './facts.js';
import { valueListOf } from './kinds.js';

/**
 * Distinct tool sets kept per ledger (one transcript). A session uses a few dozen (each tool alone,
 * and the pairs a response calls in parallel); the bound holds the table a hostile file can grow to
 * about 1,024 × `MAX_TOOLS_PER_SET` small numbers in the index row. Past it a new set is `(other)`.
 */
export const MAX_TOOL_SETS = 1024;

/**
 * Distinct names in one set. A response that fans out calls a handful of tools, rarely ten; past
 * this the rest of its names are one `(other)`.
 */
export const MAX_TOOLS_PER_SET = 32;

/**
 * Characters of one tool name. The model APIs cap a tool's name at 64 characters (an MCP tool's
 * `mcp__server__tool` included), so twice that is room to spare; a longer name is not a real tool
 * and is counted as `(other)` rather than cut (a cut name would read as a tool that does not exist).
 */
export const MAX_TOOL_NAME_CHARS = 128;

/** Where names past the bounds are counted. */
export const OTHER_TOOL = '(other)';

/** A set of tool names, sorted, each once. */
export type ToolSet = readonly string[];

const NONE: ToolSet = [];

/** The tool-set table of a ledger under construction: sets by index, found again by their names. */
export class ToolSetTable {
  readonly sets: ToolSet[];
  /** Distinct names in the table, bounded by `MAX_TOOL_NAMES` as the facts' tallies are. */
  private readonly names = new Set<string>();
  /** Sets of one name, by that name: nearly every request that calls a tool calls one. */
  private readonly single = new Map<string, number>();
  /** Sets of several names, by their JSON (only parallel calls of different tools build it). */
  private readonly multi = new Map<string, number>();
  private empty = -1;

  /** A table continuing `sets` (a stored one): every index keeps its set. */
  constructor(sets: readonly ToolSet[] = []) {
    this.sets = valueListOf(NONE, sets);
    sets.forEach((set, id) => {
      for (const n of set) this.names.add(n);
      if (set.length === 0) {
        if (this.empty === -1) this.empty = id;
      } else if (set.length === 1) {
        if (!this.single.has(set[0]!)) this.single.set(set[0]!, id);
      } else if (!this.multi.has(JSON.stringify(set))) this.multi.set(JSON.stringify(set), id);
    });
  }

  /** The index of the set of `names` (any order, repeats allowed). */
  idOf(names: readonly string[]): number {
    if (names.length === 0) return this.emptyId();
    if (names.length === 1) {
      const id = this.single.get(names[0]!);
      if (id !== undefined) return id;
    }
    let set = [...new Set(names.map((n) => this.name(n)))].sort();
    if (set.length > MAX_TOOLS_PER_SET) {
      set = set.filter((n) => n !== OTHER_TOOL).slice(0, MAX_TOOLS_PER_SET - 1);
      set.push(OTHER_TOOL);
      set.sort();
    }
    return this.add(set);
  }

  /** The index of set `id` with `names` added. */
  union(id: number, names: readonly string[]): number {
    const set = this.sets[id] ?? NONE;
    for (const n of names) if (!set.includes(n)) return this.idOf([...set, ...names]);
    return id;
  }

  /** A name as the table keeps it: itself, or `(other)` past the bounds. */
  private name(n: string): string {
    if (n.length > MAX_TOOL_NAME_CHARS) return OTHER_TOOL;
    if (this.names.has(n) || this.names.size < MAX_TOOL_NAMES) return n;
    return OTHER_TOOL;
  }

  private emptyId(): number {
    if (this.empty === -1) {
      this.empty = this.sets.length;
      this.sets.push(NONE);
    }
    return this.empty;
  }

  /** Add a normalised set (or find it). The empty set and `(other)` are allowed past the bound. */
  private add(set: ToolSet): number {
    if (set.length === 0) return this.emptyId();
    const key = set.length === 1 ? set[0]! : JSON.stringify(set);
    const known = set.length === 1 ? this.single.get(key) : this.multi.get(key);
    if (known !== undefined) return known;
    if (this.sets.length >= MAX_TOOL_SETS && !(set.length === 1 && set[0] === OTHER_TOOL))
      return this.add([OTHER_TOOL]);
    const id = this.sets.length;
    this.sets.push(set);
    for (const n of set) this.names.add(n);
    if (set.length === 1) this.single.set(key, id);
    else this.multi.set(key, id);
    return id;
  }
}

/**
 * A stored table (`encodeToolSets`): `{"n":[names],"s":[[name index, …], …]}`, each name written
 * once however many sets hold it.
 */
export function encodeToolSets(sets: readonly ToolSet[]): string {
  const names: string[] = [];
  const ids = new Map<string, number>();
  const rows = sets.map((s) =>
    s.map((n) => {
      let id = ids.get(n);
      if (id === undefined) {
        id = names.length;
        names.push(n);
        ids.set(n, id);
      }
      return id;
    }),
  );
  return JSON.stringify({ n: names, s: rows });
}

/** The table `encodeToolSets` wrote; throws when the text is not that (the row is then damaged). */
export function decodeToolSets(text: string): ToolSet[] {
  const v = JSON.parse(text) as { n?: unknown; s?: unknown } | null;
  const names = v?.n;
  const rows = v?.s;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string') || !Array.isArray(rows))
    throw new Error('tool sets of the wrong shape');
  return rows.map((r: unknown) => {
    if (!Array.isArray(r) || r.length > MAX_TOOLS_PER_SET) throw new Error('tool set of the wrong shape');
    return r.map((i: unknown) => {
      if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= names.length)
        throw new Error('tool name index out of range');
      return names[i] as string;
    });
  });
}

/**
 * Add a tool's name to the names a request has called so far (kept by a parser until the request's
 * usage arrives), each once and within the same bounds as a set: past them, `(other)`.
 */
export function noteToolName(names: string[], name: string): void {
  const n = name.length > MAX_TOOL_NAME_CHARS ? OTHER_TOOL : name;
  if (names.includes(n)) return;
  if (names.length < MAX_TOOLS_PER_SET - 1) names.push(n);
  else if (!names.includes(OTHER_TOOL)) names.push(OTHER_TOOL);
}
