import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_STDIN_BYTES, NO_INPUT, parseInput, readInput } from './input.js';

/**
 * The object Claude Code 2.1.90 pipes to a status line command, with the fields its documentation
 * lists (rate limits since 2.1.80, for Pro and Max subscribers). Not recorded from a run: no status
 * line input is in the shared corpus yet.
 */
const CLAUDE_2_1_90 = {
  session_id: '3d20e9da-9ccc-4d4e-aca1-db145c690d98',
  transcript_path: '/home/dev/.claude/projects/-home-dev-src-app/3d20e9da-9ccc-4d4e-aca1-db145c690d98.jsonl',
  cwd: '/home/dev/src/app',
  model: { id: 'claude-opus-4-6', display_name: 'Opus 4.6' },
  workspace: { current_dir: '/home/dev/src/app/web', project_dir: '/home/dev/src/app' },
  version: '2.1.90',
  output_style: { name: 'default' },
  cost: {
    total_cost_usd: 1.2345,
    total_duration_ms: 45000,
    total_api_duration_ms: 2300,
    total_lines_added: 156,
  },
  context_window: {
    total_input_tokens: 15234,
    total_output_tokens: 4521,
    context_window_size: 200000,
    used_percentage: 8,
    remaining_percentage: 92,
    current_usage: {
      input_tokens: 8500,
      output_tokens: 1200,
      cache_creation_input_tokens: 5000,
      cache_read_input_tokens: 2000,
    },
  },
  exceeds_200k_tokens: false,
  rate_limits: {
    five_hour: { used_percentage: 23.5, resets_at: 1738425600 },
    seven_day: { used_percentage: 41.2, resets_at: 1738857600 },
  },
};

describe("reading Claude Code's status line input", () => {
  it('reads every field it uses from what Claude Code 2.1.90 sends', () => {
    expect(parseInput(JSON.stringify(CLAUDE_2_1_90))).toEqual({
      sessionId: '3d20e9da-9ccc-4d4e-aca1-db145c690d98',
      transcriptPath: CLAUDE_2_1_90.transcript_path,
      cwd: '/home/dev/src/app/web',
      modelId: 'claude-opus-4-6',
      modelName: 'Opus 4.6',
      costUsd: 1.2345,
      contextUsed: 15500,
      contextWindow: 200000,
      limits: {
        fiveHour: { usedPercent: 23.5, resetsAtMs: 1738425600_000 },
        sevenDay: { usedPercent: 41.2, resetsAtMs: 1738857600_000 },
      },
    });
  });

  it('reads an older object without context, cost or limits, leaving those unknown', () => {
    const older = {
      session_id: 'abc',
      transcript_path: '/t.jsonl',
      cwd: '/w',
      model: { id: 'claude-sonnet-4-5' },
    };
    expect(parseInput(JSON.stringify(older))).toEqual({
      ...NO_INPUT,
      sessionId: 'abc',
      transcriptPath: '/t.jsonl',
      cwd: '/w',
      modelId: 'claude-sonnet-4-5',
    });
  });

  it('ignores fields it does not know, and reads the context from the share when no usage is given', () => {
    const o = {
      future_field: { nested: [1, 2, 3] },
      context_window: { context_window_size: 1_000_000, used_percentage: 26 },
      rate_limits: { five_hour: { used_percentage: 5, resets_at: '2026-03-28T15:00:00Z' }, weekly_opus: {} },
    };
    const r = parseInput(JSON.stringify(o));
    expect(r.contextUsed).toBe(260_000);
    expect(r.contextWindow).toBe(1_000_000);
    expect(r.limits).toEqual({
      fiveHour: { usedPercent: 5, resetsAtMs: Date.parse('2026-03-28T15:00:00Z') },
      sevenDay: null,
    });
  });

  it('reads fields of the wrong type as unknown, never as something else', () => {
    const o = {
      session_id: '../../etc/passwd',
      transcript_path: 42,
      model: 'opus',
      cost: { total_cost_usd: '1.00' },
      context_window: { context_window_size: -5, current_usage: { input_tokens: 'many' } },
      rate_limits: { five_hour: { used_percentage: null }, seven_day: [] },
    };
    expect(parseInput(JSON.stringify(o))).toEqual(NO_INPUT);
  });

  it('reads text that is not a JSON object as no input at all', () => {
    for (const raw of ['', 'not json', '[1,2]', '{"session_id": "abc"', 'null', '\u001b]52;c;aGk=\u0007'])
      expect(parseInput(raw)).toEqual(NO_INPUT);
  });

  it('keeps a hostile model name as text, for the line to make safe', () => {
    const r = parseInput(JSON.stringify({ model: { id: 'opus\u001b]0;pwned\u0007\u001b[2J' } }));
    expect(r.modelId).toBe('opus\u001b]0;pwned\u0007\u001b[2J');
  });
});

describe('reading stdin', () => {
  it('reads what was written until the writer closes the pipe', async () => {
    const s = new PassThrough();
    s.end('{"session_id":"abc"}');
    expect(await readInput(s)).toBe('{"session_id":"abc"}');
  });

  it('stops at its size bound', async () => {
    const s = new PassThrough();
    s.write(Buffer.alloc(MAX_STDIN_BYTES + 10, 0x20));
    expect((await readInput(s)).length).toBe(MAX_STDIN_BYTES);
    expect(s.destroyed).toBe(true);
  });

  it('gives up at its deadline on a writer that never closes, with what came so far', async () => {
    const s = new PassThrough();
    s.write('{"partial"');
    const t0 = Date.now();
    expect(await readInput(s, MAX_STDIN_BYTES, 50)).toBe('{"partial"');
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('does not wait on a terminal', async () => {
    const s = Object.assign(new PassThrough(), { isTTY: true });
    expect(await readInput(s)).toBe('');
  });
});
