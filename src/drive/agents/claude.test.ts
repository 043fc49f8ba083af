/**
 * Reading Claude Code's stream-json. Lines are trimmed copies of what claude 2.1.212 wrote, as
 * captured by the reference driver, unless a test says otherwise.
 */
import { describe, expect, it } from 'vitest';
import { accumulate, emptyUsage, type Usage } from '../../model/usage.js';
import { MAX_IDENTIFIER_BYTES } from '../bounds.js';
import { isBlocking, type RateLimit, utilities } from '../events.js';
import type { Permission, SessionPlan } from '../request.js';
import { ofKind, parseLines } from '../test-support/fake-agent.js';
import { claude, claudeDialect } from './claude.js';

const read = (...lines: string[]) => parseLines(claudeDialect, lines);

const PLAN = {
  agent: 'claude' as const,
  prompt: 'say pong',
  system: null,
  model: null,
  effort: null,
  permission: 'read-only' as Permission,
  format: 'stream' as const,
  cwd: '/w',
  addDirs: [],
  schema: null,
  session: { kind: 'new' } as SessionPlan,
  approvals: false,
  interactive: false,
  thinking: null,
};

describe('compaction', () => {
  it('a compaction reports its phases and settles cleanly', () => {
    // claude 2.1.212 resuming a session with /compact: the status pair, the second init the session
    // re-initialises with, the boundary marker, and a terminal with no text.
    const { events } = read(
      '{"type":"system","subtype":"init","session_id":"s","model":"claude-opus-5","slash_commands":["compact","context","code-review"],"skills":["code-review"]}',
      '{"type":"system","subtype":"status","status":"compacting","session_id":"s"}',
      '{"type":"system","subtype":"status","status":null,"compact_result":"success","session_id":"s"}',
      '{"type":"system","subtype":"init","session_id":"s","slash_commands":["compact","context","code-review"],"skills":["code-review"]}',
      '{"type":"system","subtype":"compact_boundary","session_id":"s"}',
      '{"type":"result","subtype":"success","is_error":false,"result":"","session_id":"s","usage":{"input_tokens":0,"output_tokens":0}}',
    );
    const catalogues = ofKind(events, 'commands');
    expect(catalogues, 'the re-init after compacting must not redraw the palette').toHaveLength(1);
    expect(utilities(catalogues[0]!.commands)).toEqual(['compact', 'context']);
    expect(ofKind(events, 'compaction').map((e) => e.compaction)).toEqual([
      { phase: 'started' },
      { phase: 'finished', ok: true, error: null },
    ]);
  });

  it('a refused compaction is reported, not raised', () => {
    const { events } = read(
      '{"type":"system","subtype":"init","session_id":"s","model":"claude-opus-5"}',
      '{"type":"system","subtype":"status","status":null,"compact_result":"failed","compact_error":"Not enough messages to compact.","session_id":"s"}',
      '{"type":"result","subtype":"success","is_error":false,"result":"","session_id":"s"}',
    );
    expect(ofKind(events, 'compaction').map((e) => e.compaction)).toContainEqual({
      phase: 'finished',
      ok: false,
      error: 'Not enough messages to compact.',
    });
    // An init that listed nothing is an older CLI, not an agent with no commands.
    expect(ofKind(events, 'commands')).toEqual([]);
  });
});

describe('a turn', () => {
  it('yields started, thinking, text and the terminal facts', () => {
    const { events, terminal } = read(
      '{"type":"system","subtype":"init","session_id":"sess-a","model":"claude-haiku-4-5"}',
      '{"type":"assistant","session_id":"sess-a","message":{"content":[{"type":"thinking","thinking":"brief"}]}}',
      '{"type":"assistant","session_id":"sess-a","message":{"content":[{"type":"text","text":"pong"}]}}',
      '{"type":"result","subtype":"success","is_error":false,"result":"pong","session_id":"sess-a","total_cost_usd":0.017,"usage":{"input_tokens":10,"output_tokens":45,"cache_read_input_tokens":18764,"cache_creation_input_tokens":7322}}',
    );
    expect(events.slice(0, 3)).toEqual([
      { kind: 'started', session: 'sess-a', model: 'claude-haiku-4-5' },
      { kind: 'thinking', text: 'brief' },
      { kind: 'text', text: 'pong' },
    ]);
    expect(terminal.session).toBe('sess-a');
    expect(terminal.text).toBe('pong');
    expect(terminal.stop).toEqual({ kind: 'completed' });
    expect(terminal.threadCostUsd, "the session's running total").toBe(0.017);
    // A new session's running total is its cost: 2.1.212 states no cost of its own per result.
    expect(claude.settle(terminal, PLAN, { kind: 'fresh' }).usage).toMatchObject({
      input: 10,
      output: 45,
      cacheRead: 18764,
      cacheWrite: 7322,
      costUsd: 0.017,
    });
  });

  it('started fires only once', () => {
    const { events } = read(
      '{"type":"system","subtype":"init","session_id":"s"}',
      '{"type":"assistant","session_id":"s","message":{"content":[{"type":"text","text":"a"}]}}',
      '{"type":"assistant","session_id":"s","message":{"content":[{"type":"text","text":"b"}]}}',
    );
    expect(ofKind(events, 'started')).toHaveLength(1);
  });

  it('an error result sets the stop reason', () => {
    const { terminal } = read('{"type":"result","is_error":true,"result":"boom","session_id":"s"}');
    expect(terminal.stop).toEqual({ kind: 'error' });
    expect(terminal.text).toBe('boom');
  });

  it('an error result with the provider status keeps it', () => {
    const { terminal } = read(
      '{"type":"result","subtype":"success","is_error":true,"api_error_status":404,"result":"model not found","session_id":"s"}',
    );
    expect(terminal.errorStatus).toBe(404);
    expect(terminal.errorMessage, 'Claude explains in the answer text, not apart from it').toBeNull();
  });

  it('a user record echoing text is not assistant output', () => {
    const { events } = read(
      '{"type":"user","session_id":"s","message":{"content":[{"type":"text","text":"my prompt"}]}}',
    );
    expect(ofKind(events, 'text')).toEqual([]);
  });
});

describe('the context window', () => {
  it("binds to the run's model, not the Haiku helper listed first", () => {
    // claude 2.1.212 asked for sonnet[1m]: init names the resolved model, and that exact string
    // keys modelUsage beside the helper.
    const { terminal } = read(
      '{"type":"system","subtype":"init","session_id":"sess-1m","model":"claude-sonnet-5[1m]"}',
      '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"sess-1m","total_cost_usd":0.0677,"usage":{"input_tokens":2,"output_tokens":4,"cache_read_input_tokens":27128,"cache_creation_input_tokens":9825},"modelUsage":{"claude-haiku-4-5-20251001":{"inputTokens":521,"outputTokens":12,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"costUSD":0.000581,"contextWindow":200000,"maxOutputTokens":32000},"claude-sonnet-5[1m]":{"inputTokens":2,"outputTokens":4,"cacheReadInputTokens":27128,"cacheCreationInputTokens":9825,"costUSD":0.0671544,"contextWindow":1000000,"maxOutputTokens":64000}}}',
    );
    expect(terminal.model).toBe('claude-sonnet-5[1m]');
    expect(terminal.usage.contextWindow, "the helper's 200k window must not shadow the real one").toBe(
      1_000_000,
    );
    expect(terminal.usage.maxOutput).toBe(64_000);
    expect(terminal.usage.contextTokens).toBe(2 + 27_128 + 9_825);
  });

  it("is the last request's prompt, not the turn's sum", () => {
    const { terminal } = read(
      '{"type":"system","subtype":"init","session_id":"s","model":"claude-sonnet-5"}',
      '{"type":"assistant","session_id":"s","message":{"usage":{"input_tokens":4,"output_tokens":20,"cache_read_input_tokens":100000,"cache_creation_input_tokens":2000},"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}',
      '{"type":"user","session_id":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}',
      '{"type":"assistant","session_id":"s","message":{"usage":{"input_tokens":6,"output_tokens":40,"cache_read_input_tokens":102000,"cache_creation_input_tokens":500},"content":[{"type":"text","text":"done"}]}}',
      '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s","usage":{"input_tokens":10,"output_tokens":60,"cache_read_input_tokens":202000,"cache_creation_input_tokens":2500}}',
    );
    expect(terminal.usage.contextTokens, 'the turn sum (204,510) is not the context').toBe(6 + 102_000 + 500);
    // The summed figures keep their own meaning: the work charged.
    expect(terminal.usage.cacheRead).toBe(202_000);
  });

  it('falls back to the terminal sum when the assistant records carry no usage (older CLIs)', () => {
    const { terminal } = read(
      '{"type":"system","subtype":"init","session_id":"s","model":"claude-sonnet-5"}',
      '{"type":"assistant","session_id":"s","message":{"content":[{"type":"text","text":"ok"}]}}',
      '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s","usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":1000,"cache_creation_input_tokens":0}}',
    );
    expect(terminal.usage.contextTokens).toBe(10 + 1000);
  });

  it('is absent, not guessed, when several models are listed and none can be matched', () => {
    const { terminal } = read(
      // No init, so the run's model was never announced.
      '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s","usage":{"input_tokens":2,"output_tokens":4},"modelUsage":{"claude-haiku-4-5-20251001":{"contextWindow":200000},"claude-sonnet-5":{"contextWindow":1000000}}}',
    );
    expect(terminal.usage.contextWindow).toBeNull();
    // A single entry needs no name: it can only be the run's model.
    const single = read(
      '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s","usage":{"input_tokens":2,"output_tokens":4},"modelUsage":{"claude-haiku-4-5-20251001":{"contextWindow":200000}}}',
    );
    expect(single.terminal.usage.contextWindow).toBe(200_000);
  });

  it("leaves a subagent's request out of the context figure", () => {
    const { terminal } = read(
      '{"type":"assistant","session_id":"s","message":{"id":"m1","usage":{"input_tokens":5,"cache_read_input_tokens":50000},"content":[{"type":"text","text":"a"}]}}',
      '{"type":"assistant","session_id":"s","parent_tool_use_id":"toolu_task","message":{"id":"m2","usage":{"input_tokens":3,"cache_read_input_tokens":900},"content":[{"type":"text","text":"sub"}]}}',
      '{"type":"result","is_error":false,"result":"a","session_id":"s","usage":{"input_tokens":8}}',
    );
    expect(terminal.usage.contextTokens).toBe(50_005);
  });
});

describe('token deltas (--include-partial-messages)', () => {
  it('stream without duplicating the finished message', () => {
    const { events } = read(
      '{"type":"system","subtype":"init","session_id":"s"}',
      '{"type":"stream_event","session_id":"s","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}}',
      '{"type":"stream_event","session_id":"s","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"po"}}}',
      '{"type":"stream_event","session_id":"s","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ng"}}}',
      '{"type":"stream_event","session_id":"s","event":{"type":"content_block_stop","index":0}}',
      // The completed copy of the same text.
      '{"type":"assistant","session_id":"s","message":{"content":[{"type":"text","text":"pong"}]}}',
      '{"type":"result","subtype":"success","is_error":false,"result":"pong","session_id":"s"}',
    );
    expect(
      ofKind(events, 'text').map((e) => e.text),
      'the finished message must not repeat',
    ).toEqual(['po', 'ng']);
  });

  it('stream thinking the same way, without duplication', () => {
    const { events } = read(
      '{"type":"stream_event","session_id":"s","event":{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"weighing"}}}',
      '{"type":"assistant","session_id":"s","message":{"content":[{"type":"thinking","thinking":"weighing"}]}}',
    );
    expect(ofKind(events, 'thinking').map((e) => e.text)).toEqual(['weighing']);
  });

  it('a completed message still streams when no deltas arrived', () => {
    const { events } = read(
      '{"type":"assistant","session_id":"s","message":{"content":[{"type":"text","text":"pong"}]}}',
    );
    expect(events).toContainEqual({ kind: 'text', text: 'pong' });
  });

  it('tool calls survive delta suppression', () => {
    const { events } = read(
      '{"type":"stream_event","session_id":"s","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}}',
      '{"type":"assistant","session_id":"s","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}',
    );
    expect(ofKind(events, 'tool_call'), 'suppression applies to text only').toHaveLength(1);
  });
});

describe('live usage', () => {
  it('a model call reports its usage once, however many blocks it has', () => {
    // One call arrives as one record per content block, each repeating the call's usage.
    const { events } = read(
      '{"type":"assistant","session_id":"s","message":{"id":"msg_a","content":[{"type":"thinking","thinking":"..."}],"usage":{"input_tokens":10,"cache_read_input_tokens":20180,"cache_creation_input_tokens":7574,"output_tokens":4}}}',
      '{"type":"assistant","session_id":"s","message":{"id":"msg_a","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}],"usage":{"input_tokens":10,"cache_read_input_tokens":20180,"cache_creation_input_tokens":7574,"output_tokens":4}}}',
      '{"type":"assistant","session_id":"s","message":{"id":"msg_b","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":8,"cache_read_input_tokens":30427,"cache_creation_input_tokens":0,"output_tokens":3}}}',
    );
    const usage = ofKind(events, 'usage').map((e) => e.usage);
    expect(usage, 'two model calls, three records').toHaveLength(2);
    expect(usage[0]!.input).toBe(10);
    expect(usage[0]!.contextTokens).toBe(10 + 20180 + 7574);
    expect(usage[1]!.contextTokens).toBe(8 + 30427);
  });

  it('the context is still tracked when a record carries no id', () => {
    const { events, terminal } = read(
      '{"type":"assistant","session_id":"s","message":{"content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":8,"cache_read_input_tokens":30427,"cache_creation_input_tokens":0}}}',
      '{"type":"result","subtype":"success","is_error":false,"result":"hi","session_id":"s","usage":{"input_tokens":99,"cache_read_input_tokens":99}}',
    );
    expect(ofKind(events, 'usage'), 'no id, no way to deduplicate, so nothing is reported').toEqual([]);
    expect(terminal.usage.contextTokens, 'the per-request figure still outranks the sum').toBe(8 + 30427);
  });

  it('a live snapshot withholds the output count', () => {
    const { events } = read(
      '{"type":"assistant","session_id":"s","message":{"id":"m","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":8,"output_tokens":1}}}',
    );
    const [usage] = ofKind(events, 'usage');
    expect(usage?.usage.output, 'a partial count is not reported').toBeNull();
    expect(usage?.usage.input, 'the exact figures still are').toBe(8);
  });

  it('live snapshots accumulate to the terminal totals', () => {
    // Figures from one real four-call turn.
    const calls: [number, number, number][] = [
      [10, 20180, 7574],
      [8, 0, 30427],
      [8, 30427, 1859],
      [8, 32286, 115],
    ];
    let session: Usage = emptyUsage();
    for (const [input, cacheRead, cacheWrite] of calls) {
      session = accumulate(session, {
        ...emptyUsage(),
        input,
        cacheRead,
        cacheWrite,
        contextTokens: input + cacheRead + cacheWrite,
      });
    }
    expect(session.input).toBe(34);
    expect(session.contextTokens, 'context takes the latest, being cumulative already').toBe(8 + 32286 + 115);
  });
});

describe('tools', () => {
  it('pairs a tool use with its result', () => {
    const { events } = read(
      '{"type":"assistant","session_id":"s","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}}',
      '{"type":"user","session_id":"s","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt"}]}}',
    );
    expect(ofKind(events, 'tool_call')).toEqual([
      { kind: 'tool_call', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
    ]);
    expect(events).toContainEqual({ kind: 'tool_result', id: 'toolu_1', ok: null, output: 'a.txt' });
  });

  it('result blocks that are not text are kept, not dropped', () => {
    const { events } = read(
      '{"type":"user","session_id":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"seen"},{"type":"image","source":{"data":"abc"}}]}]}}',
    );
    const [result] = ofKind(events, 'tool_result');
    expect(result?.output).toContain('seen');
    expect(result?.output, 'the image block was dropped').toContain('image');
  });

  it('a failed tool says so', () => {
    // Claude Code 1.0.x, happy-cli's capture of a denied Bash call.
    const { events } = read(
      '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"Claude requested permissions to use Bash, but you haven\'t granted it yet.","is_error":true,"tool_use_id":"toolu_013fGD6diPGB9a7xBeq6dR35"}]},"parent_tool_use_id":null,"session_id":"f64d3bc8"}',
    );
    expect(ofKind(events, 'tool_result')[0]?.ok).toBe(false);
  });
});

describe('approvals', () => {
  it('an approval request carries the tool and its arguments', () => {
    // Under --permission-prompt-tool stdio. The command is what a user must see before deciding:
    // approving on the tool name alone approves an unseen command.
    const { events, parser } = read(
      '{"type":"control_request","request_id":"req-7","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"touch created-by-probe.txt","description":"Create an empty file"}}}',
    );
    expect(events).toEqual([
      {
        kind: 'approval_request',
        id: 'req-7',
        tool: 'Bash',
        input: { command: 'touch created-by-probe.txt', description: 'Create an empty file' },
      },
    ]);
    expect(parser.takeControl()).toEqual([
      {
        kind: 'approval',
        id: 'req-7',
        input: { command: 'touch created-by-probe.txt', description: 'Create an empty file' },
      },
    ]);
  });

  it('an unanswerable approval request is dropped', () => {
    for (const line of [
      // No request_id at all.
      '{"type":"control_request","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}',
      // An id too large to be usable.
      JSON.stringify({
        type: 'control_request',
        request_id: 'x'.repeat(MAX_IDENTIFIER_BYTES + 1),
        request: { subtype: 'can_use_tool', tool_name: 'Bash', input: {} },
      }),
    ]) {
      const { events, parser } = read(line);
      expect(events, 'a consumer must not hold a request it can never answer').toEqual([]);
      expect(parser.takeControl()).toEqual([]);
    }
  });

  it('a control request that is not an approval is ignored, and marked for an error reply', () => {
    const { events, parser } = read(
      '{"type":"control_request","request_id":"r","request":{"subtype":"initialize"}}',
    );
    expect(events).toEqual([]);
    expect(parser.takeControl()).toEqual([{ kind: 'unanswerable', id: 'r', subtype: 'initialize' }]);
  });
});

describe('rate limits', () => {
  it('are reported without failing the run', () => {
    const { events, terminal } = read(
      '{"type":"rate_limit_event","session_id":"s","rate_limit_info":{"status":"allowed","resetsAt":1785260400,"rateLimitType":"five_hour"}}',
    );
    const limit: RateLimit = {
      status: 'allowed',
      window: 'five_hour',
      resetsAt: 1_785_260_400,
      overageStatus: null,
      isUsingOverage: null,
    };
    expect(events).toContainEqual({ kind: 'rate_limit', limit });
    expect(terminal.rateLimit).toEqual(limit);
    expect(isBlocking(limit), 'an `allowed` heartbeat is not a block').toBe(false);
    expect(isBlocking({ ...limit, status: 'allowed_warning' })).toBe(false);
    expect(isBlocking({ ...limit, status: 'rejected' })).toBe(true);
  });
});

describe('usage and cost across runs (claude 2.1.328, conformance lab)', () => {
  // Trimmed copies of the `result` records of two runs of one session: a new one that ran a command,
  // then `--resume` of it. Each process states what it counted since its previous result.
  const FIRST =
    '{"duration_api_ms":129,"stop_reason":"end_turn","session_id":"7647f094-bf9e-464e-84cf-7ca49057bda3","total_cost_usd":0.07182164999999999,"usage":{"input_tokens":21566,"cache_creation_input_tokens":43,"cache_read_input_tokens":21608,"output_tokens":32,"output_tokens_details":{"thinking_tokens":0}},"modelUsage":{"claude-sonnet-4-5":{"inputTokens":21566,"outputTokens":32,"cacheReadInputTokens":21608,"cacheCreationInputTokens":43,"costUSD":0.07182164999999999,"contextWindow":200000,"maxOutputTokens":32000,"thinkingTokens":0}},"is_error":false,"num_turns":2,"subtype":"success","result":"The command printed lab-call-ok.","type":"result","duration_ms":416,"result_index":0,"model_usage_since_last_result":{"claude-sonnet-4-5":{"inputTokens":21566,"outputTokens":32,"cacheReadInputTokens":21608,"cacheCreationInputTokens":43,"costUSD":0.07182164999999999,"contextWindow":200000,"maxOutputTokens":32000,"thinkingTokens":0}}}';
  const RESUMED =
    '{"duration_api_ms":173,"stop_reason":"end_turn","session_id":"7647f094-bf9e-464e-84cf-7ca49057bda3","total_cost_usd":0.10797854999999999,"usage":{"input_tokens":10831,"cache_creation_input_tokens":32,"cache_read_input_tokens":10863,"output_tokens":19,"output_tokens_details":{"thinking_tokens":0}},"modelUsage":{"claude-sonnet-4-5":{"inputTokens":32397,"outputTokens":51,"thinkingTokens":0,"cacheReadInputTokens":32471,"cacheCreationInputTokens":75,"costUSD":0.10797854999999999,"contextWindow":200000,"maxOutputTokens":32000}},"is_error":false,"num_turns":1,"subtype":"success","result":"pong: the lab answers with text only.","type":"result","duration_ms":196,"result_index":0,"model_usage_since_last_result":{"claude-sonnet-4-5":{"inputTokens":10831,"outputTokens":19,"cacheReadInputTokens":10863,"cacheCreationInputTokens":32,"costUSD":0.036156900000000006,"contextWindow":200000,"maxOutputTokens":32000,"thinkingTokens":0}}}';
  /** The same record as a CLI that states no per-result cost would write it. */
  const unstated = (line: string): string => {
    const { model_usage_since_last_result: _, ...rest } = JSON.parse(line) as Record<string, unknown>;
    return JSON.stringify(rest);
  };
  const RESUME: SessionPlan = { kind: 'resume', id: '7647f094-bf9e-464e-84cf-7ca49057bda3', fork: false };
  const settled = (line: string, session: 'new' | 'resumed') => {
    const plan = session === 'resumed' ? { ...PLAN, session: RESUME } : PLAN;
    return claude.settle(read(line).terminal, plan, claude.baseline(plan, {}));
  };

  it("the turn's thinking tokens are its reasoning; absent, they stay unknown", () => {
    expect(read(FIRST).terminal.usage.reasoning, 'stated as 0, so 0').toBe(0);
    const older =
      '{"type":"result","subtype":"success","is_error":false,"result":"pong","session_id":"sess-a","total_cost_usd":0.017,"usage":{"input_tokens":10,"output_tokens":45,"cache_read_input_tokens":18764,"cache_creation_input_tokens":7322}}';
    expect(read(older).terminal.usage.reasoning, 'claude 2.1.212 states none: not 0').toBeNull();
  });

  it("a resumed run's cost is its own, and the session's running total is the thread's", () => {
    const t = settled(RESUMED, 'resumed');
    expect(t.usage.costUsd).toBeCloseTo(0.0361569, 10);
    expect(t.usage.input, 'the turn’s usage is already this run’s').toBe(10831);
    expect(t.threadCostUsd).toBeCloseTo(0.10797855, 10);
    expect(t.threadUsage).toEqual({
      input: 32397,
      output: 51,
      cacheRead: 32471,
      cacheWrite: 75,
      reasoning: 0,
    });
  });

  it('a resumed run on a CLI that states no per-result cost has an unknown cost, not the thread’s', () => {
    const t = settled(unstated(RESUMED), 'resumed');
    expect(t.usage.costUsd).toBeNull();
    expect(t.threadCostUsd).toBeCloseTo(0.10797855, 10);
  });

  it("a new session's running total is its own cost, stated or not", () => {
    expect(settled(FIRST, 'new').usage.costUsd).toBeCloseTo(0.07182165, 10);
    expect(settled(unstated(FIRST), 'new').usage.costUsd).toBeCloseTo(0.07182165, 10);
  });

  it('several results in one run add up what each states, not their running totals', () => {
    // As one streaming-input process writes them: the second result carries the running total of
    // both turns (result_index 1). Summing the totals would count the first turn twice.
    const second = RESUMED.replace('"result_index":0', '"result_index":1');
    const t = claude.settle(read(FIRST, second).terminal, PLAN, { kind: 'fresh' });
    expect(t.usage.costUsd).toBeCloseTo(0.07182165 + 0.0361569, 10);
    expect(t.threadCostUsd, 'the newest running total').toBeCloseTo(0.10797855, 10);
    expect(t.usage.input).toBe(21566 + 10831);
  });
});

describe('the command line', () => {
  const plan = PLAN;

  it('read-only puts the prompt first and the deny list last', () => {
    expect(claude.invocation(plan, null)).toEqual({
      args: [
        '-p',
        'say pong',
        '--output-format',
        'stream-json',
        '--verbose',
        '--permission-mode',
        'dontAsk',
        '--disallowedTools',
        'Bash',
        'Edit',
        'Write',
        'NotebookEdit',
        'mcp__*',
      ],
      stdin: { kind: 'none' },
      env: {},
    });
  });

  it('approvals open the stream-json control channel', () => {
    const inv = claude.invocation({ ...plan, permission: 'edit', approvals: true, interactive: true }, null);
    expect(inv.stdin).toEqual({ kind: 'channel', prompt: 'say pong' });
    expect(inv.args).toEqual([
      '-p',
      '--input-format',
      'stream-json',
      '--include-partial-messages',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-prompt-tool',
      'stdio',
      '--permission-mode',
      'acceptEdits',
    ]);
  });

  it("default is Claude's own default permission mode, with no tools denied", () => {
    const inv = claude.invocation({ ...plan, permission: 'default' }, null);
    expect(inv.args.join(' ')).toBe(
      '-p say pong --output-format stream-json --verbose --permission-mode default',
    );
  });

  it('a prompt that looks like a flag goes on stdin', () => {
    const inv = claude.invocation({ ...plan, prompt: '--help me' }, null);
    expect(inv.stdin).toEqual({ kind: 'prompt', text: '--help me' });
    expect(inv.args).not.toContain('--help me');
  });

  it('maps the options to their flags', () => {
    const inv = claude.invocation(
      {
        ...plan,
        permission: 'bypass',
        model: 'sonnet',
        effort: 'high',
        system: 'be brief',
        session: { kind: 'resume', id: 'abc', fork: true },
        schema: { type: 'object' },
        addDirs: ['/x'],
        thinking: false,
      },
      null,
    );
    expect(inv.args.join(' ')).toBe(
      '-p say pong --output-format stream-json --verbose --permission-mode bypassPermissions --model sonnet --effort high --append-system-prompt be brief --resume abc --fork-session --json-schema {"type":"object"} --add-dir /x',
    );
    expect(inv.env).toEqual({ MAX_THINKING_TOKENS: '0' });
  });
});
