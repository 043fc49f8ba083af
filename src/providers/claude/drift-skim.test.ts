/**
 * Drift's samples of Claude lines are read from their bytes, not parsed: the keys, the type and the
 * version come out as `Object.keys` and the parsed line give them, on every line the lab recorded
 * from the real CLI and on lines made to fool a byte search; and a line the walk cannot be sure of
 * (an escaped key or value) is handed back to the full parse.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DriftFacts } from '../../model/facts.js';
import { parseObject } from '../../model/json.js';
import { REPO } from '../../test-support/corpus.js';
import { DriftTally } from '../drift.js';
import { SkimError } from '../skim.js';
import { lineFromBytes } from './bytes.js';
import { topLog } from './bytes-walk.js';
import { CLAUDE_DRIFT } from './known.js';

/** What the full parse says of a line: the reference the byte reading must equal. */
function parsed(line: string) {
  const o = parseObject(line)!;
  return { type: CLAUDE_DRIFT.type(o), version: CLAUDE_DRIFT.version(o), fields: CLAUDE_DRIFT.fields(o) };
}

const skimmed = (line: string) => {
  const b = Buffer.from(line);
  return CLAUDE_DRIFT.skimmed!(b, 0, b.length);
};

function labLines(): string[] {
  const root = join(REPO, 'lab', 'fixtures', 'claude');
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl')) out.push(...readFileSync(p, 'utf8').split('\n').filter(Boolean));
    }
  };
  walk(root);
  return out;
}

describe("drift's reading of a Claude line's bytes", () => {
  it('names the keys, type and version the parsed line has, on every line the lab recorded', () => {
    const lines = labLines();
    expect(lines.length).toBeGreaterThan(100);
    for (const line of lines) expect(skimmed(line), line.slice(0, 120)).toEqual(parsed(line));
  });

  it('is not fooled by the same keys nested in the message, in a tool result, or quoted in a string', () => {
    const lines = [
      // No type or version of its own: only nested ones.
      '{"uuid":"u","message":{"type":"message","version":"9.9","role":"assistant"},"toolUseResult":{"type":"text","version":"8.8"}}',
      // The keys spelled inside a string, quotes escaped.
      '{"type":"user","message":{"content":"{\\"type\\":\\"assistant\\",\\"version\\":\\"7.7\\"}"}}',
      // A repeated key: its first place, its last value; a type that is not a string is none.
      '{"type":"user","version":"2.0.1","a":1,"type":"assistant","version":3}',
      '{"version":"1.0.0","type":null}',
      '  {"type" : "summary" ,"leafUuid":"x"}  ',
      '{}',
    ];
    for (const line of lines) expect(skimmed(line), line).toEqual(parsed(line));
  });

  it('hands a line with an escaped key or an escaped type or version to the full parse', () => {
    for (const line of [
      '{"\\u0074ype":"assistant","version":"2.0.0"}',
      '{"type":"assist\\u0061nt","version":"2.0.0"}',
      '{"type":"user","version":"2.0.\\u0030"}',
    ])
      expect(skimmed(line), line).toBeNull();
  });

  it("reads the same from the extractor's walk of the line, just made, as from a walk of its own", () => {
    const lines = [
      ...labLines(),
      '{"uuid":"u","message":{"type":"message","version":"9.9","role":"assistant"},"toolUseResult":{"type":"text","version":"8.8"}}',
      '{"type":"user","message":{"content":"{\\"type\\":\\"assistant\\",\\"version\\":\\"7.7\\"}"}}',
      '{"type":"user","version":"2.0.1","a":1,"type":"assistant","version":3}',
      '  {"type" : "summary" ,"leafUuid":"x"}  ',
      '{}',
    ];
    let fromLog = 0;
    for (const line of lines) {
      const b = Buffer.from(line);
      try {
        lineFromBytes(b, 0, b.length);
        if (topLog.holds(b, 0, b.length)) fromLog++;
      } catch (err) {
        if (!(err instanceof SkimError)) throw err;
      }
      expect(CLAUDE_DRIFT.skimmed!(b, 0, b.length), line.slice(0, 120)).toEqual(parsed(line));
    }
    expect(fromLog).toBeGreaterThan(100);
    // An escaped key is handed back to the parse from the walk's log too.
    const escaped = Buffer.from('{"\\u0074ype":"assistant","version":"2.0.0"}');
    lineFromBytes(escaped, 0, escaped.length);
    expect(topLog.holds(escaped, 0, escaped.length)).toBe(true);
    expect(CLAUDE_DRIFT.skimmed!(escaped, 0, escaped.length)).toBeNull();
  });

  it('a line handed back is still read: its escaped key counts as the type it spells', () => {
    const facts: { drift?: DriftFacts | null; cliVersion?: string | null } = {};
    const tally = new DriftTally(facts, CLAUDE_DRIFT);
    const b = Buffer.from('{"\\u0074ype":"brand-new","version":"9.0.0"}');
    tally.line(b, 0, b.length, 1, 'brand-new');
    expect(facts.drift).toEqual({ '9.0.0': { types: { 'brand-new': { count: 1, line: 1 } }, fields: {} } });
  });
});
