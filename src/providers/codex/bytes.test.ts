import { isDeepStrictEqual } from 'node:util';
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

const big = 'x'.repeat(5000);

describe('the fast Codex extractor reads exactly what a full parse reads', () => {
  it('on every line Codex 0.169.0 wrote in the conformance lab, and every truncation of them', () => {
    const lines = linesOf(labFiles('codex'));
    expect(lines.length).toBeGreaterThan(50);
    for (const { file, line } of lines)
      expect(fromBytes(line), `${file}: ${line.toString('utf8', 0, 120)}`).toEqual(fromJson(line));
    for (const { line } of lines.filter((_, i) => i % 7 === 0)) {
      for (let cut = 1; cut < line.length; cut += Math.max(1, Math.floor(line.length / 19))) {
        const piece = line.subarray(0, cut);
        expect(fromBytes(piece)).toEqual(fromJson(piece));
      }
    }
  });

  it('on every line of the bundled demo history', () => {
    for (const { line } of linesOf(demoFiles('.codex'))) expect(fromBytes(line)).toEqual(fromJson(line));
  });

  // Extra cases over `../shared/corpus`, registered only where it is present: the lab's and the
  // demo's lines above are the cases every clone runs.
  if (HAVE_CORPUS) {
    it(`on every line of the Codex rollouts in ../shared/corpus`, () => {
      const lines = linesOf(corpusFiles('codex/rollouts'));
      expect(lines.length).toBeGreaterThan(1000);
      for (const { file, line } of lines)
        expect(fromBytes(line), `${file}: ${line.toString('utf8', 0, 160)}`).toEqual(fromJson(line));
    });

    it('rejects every truncation of a line from ../shared/corpus, as a full parse does', () => {
      const lines = linesOf(corpusFiles('codex/rollouts')).filter((_, i) => i % 29 === 0);
      for (const { line } of lines) {
        for (let cut = 1; cut < line.length; cut += Math.max(1, Math.floor(line.length / 19))) {
          const piece = line.subarray(0, cut);
          expect(fromBytes(piece)).toEqual(fromJson(piece));
        }
      }
    });
  }

  it('judges large tool outputs of every shape as a full parse does', () => {
    const out = (output: unknown) => ({
      timestamp: '2026-11-29T10:00:00Z',
      type: 'response_item',
      payload: { type: 'function_call_output', call_id: 'c1', output },
    });
    const cases = [
      out(JSON.stringify({ output: big, metadata: { exit_code: 0, duration_seconds: 1.5 } })),
      out(JSON.stringify({ output: big, metadata: { exit_code: 127, duration_seconds: 0 } })),
      out(JSON.stringify({ metadata: { exit_code: 3 }, output: big })),
      out(
        `   \n${JSON.stringify({ output: `he said "exit_code":1 ${big}`, metadata: { exit_code: 0, duration_seconds: 2 } })}`,
      ),
      out(`Exit code: 2\nWall time: 1s\nOutput:\n${big}`),
      out(`Exit code: 0\nWall time: 1s\nOutput:\n${big}`),
      out(`${' '.repeat(3000)}failed in sandbox ${big}`),
      out(`all good ${big}`),
      out({ success: false, text: big }),
      out({ success: true, text: big }),
      out([{ type: 'input_text', text: big }]),
      {
        timestamp: '2026-11-29T10:00:00Z',
        type: 'event_msg',
        payload: {
          type: 'user_message',
          message: `# Context from my IDE setup:\n${big}\n## My request for Codex:\nfix it`,
        },
      },
      {
        timestamp: '2026-11-29T10:00:00Z',
        type: 'event_msg',
        payload: { type: 'agent_reasoning', text: big },
      },
      { timestamp: '2026-11-29T10:00:00Z', type: 'event_msg', payload: { type: 'error', message: big } },
      {
        timestamp: '2026-11-29T10:00:00Z',
        type: 'session_meta',
        payload: { id: 'abc', cwd: '/w', instructions: big, git: { branch: 'main' } },
      },
      {
        timestamp: '2026-11-29T10:00:00Z',
        type: 'turn_context',
        payload: {
          model: 'gpt-5',
          effort: '',
          reasoning_effort: 'high',
          sandbox_policy: 'read-only',
          user_instructions: big,
        },
      },
      { timestamp: '2026-11-29T10:00:00Z', type: 'world_state', payload: { text: big } },
      {
        timestamp: 12,
        type: 'response_item',
        payload: { type: 'custom_tool_call', name: 'apply_patch', call_id: 'c', input: big },
      },
    ];
    for (const c of cases) {
      const b = Buffer.from(JSON.stringify(c));
      expect(fromBytes(b), JSON.stringify(c).slice(0, 200)).toEqual(fromJson(b));
    }
  });

  it('reads token counts, sandbox policies and outputs off the bytes as a full parse reads them, however their keys are hidden', () => {
    const at = '{"timestamp":"2026-11-29T10:00:00Z",';
    const tokens = (info: string, rest = '') =>
      `${at}"type":"event_msg","payload":{"type":"token_count","info":${info}${rest}}}`;
    const usage =
      '{"input_tokens":10,"cached_input_tokens":4,"output_tokens":3,"reasoning_output_tokens":1,"total_tokens":13}';
    const context = (policy: string) =>
      `${at}"type":"turn_context","payload":{"model":"m","sandbox_policy":${policy}}}`;
    const output = (text: string) =>
      `${at}"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":${JSON.stringify(text)}}}`;
    const lines = [
      tokens(
        `{"total_token_usage":${usage},"last_token_usage":${usage},"model_context_window":272000}`,
        ',"rate_limits":{"primary_used_percent":5}',
      ),
      // A count's name nested a level deeper, or spelled in a string, is not the count.
      tokens(
        `{"extra":{"input_tokens":999,"last_token_usage":{"input_tokens":7}},"last_token_usage":${usage}}`,
      ),
      tokens(
        `{"note":"input_tokens:999, last_token_usage","last_token_usage":{"output_tokens":2,"note":{"input_tokens":5}}}`,
      ),
      tokens(`{"note":"{\\"input_tokens\\":999}","last_token_usage":{"input_tokens":1}}`),
      // Repeated: the last value counts.
      tokens(
        `{"last_token_usage":{"input_tokens":1},"last_token_usage":{"input_tokens":2,"input_tokens":3}}`,
      ),
      // An escaped key spells the count it decodes to.
      tokens('{"last_token_usage":{"\\u0069nput_tokens":5,"output_tokens":1}}'),
      tokens('{"\\u006cast_token_usage":{"input_tokens":5}}'),
      // Counts that are not counts, windows that are not windows, infos that are not objects.
      tokens(
        '{"last_token_usage":{"input_tokens":"5","output_tokens":-1,"cached_input_tokens":1.5,"total_tokens":1e3}}',
      ),
      tokens('{"last_token_usage":{"input_tokens":null,"output_tokens":true},"model_context_window":0}'),
      tokens('{"last_token_usage":[1,2],"total_token_usage":"x","model_context_window":-4}'),
      tokens('null'),
      tokens('[{"last_token_usage":{"input_tokens":1}}]'),
      tokens(`{"last_token_usage":${usage}}`, ',"rate_limits":null'),
      // Sandbox policies: the type, else the mode, of the policy itself; a word as itself.
      context('{"type":"workspace-write","writable_roots":["/w"],"network_access":false}'),
      context('{"mode":"read-only"}'),
      context('{"mode":"read-only","type":"danger-full-access"}'),
      context('{"sandbox":{"type":"danger-full-access"},"mode":"workspace-write","note":"type"}'),
      context('{"type":"read-only","type":"workspace-write"}'),
      context('{"\\u0074ype":"danger-full-access"}'),
      context('{"type":"danger\\u002dfull-access"}'),
      context('"read-only"'),
      context('"read\\u002donly"'),
      context('7'),
      context('["read-only"]'),
      context('{"type":7,"mode":"read-only"}'),
      // Outputs: the envelope, however it opens, and the text rules' first 200 characters.
      output('{"output":"ok","metadata":{"exit_code":0,"duration_seconds":0.1}}'),
      output('{"output":"bad","metadata":{"exit_code":2,"duration_seconds":0.1}}'),
      output('{"metadata":{"exit_code":1},"output":"x"}'),
      output('{not json at all'),
      output(`   \n\t{"output":"x","metadata":{"exit_code":3,"duration_seconds":1}}`),
      output(`${' '.repeat(60)}Exit code: 1\nOutput:\nno`),
      output(`${' '.repeat(250)}failed in sandbox`),
      output(`${'\u00e9'.repeat(300)}\nExit code: 1`),
      output(`Exit code: 0\n${'日本'.repeat(400)}`),
      output(`${'x'.repeat(150)}\nExit code: 4`),
      // Text that ends the way an envelope ends is still text.
      output('Exit code: 0\nOutput:\n{"output":"x","metadata":{"exit_code":1,"duration_seconds":1}}'),
    ];
    const pieces: string[] = [];
    for (const line of lines) {
      expect(JSON.parse(line), line).toBeTruthy();
      pieces.push(line);
      // Every truncation is refused as a full parse refuses it.
      for (let cut = 1; cut < line.length; cut += 7) pieces.push(line.slice(0, cut));
    }
    for (const piece of pieces) {
      const b = Buffer.from(piece);
      expect(fromBytes(b), piece.slice(0, 200)).toEqual(fromJson(b));
    }
  });

  it('refuses a token count or a sandbox policy holding a number JSON refuses, by the skim alone', () => {
    const at = '{"timestamp":"2026-11-29T10:00:00Z",';
    const lines = ['01', '1.', '-', '1e', '.5', '+1'].flatMap((n) => [
      `${at}"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":${n}}}}}`,
      `${at}"type":"event_msg","payload":{"type":"token_count","info":{"model_context_window":${n}}}}`,
      `${at}"type":"event_msg","payload":{"type":"token_count","info":{"note":[${n}]},"rate_limits":null}}`,
      `${at}"type":"turn_context","payload":{"model":"m","sandbox_policy":{"type":"read-only","depth":${n}}}}`,
    ]);
    const refusals = lines.map((line) => {
      const b = Buffer.from(line);
      // The walk, not a decode by JSON.parse afterwards (a SyntaxError), is what refuses the line.
      try {
        lineFromBytes(b, 0, b.length);
        return [line, 'read'];
      } catch (err) {
        return [line, err instanceof SkimError ? err.reason : String(err)];
      }
    });
    expect(refusals).toEqual(lines.map((line) => [line, 'not-json-object']));
    for (const line of lines) expect(fromJson(Buffer.from(line)), line).toBeNull();
  });

  it('reads every one-byte edit of a token count and a sandbox policy as a full parse does', () => {
    // The bytes an edit writes: JSON's punctuation, the parts of its numbers and literals, and bytes
    // it refuses. Every line here is short: no string is long enough to reach the walk's named gap.
    const edits = Buffer.from('{}[]:,"\\ -+.eE0159tfnul\u0000');
    const lines = [
      '{"timestamp":"2026-11-29T10:00:00Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":10,"output_tokens":-0.5e+1},"model_context_window":2.5E3},"rate_limits":{"p":[1,true]}}}',
      '{"timestamp":"2026-11-29T10:00:00Z","type":"turn_context","payload":{"model":"m","sandbox_policy":{"type":"x","n":[0,-1.25e-2,null]}}}',
    ];
    const wrong: string[] = [];
    for (const line of lines) {
      const b = Buffer.from(line);
      for (let at = 0; at <= b.length; at++) {
        const cases = at < b.length ? [Buffer.concat([b.subarray(0, at), b.subarray(at + 1)])] : [];
        for (const c of edits) {
          cases.push(Buffer.concat([b.subarray(0, at), Buffer.from([c]), b.subarray(at)]));
          if (at < b.length) {
            const changed = Buffer.from(b);
            changed[at] = c;
            cases.push(changed);
          }
        }
        for (const c of cases)
          if (!isDeepStrictEqual(fromBytes(c), fromJson(c))) wrong.push(c.toString('latin1'));
      }
    }
    expect(wrong).toEqual([]);
  });

  it('reads the last of repeated payloads, as a full parse does', () => {
    const line = Buffer.from(
      '{"timestamp":"2026-11-29T10:00:00Z","type":"response_item","payload":{"type":"function_call","name":"first","call_id":"a"},"payload":{"type":"function_call","name":"last","call_id":"b"}}',
    );
    expect(fromBytes(line)).toEqual(fromJson(line));
    expect(fromBytes(line)).toMatchObject({ kind: 'call', name: 'last' });
  });

  it('refuses a line whose malformed payload is not the one that counts, as a full parse does', () => {
    // The skim once checked only the brackets and strings of a payload it skipped, and read the line.
    const lines = [
      '{"timestamp":"2026-11-29T10:00:00Z","type":"response_item","payload":{"type" "function_call"},"payload":{"type":"function_call","name":"shell","call_id":"c"}}',
      '{"timestamp":"2026-11-29T10:00:00Z","type":"response_item","payload":{"type":"function_call","name":"shell"},"payload":{"type" "function_call"}}',
      '{"timestamp":"2026-11-29T10:00:00Z","type":"response_item","payload":{"type" "function_call"},"payload":7}',
    ];
    for (const line of lines) {
      expect(fromJson(Buffer.from(line)), line).toBeNull();
      expect(fromBytes(Buffer.from(line)), line).toBeNull();
    }
  });
});
