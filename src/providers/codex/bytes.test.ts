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

  it('reads the last of repeated payloads, as a full parse does', () => {
    const line = Buffer.from(
      '{"timestamp":"2026-11-29T10:00:00Z","type":"response_item","payload":{"type":"function_call","name":"first","call_id":"a"},"payload":{"type":"function_call","name":"last","call_id":"b"}}',
    );
    expect(fromBytes(line)).toEqual(fromJson(line));
    expect(fromBytes(line)).toMatchObject({ kind: 'call', name: 'last' });
  });

  it('judges a malformed payload only when it is the one that counts', () => {
    // The skim checks the envelope of the payload it reads, and only brackets and strings of one it skips.
    const earlierBad = Buffer.from(
      '{"timestamp":"2026-11-29T10:00:00Z","type":"response_item","payload":{"type" "function_call"},"payload":{"type":"function_call","name":"shell","call_id":"c"}}',
    );
    expect(fromBytes(earlierBad)).toMatchObject({ kind: 'call', name: 'shell', id: 'c' });
    const lastBad = Buffer.from(
      '{"timestamp":"2026-11-29T10:00:00Z","type":"response_item","payload":{"type":"function_call","name":"shell"},"payload":{"type" "function_call"}}',
    );
    expect(fromBytes(lastBad)).toBeNull();
    const notAnObject = Buffer.from(
      '{"timestamp":"2026-11-29T10:00:00Z","type":"response_item","payload":{"type" "function_call"},"payload":7}',
    );
    expect(fromBytes(notAnObject)).toEqual(
      fromJson(Buffer.from('{"timestamp":"2026-11-29T10:00:00Z","type":"response_item","payload":7}')),
    );
  });
});
