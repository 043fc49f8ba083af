/**
 * Drift's samples of Codex lines are read from their bytes, not parsed: the keys, the type
 * (`type/payload.type`) and the version a `session_meta` names come out as the parsed line gives
 * them, on every line the lab recorded from the real CLI, the demo's, the corpus's where present,
 * and on lines made to fool a byte search; a line the walk cannot be sure of (an escaped key or
 * value) is handed back to the full parse.
 */
import { describe, expect, it } from 'vitest';
import type { DriftFacts } from '../../model/facts.js';
import { parseObject } from '../../model/json.js';
import { HAVE_CORPUS } from '../../test-support/corpus.js';
import { corpusFiles, demoFiles, labFiles, linesOf } from '../../test-support/lines.js';
import { DriftTally } from '../drift.js';
import { SkimError } from '../skim.js';
import { lineFromBytes, topLog } from './bytes.js';
import { CODEX_DRIFT, peekCodexType, TYPE_AT } from './known.js';

/** What the full parse says of a line: the reference the byte reading must equal. */
function parsed(line: string | Buffer) {
  const o = parseObject(line.toString())!;
  return { type: CODEX_DRIFT.type(o), version: CODEX_DRIFT.version(o), fields: CODEX_DRIFT.fields(o) };
}

const skimmed = (line: string | Buffer) => {
  const b = Buffer.from(line);
  return CODEX_DRIFT.skimmed!(b, 0, b.length);
};

/** Lines made to fool a byte search: each must read as the parse reads it. */
const FOOLING = [
  // The payload's type and version only count one level down, in the payload itself.
  '{"timestamp":"t","type":"session_meta","payload":{"id":"x","git":{"type":"gone","cli_version":"0.1"},"cli_version":"0.170.0"}}',
  '{"type":"response_item","item":{"type":"reasoning"},"payload":{"content":[{"type":"output_text"}]}}',
  // The keys spelled inside strings, quotes escaped.
  '{"type":"event_msg","payload":{"message":"{\\"type\\":\\"token_count\\",\\"cli_version\\":\\"9\\"}","type":"user_message"}}',
  '{"timestamp":"\\"type\\":\\"x\\"","type":"compacted","payload":{"message":"\\"payload\\":{}"}}',
  // Repeated keys: the first place, the last value; a second payload replaces the first.
  '{"type":"session_meta","payload":{"type":"a","cli_version":"1"},"type":"turn_context","payload":{"type":"b"}}',
  '{"type":"session_meta","payload":{"cli_version":"0.1.0","cli_version":"0.2.0"}}',
  // A type that is not a string is none; a payload that is not an object has no type.
  '{"type":7,"payload":{"type":"x"}}',
  '{"type":"event_msg","payload":"token_count"}',
  '{"type":"event_msg","payload":null}',
  '  {"type" : "response_item" , "payload" : { "type" : "message" } }  ',
  // A version named by a record that is not a session's meta is not its version.
  '{"type":"turn_context","payload":{"cli_version":"5.0.0"}}',
  '{}',
];

/** Lines only a parse can name: handed back. */
const HANDED_BACK = [
  '{"\\u0074ype":"event_msg","payload":{"type":"x"}}',
  '{"type":"event\\u005fmsg","payload":{"type":"x"}}',
  '{"type":"event_msg","payload":{"\\u0074ype":"x"}}',
  '{"type":"event_msg","payload":{"type":"token\\u005fcount"}}',
  '{"type":"session_meta","payload":{"cli_version":"0.1\\u0030"}}',
  // `Object.keys` puts integer-like keys first, whatever their place.
  '{"type":"event_msg","7":1}',
];

describe("drift's reading of a Codex line's bytes", () => {
  it('names the keys, type and version the parsed line has, on every line of the lab and the demo', () => {
    const lines = linesOf([...labFiles('codex'), ...demoFiles('.codex')]);
    expect(lines.length).toBeGreaterThan(100);
    for (const { file, line } of lines)
      expect(skimmed(line), `${file}: ${line.toString('utf8', 0, 120)}`).toEqual(parsed(line));
  });

  if (HAVE_CORPUS) {
    it('names them as the parse does on every Codex rollout line in ../shared/corpus', () => {
      const lines = linesOf(corpusFiles('codex/rollouts'));
      expect(lines.length).toBeGreaterThan(1000);
      for (const { file, line } of lines) {
        const seen = skimmed(line);
        // A line handed back is parsed instead; every other must equal the parse.
        if (seen !== null) expect(seen, `${file}: ${line.toString('utf8', 0, 120)}`).toEqual(parsed(line));
      }
    });
  }

  it('is not fooled by the keys nested deeper, quoted in a string, repeated, or out of place', () => {
    for (const line of FOOLING) expect(skimmed(line), line).toEqual(parsed(line));
  });

  it('hands a line with an escaped key or string, or a key the parse lists first, to the full parse', () => {
    for (const line of HANDED_BACK) expect(skimmed(line), line).toBeNull();
  });

  it("reads the same from the extractor's walk of the line, just made, as from a walk of its own", () => {
    const lines = [
      ...linesOf([...labFiles('codex'), ...demoFiles('.codex')]).map(({ line }) => line),
      ...[...FOOLING, ...HANDED_BACK].map((l) => Buffer.from(l)),
    ];
    let fromLog = 0;
    for (const line of lines) {
      try {
        lineFromBytes(line, 0, line.length);
        if (topLog.holds(line, 0, line.length)) fromLog++;
      } catch (err) {
        if (!(err instanceof SkimError)) throw err;
      }
      const seen = CODEX_DRIFT.skimmed!(line, 0, line.length);
      const handedBack = HANDED_BACK.includes(line.toString());
      expect(seen, line.toString('utf8', 0, 120)).toEqual(handedBack ? null : parsed(line));
    }
    expect(fromLog).toBeGreaterThan(100);
  });

  it('a line handed back is still judged: its escaped type counts as the type it spells', () => {
    const facts: { drift?: DriftFacts | null; cliVersion?: string | null } = {};
    const tally = new DriftTally(facts, CODEX_DRIFT);
    const b = Buffer.from('{"type":"brand\\u002dnew","payload":{}}');
    tally.line(b, 0, b.length, 1, undefined);
    expect(facts.drift).toEqual({ '?': { types: { 'brand-new': { count: 1, line: 1 } }, fields: {} } });
  });
});

describe("the Codex record type read off a line's first bytes, for the lines drift does not sample", () => {
  /** What the layout pattern says of the line's first bytes: the reference. */
  const byPattern = (b: Buffer): string | undefined => {
    const m = TYPE_AT.exec(b.toString('latin1', 0, Math.min(b.length, 256)));
    if (m === null) return undefined;
    return m[2] === undefined ? m[1] : `${m[1]}/${m[2]}`;
  };

  it('names the type the layout pattern names, on every line of the lab and the demo and every cut of them', () => {
    const lines = linesOf([...labFiles('codex'), ...demoFiles('.codex')]).map(({ line }) => line);
    expect(lines.length).toBeGreaterThan(100);
    const named = new Set<string | undefined>();
    for (const line of lines) {
      named.add(peekCodexType(line, 0, line.length));
      for (let cut = 1; cut < Math.min(line.length, 300); cut += 3) {
        const piece = line.subarray(0, cut);
        expect(peekCodexType(piece, 0, piece.length), piece.toString('latin1')).toBe(byPattern(piece));
      }
      expect(peekCodexType(line, 0, line.length)).toBe(byPattern(line));
    }
    expect(named.size).toBeGreaterThan(5);
  });

  it('names each type by its own words after more kinds than it keeps strings for', () => {
    // 26 record types and 60 payload types (more than are kept), twice over, many of one length
    // and sharing their last bytes: a kept string is only ever found for its own words.
    const letter = (k: number) => String.fromCharCode(97 + (k % 26));
    for (let pass = 0; pass < 2; pass++)
      for (let k = 0; k < 60; k++) {
        const type = `kind_${letter(k)}`;
        const inner = `x${letter(Math.floor(k / 26))}${letter(k)}`;
        for (const line of [
          `{"timestamp":"2026","type":"${type}"}`,
          `{"timestamp":"2026","type":"${type}","payload":{"type":"${inner}"}}`,
        ]) {
          const b = Buffer.from(line);
          expect(peekCodexType(b, 0, b.length), line).toBe(byPattern(b));
        }
      }
  });

  it('is not fooled by lines laid out otherwise, or with the words past its first bytes', () => {
    const lines = [
      '{"timestamp":"2026-01-01T00:00:00Z","type":"event_msg","payload":{"type":"token_count","info":null}}',
      '{"timestamp":"2026-01-01T00:00:00Z","ordinal":12,"type":"response_item","payload":{"type":"function_call"}}',
      '{"timestamp":"2026-01-01T00:00:00Z","ordinal":,"type":"event_msg"}',
      '{"timestamp":"2026-01-01T00:00:00Z","ordinal":"7","type":"event_msg"}',
      '{"timestamp":"a\\"b","type":"event_msg"}',
      '{"timestamp":"2026","type":"Event_msg","payload":{"type":"x"}}',
      '{"timestamp":"2026","type":"thread.started","payload":{"type":"account/rateLimits/updated"}}',
      '{"timestamp":"2026","type":"event_msg","payload":{"id":1,"type":"token_count"}}',
      '{"timestamp":"2026","type":"event_msg","payload":{"type":"Token_count"}}',
      '{"timestamp":"2026","type":"event_msg","payload":{"type":""}}',
      '{"timestamp":"2026","type":"event_msg","payload":{"type":"item.completed"}}',
      '{"timestamp":"2026","type":"turn/started","payload":{"type":"x"}}',
      '{"timestamp":"2026","type":"","payload":{"type":"x"}}',
      '{"type":"event_msg","timestamp":"2026"}',
      ` {"timestamp":"2026","type":"event_msg"}`,
      `{"timestamp":"${'9'.repeat(220)}","type":"event_msg","payload":{"type":"token_count"}}`,
      `{"timestamp":"${'9'.repeat(200)}","type":"event_msg","payload":{"type":"token_count"}}`,
      `{"timestamp":"${'\u00e9'.repeat(100)}","type":"compacted"}`,
    ];
    for (const line of lines) {
      const b = Buffer.from(line);
      expect(peekCodexType(b, 0, b.length), line).toBe(byPattern(b));
    }
  });
});
