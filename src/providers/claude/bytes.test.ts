import { describe, expect, it } from 'vitest';
import { parseObject } from '../../model/json.js';
import { HAVE_CORPUS } from '../../test-support/corpus.js';
import { corpusFiles, demoFiles, labFiles, linesOf } from '../../test-support/lines.js';
import { SkimError } from '../skim.js';
import { lineFromBytes } from './bytes.js';
import { lineFromJson } from './record.js';

const fromBytes = (line: Buffer) => {
  try {
    return lineFromBytes(line, 0, line.length);
  } catch (err) {
    if (err instanceof SkimError) return null;
    throw err;
  }
};
const fromJson = (line: Buffer) => {
  const o = parseObject(line.toString('utf8'));
  return o === null ? null : lineFromJson(o);
};

describe('the fast Claude extractor reads exactly what a full parse reads', () => {
  it('on every line Claude Code 2.1.328 wrote in the conformance lab, and every truncation of them', () => {
    const lines = linesOf(labFiles('claude'));
    expect(lines.length).toBeGreaterThan(50);
    for (const { file, line } of lines)
      expect(fromBytes(line), `${file}: ${line.toString('utf8', 0, 120)}`).toEqual(fromJson(line));
    for (const { line } of lines.filter((_, i) => i % 7 === 0)) {
      for (let cut = 1; cut < line.length; cut += Math.max(1, Math.floor(line.length / 23))) {
        const piece = line.subarray(0, cut);
        expect(fromBytes(piece)).toEqual(fromJson(piece));
      }
    }
  });

  it('on every line of the bundled demo history', () => {
    const lines = linesOf(demoFiles('.claude'));
    expect(lines.length).toBeGreaterThan(100);
    for (const { line } of lines) expect(fromBytes(line)).toEqual(fromJson(line));
  });

  // Extra cases over `../shared/corpus`, registered only where it is present: the lab's and the
  // demo's lines above are the cases every clone runs.
  if (HAVE_CORPUS) {
    it(`on every line of the Claude transcripts in ../shared/corpus`, () => {
      const lines = linesOf(corpusFiles('claude-code/transcripts'));
      expect(lines.length).toBeGreaterThan(1000);
      for (const { file, line } of lines)
        expect(fromBytes(line), `${file}: ${line.toString('utf8', 0, 120)}`).toEqual(fromJson(line));
    });

    it('rejects every truncation of a line from ../shared/corpus, as a full parse does', () => {
      const lines = linesOf(corpusFiles('claude-code/transcripts')).filter((_, i) => i % 37 === 0);
      for (const { line } of lines) {
        for (let cut = 1; cut < line.length; cut += Math.max(1, Math.floor(line.length / 23))) {
          const piece = line.subarray(0, cut);
          expect(fromBytes(piece), piece.toString('utf8', 0, 80)).toEqual(fromJson(piece));
        }
      }
    });
  }

  it('rejects garbage the way a full parse does', () => {
    const cases = [
      'not json',
      '[1,2,3]',
      '"a string"',
      '{"type":"user"} trailing',
      '{"type":"user",}',
      '{"type" "user"}',
      '{type:"user"}',
      '{"a":"unterminated}',
      '{"a":[1,2}',
      '',
      '{}',
      '{"type":"assistant","message":{"id":"m","model":"x","usage":{"input_tokens":1,"output_tokens":2},"content":"str"}}',
      '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"\\u002bhi"}]},"toolUseResult":{"structuredPatch":[{"lines":["\\u002b added","-gone"," same",7]}]}}',
      '{"type":"progress","data":{"message":{"requestId":"r","timestamp":"2026-01-01T00:00:00Z","message":{"id":"m","role":"assistant","model":"claude-x","usage":{"input_tokens":3,"output_tokens":4},"content":[]}}}}',
      '{"type":"user","isMeta":true,"message":{"role":"user","content":"hello"}}',
      '{"type":"summary","summary":"Title","leafUuid":"u1","dup":1,"dup":2}',
    ];
    for (const c of cases) {
      const b = Buffer.from(c);
      expect(fromBytes(b), c).toEqual(fromJson(b));
    }
  });

  it('reads a key written with an escape as the key it spells, as a full parse does', () => {
    // `\u0074ype` is `type` to JSON.parse; a walk that compared the key's bytes read no type at all.
    const usage = '"usage":{"input_tokens":5,"output_tokens":7}';
    const msg = (inner: string) =>
      `"message":{"id":"m","role":"assistant","model":"claude-x",${inner},"content":[{"type":"text","text":"ok"}]}`;
    const cases = [
      `{"\\u0074ype":"assistant",${msg(usage)}}`,
      `{"type":"assistant",${msg('"\\u0075sage":{"input_tokens":5,"output_tokens":7}')}}`,
      `{"type":"assistant",${msg(usage.replace('input_tokens', '\\u0069nput_tokens'))}}`,
      `{"type":"user","\\u0074ype":"assistant",${msg(usage)}}`,
      `{"type":"assistant","\\u006dessage":{"id":"m","role":"assistant","model":"claude-x",${usage},"content":[{"\\u0074ype":"tool_use","id":"t","name":"Bash"}]}}`,
      `{"type":"progress","data":{"\\u006dessage":{"requestId":"r","message":{"id":"m","role":"assistant","model":"claude-x",${usage},"content":[]}}}}`,
      `{"type":"user","isMeta":false,"message":{"role":"user","content":[{"\\u0074ype":"text","text":"hi"}]}}`,
      `{"type":"user","message":{"role":"user","content":"x"},"toolUseResult":{"\\u0073tructuredPatch":[{"lines":["+a"]}]}}`,
      // An escaped key that spells none of the wanted ones, long enough to be skipped the long way.
      `{"type":"assistant","${'x'.repeat(40)}\\u0041":1,"\\u0074imestamp":"2026-01-01T00:00:00Z",${msg(usage)}}`,
    ];
    for (const c of cases) {
      const b = Buffer.from(c);
      expect(fromBytes(b), c).toEqual(fromJson(b));
    }
    const first = fromBytes(Buffer.from(cases[0]!));
    expect([first?.type, first?.usage?.input, first?.usage?.output]).toEqual(['assistant', 5, 7]);
    expect(fromBytes(Buffer.from(cases[3]!))?.type).toBe('assistant');
  });

  it('keeps only the first characters of a huge pasted prompt, the same way both ways', () => {
    const text = `${'é'.repeat(3000)}\\n${'"quoted" '.repeat(2000)}\u{1F600}`;
    const b = Buffer.from(JSON.stringify({ type: 'user', message: { role: 'user', content: text } }));
    const fast = fromBytes(b);
    expect(fast?.prompt?.length).toBe(4096);
    expect(fast).toEqual(fromJson(b));
  });

  it("reads the blocks of a message line after line without one line's blocks leaking into the next", () => {
    const toolUse = Buffer.from(
      '{"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude-x","usage":{"input_tokens":1,"output_tokens":2},"content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"Bash"},{"type":"tool_use","id":"t2","name":"Read"}]}}',
    );
    const plain = Buffer.from(
      '{"type":"assistant","message":{"id":"m2","role":"assistant","model":"claude-x","usage":{"input_tokens":1,"output_tokens":2},"content":[{"type":"text","text":"done"}]}}',
    );
    const prompt = Buffer.from('{"type":"user","message":{"role":"user","content":"fix it"}}');
    for (const line of [toolUse, plain, toolUse, prompt, plain])
      expect(fromBytes(line)).toEqual(fromJson(line));
  });

  it('keeps the blocks of a repeated content array, as it always has', () => {
    // JSON.parse keeps only the last `content`; the byte walk notes the blocks of both. No Claude Code
    // writes this; the test pins the behaviour so a faster walk does not change it unnoticed.
    const line = Buffer.from(
      '{"type":"assistant","message":{"id":"m","role":"assistant","model":"claude-x","usage":{"input_tokens":1,"output_tokens":2},"content":[{"type":"tool_use","id":"a","name":"First"}],"content":[{"type":"tool_use","id":"b","name":"Second"}]}}',
    );
    expect(fromBytes(line)?.toolUses.map((t) => t.name)).toEqual(['First', 'Second']);
  });

  it('reads the usage that counts, walked once, and refuses a line with a malformed one wherever it is', () => {
    const assistant = (usage: string) =>
      Buffer.from(
        `{"type":"assistant","message":{"id":"m","role":"assistant","model":"claude-x",${usage},"content":[{"type":"text","text":"ok"}]}}`,
      );
    const cases = [
      // The last of repeated usages is the one JSON.parse keeps.
      '"usage":{"input_tokens":1,"output_tokens":2},"usage":{"input_tokens":30,"output_tokens":40,"cache_creation":{"ephemeral_1h_input_tokens":5},"cache_creation_input_tokens":9}',
      // Key text inside a string value, escaped quotes and a nested object with the same key.
      '"usage":{"note":"\\"input_tokens\\":999","server_tool_use":{"input_tokens":77},"input_tokens":3,"output_tokens":4}',
      '"usage":"not an object"',
    ];
    for (const c of cases) expect(fromBytes(assistant(c)), c).toEqual(fromJson(assistant(c)));
    expect(fromBytes(assistant(cases[1]!))?.usage).toMatchObject({ input: 3, output: 4 });
    // A usage the line does not read is still JSON the full parse refuses: the line is bad either way.
    const bad = [
      assistant('"usage":{"input_tokens" 1},"usage":{"input_tokens":5,"output_tokens":6}'),
      assistant('"usage":{"input_tokens":5,"output_tokens":6},"usage":{"input_tokens" 1}'),
      Buffer.from('{"type":"user","message":{"role":"user","usage":{"input_tokens" 1},"content":"hi"}}'),
    ];
    for (const line of bad) {
      expect(fromJson(line), line.toString()).toBeNull();
      expect(fromBytes(line), line.toString()).toBeNull();
    }
  });
});
