/**
 * Noticing that a harness writes something its reader does not know: a record type or a field that
 * was not there when the reader was written, counted per CLI version, so `cctop doctor` can say
 * "Claude Code 2.2.0: 3 record types cctop does not read" the day a release adds them.
 *
 * Each provider declares what it knows (`Known`, in its own folder) and how to name a record's type,
 * version and fields from a parsed line (`DriftReader`); this module only counts, within bounds, into
 * the file's facts (so the index keeps it and a warm run pays nothing). It parses a line only to
 * sample it: the first `SAMPLES_PER_TYPE` lines of each type in a pass, and the lines of a type it
 * does not know (counted, not parsed, after their samples). It judges nothing a record says.
 */
import type { DriftFacts, Seen, VersionDrift } from '../model/facts.js';
import { type JsonObject, obj, parseObject } from '../model/json.js';

/** What a reader knows of its harness's records: their types, and the fields a record may carry. */
export interface Known {
  types: ReadonlySet<string>;
  fields: ReadonlySet<string>;
}

/** How a provider names a parsed record: its type, the CLI version that wrote it, its field names. */
export interface DriftReader {
  known: Known;
  /** The record's type as the provider names it (`null`: the record has none). */
  type(o: JsonObject): string | null;
  version(o: JsonObject): string | null;
  /** The record's field names (a provider may name nested ones, `payload.x`). */
  fields(o: JsonObject): string[];
}

/**
 * Lines of each record type parsed per pass to look at their fields. A release that adds a field
 * adds it to most records of a type; eight find it while a file of 100 000 lines parses 8 per type
 * (a few dozen lines in all) rather than every one.
 */
export const SAMPLES_PER_TYPE = 8;
/**
 * Unknown names kept per version and kind: a new release adds a handful; a file that is not what the
 * reader thinks (or is hostile) could name thousands, and the facts are stored per file.
 */
export const MAX_UNKNOWN_NAMES = 16;
/** Versions kept per file: a session resumed across a few updates has a few; more are folded in. */
export const MAX_VERSIONS = 4;
/** Characters of an unknown name kept: names are shown in doctor, not stored whole. */
export const MAX_NAME_CHARS = 64;
/** The name under which names past the bound are counted. */
export const MORE = '(more)';
/** The version of records that name none, and of versions past `MAX_VERSIONS`. */
export const NO_VERSION = '?';

function note(table: Record<string, Seen>, name: string, line: number): void {
  const short = name.slice(0, MAX_NAME_CHARS);
  const key = table[short] !== undefined || Object.keys(table).length < MAX_UNKNOWN_NAMES ? short : MORE;
  const seen = table[key];
  if (seen === undefined) table[key] = { count: 1, line };
  else seen.count++;
}

/** One file's pass: the samples taken so far and the version of the newest record that named one. */
export class DriftTally {
  private readonly sampled = new Map<string | null, number>();
  private version: string | null;

  constructor(
    private readonly facts: { drift?: DriftFacts | null; cliVersion?: string | null },
    private readonly reader: DriftReader,
  ) {
    // A harness that names its version once (Codex, in the first record) still has it on a later pass.
    this.version = facts.cliVersion ?? null;
  }

  private of(version: string | null): VersionDrift {
    this.facts.drift ??= {};
    const all = this.facts.drift;
    let v = version ?? NO_VERSION;
    if (all[v] === undefined && Object.keys(all).length >= MAX_VERSIONS) v = NO_VERSION;
    all[v] ??= { types: {}, fields: {} };
    return all[v]!;
  }

  /**
   * Look at one line the provider read, whose type its own extractor already knows (`type`, or
   * `undefined` when it did not say): parsed only while its type is sampled.
   */
  line(b: Buffer, start: number, end: number, lineNo: number, type?: string | null): void {
    const key = type === undefined ? null : type;
    const n = this.sampled.get(key) ?? 0;
    const known = this.reader.known;
    if (n >= SAMPLES_PER_TYPE && type !== undefined) {
      if (type !== null && !known.types.has(type)) note(this.of(this.version).types, type, lineNo);
      return;
    }
    this.sampled.set(key, n + 1);
    const o = parseObject(b.toString('utf8', start, end));
    if (o === null) return;
    this.#judge(o, lineNo, true);
  }

  /**
   * Look at one record a provider parsed whole anyway (its reader has no byte fast path): nothing
   * is parsed again, and its fields are looked at for the first `SAMPLES_PER_TYPE` of its type.
   */
  object(o: JsonObject, lineNo: number): void {
    const t = this.reader.type(o);
    const n = this.sampled.get(t) ?? 0;
    if (n < SAMPLES_PER_TYPE) this.sampled.set(t, n + 1);
    this.#judge(o, lineNo, n < SAMPLES_PER_TYPE);
  }

  #judge(o: JsonObject, lineNo: number, fields: boolean): void {
    const named = this.reader.version(o);
    if (named !== null && named !== this.version) {
      this.version = named;
      this.facts.cliVersion = named;
    }
    const known = this.reader.known;
    const t = this.reader.type(o);
    const drift = () => this.of(this.version);
    if (t !== null && !known.types.has(t)) {
      // A type it does not know is one finding: its fields are all new, and say nothing more.
      note(drift().types, t, lineNo);
      return;
    }
    if (fields)
      for (const f of this.reader.fields(o)) if (!known.fields.has(f)) note(drift().fields, f, lineNo);
  }
}

/** The drift facts a stored file carries, narrowed (older facts have none; a bad value is dropped). */
export function driftOf(v: unknown): DriftFacts | null {
  const o = obj(v);
  if (o === null) return null;
  const out: DriftFacts = {};
  for (const [version, d] of Object.entries(o)) {
    const vd = obj(d);
    if (vd === null) continue;
    out[version] = { types: seenTable(vd.types), fields: seenTable(vd.fields) };
  }
  return out;
}

function seenTable(v: unknown): Record<string, Seen> {
  const out: Record<string, Seen> = {};
  for (const [name, s] of Object.entries(obj(v) ?? {})) {
    const seen = obj(s);
    if (seen && typeof seen.count === 'number' && typeof seen.line === 'number')
      out[name] = { count: seen.count, line: seen.line };
  }
  return out;
}
