/**
 * Reading Pi's `--mode json`. The lines are trimmed copies of what @mariozechner/pi-coding-agent
 * 0.73.1 wrote in the conformance lab, against the stand-in model server (or, for the failures,
 * against a local server answering 401, 429 and 503), as each test says. Trimmed: `message_update`
 * lines keep their `assistantMessageEvent` without the copies of the whole message Pi repeats in
 * each, and lifecycle lines that drive reads nothing from (`agent_start`, `turn_end`, …) are left out
 * where the test is not about them.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_IDENTIFIER_BYTES, MAX_LINE } from '../bounds.js';
import { isDriveError } from '../errors.js';
import { type Permission, type Plan, planRequest } from '../request.js';
import { ofKind, parseLines } from '../test-support/fake-agent.js';
import { pi, piDialect } from './pi.js';
import { PiRpc } from './pi-rpc.js';

const read = (...lines: string[]) => parseLines(piDialect, lines);

const HEADER =
  '{"type":"session","version":3,"id":"01a23587-6e69-75bf-bfc7-2c7e61a07299","timestamp":"2026-12-02T06:53:17.802Z","cwd":"/tmp/pi-scratch/h-call/work"}';
const ZERO_COST = '"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}';
const TEXT_END =
  '{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"pong: the lab answers with text only."}],"api":"openai-completions","provider":"lab","model":"lab-model","usage":{"input":715,"output":15,"cacheRead":715,"cacheWrite":0,"totalTokens":1445,' +
  ZERO_COST +
  '},"stopReason":"stop","timestamp":1796194333385,"responseId":"lab_chat_1"}}';
const CALL_END =
  '{"type":"message_end","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_lab_1","name":"bash","arguments":{"command":"echo lab-call-ok"}}],"api":"openai-completions","provider":"lab","model":"lab-model","usage":{"input":716,"output":17,"cacheRead":715,"cacheWrite":0,"totalTokens":1448,' +
  ZERO_COST +
  '},"stopReason":"toolUse","timestamp":1796194397875,"responseId":"lab_chat_2"}}';
const ANSWER_END =
  '{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"The command printed lab-call-ok."}],"api":"openai-completions","provider":"lab","model":"lab-model","usage":{"input":746,"output":19,"cacheRead":745,"cacheWrite":0,"totalTokens":1510,' +
  ZERO_COST +
  '},"stopReason":"stop","timestamp":1796194397998,"responseId":"lab_chat_3"}}';
const failed = (message: string) =>
  `{"type":"message_end","message":{"role":"assistant","content":[],"api":"openai-completions","provider":"lab","model":"lab-model","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,${ZERO_COST}},"stopReason":"error","timestamp":1796194477662,"errorMessage":"${message}"}}`;

describe('pi', () => {
  it('announces the session from the header and answers with the last message (0.73.1, lab script text)', () => {
    const { events, terminal, parser } = read(
      '{"type":"session","version":3,"id":"01a23586-7252-7423-ab5a-6637aa0f7cf9","timestamp":"2026-12-02T06:52:13.266Z","cwd":"/tmp/pi-scratch/h-text/work"}',
      '{"type":"agent_start"}',
      '{"type":"turn_start"}',
      '{"type":"message_start","message":{"role":"user","content":[{"type":"text","text":"[lab:text] Follow the lab script text."}],"timestamp":1796194333287}}',
      '{"type":"message_end","message":{"role":"user","content":[{"type":"text","text":"[lab:text] Follow the lab script text."}],"timestamp":1796194333287}}',
      `{"type":"message_start","message":{"role":"assistant","content":[],"api":"openai-completions","provider":"lab","model":"lab-model","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,${ZERO_COST}},"stopReason":"stop","timestamp":1796194333385}}`,
      '{"type":"message_update","assistantMessageEvent":{"type":"text_start","contentIndex":0}}',
      '{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"pong: the lab answers with text only."}}',
      '{"type":"message_update","assistantMessageEvent":{"type":"text_end","contentIndex":0,"content":"pong: the lab answers with text only."}}',
      TEXT_END,
    );
    // The header names no model, so `started` cannot; the outcome takes it from the response.
    expect(events).toEqual([
      { kind: 'started', session: '01a23586-7252-7423-ab5a-6637aa0f7cf9', model: null },
      { kind: 'text', text: 'pong: the lab answers with text only.' },
      {
        kind: 'usage',
        usage: expect.objectContaining({
          input: 715,
          cacheRead: 715,
          cacheWrite: 0,
          contextTokens: 1430,
          output: null,
        }),
      },
    ]);
    expect(terminal.text).toBe('pong: the lab answers with text only.');
    expect(terminal.model).toBe('lab-model');
    expect(terminal.stop).toEqual({ kind: 'completed' });
    expect(parser.sawTerminal).toBe(true);
  });

  it('counts each call once, with reasoning inside output, and no cost where Pi priced nothing (0.73.1, lab script call)', () => {
    const { terminal } = read(HEADER, CALL_END, ANSWER_END);
    expect(terminal.usage).toMatchObject({
      input: 716 + 746,
      output: 17 + 19,
      cacheRead: 715 + 745,
      cacheWrite: 0,
      reasoning: null,
      contextTokens: 746 + 745,
      costUsd: null,
    });
    expect(terminal.threadUsage, 'Pi reports each call, never a thread total').toBeNull();
  });

  it('keeps the cost Pi priced a call at, from a model with a price (0.73.1, lab model given a price)', () => {
    const { terminal } = read(
      HEADER,
      '{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"pong: the lab answers with text only."}],"api":"openai-completions","provider":"lab","model":"lab-model","usage":{"input":723,"output":45,"cacheRead":722,"cacheWrite":0,"totalTokens":1490,"cost":{"input":0.002169,"output":0.000675,"cacheRead":0.00021659999999999998,"cacheWrite":0,"total":0.0030606}},"stopReason":"stop","timestamp":1796194675689,"responseId":"lab_chat_16"}}',
    );
    expect(terminal.usage.costUsd).toBeCloseTo(0.0030606, 10);
  });

  it('a call and its result are matched by id, and the preamble is not the answer (0.73.1, lab script call)', () => {
    const { events, terminal, parser } = read(
      HEADER,
      '{"type":"message_update","assistantMessageEvent":{"type":"toolcall_delta","contentIndex":0,"delta":"{\\"command\\":\\"echo lab-call-ok\\"}"}}',
      CALL_END,
      '{"type":"tool_execution_start","toolCallId":"call_lab_1","toolName":"bash","args":{"command":"echo lab-call-ok"}}',
      '{"type":"tool_execution_update","toolCallId":"call_lab_1","toolName":"bash","args":{"command":"echo lab-call-ok"},"partialResult":{"content":[{"type":"text","text":"lab-call-ok\\n"}],"details":{}}}',
      '{"type":"tool_execution_end","toolCallId":"call_lab_1","toolName":"bash","result":{"content":[{"type":"text","text":"lab-call-ok\\n"}]},"isError":false}',
      '{"type":"message_end","message":{"role":"toolResult","toolCallId":"call_lab_1","toolName":"bash","content":[{"type":"text","text":"lab-call-ok\\n"}],"isError":false,"timestamp":1796194397997}}',
      ANSWER_END,
    );
    expect(ofKind(events, 'tool_call')).toEqual([
      { kind: 'tool_call', id: 'call_lab_1', name: 'bash', input: { command: 'echo lab-call-ok' } },
    ]);
    expect(ofKind(events, 'tool_result')).toEqual([
      { kind: 'tool_result', id: 'call_lab_1', ok: true, output: 'lab-call-ok\n' },
    ]);
    expect(ofKind(events, 'text'), 'tool-call argument deltas are not text').toEqual([]);
    expect(terminal.text).toBe('The command printed lab-call-ok.');
    expect(parser.pendingTools.size).toBe(0);
  });

  it('a message that calls a tool does not settle the turn (0.73.1)', () => {
    expect(read(HEADER, CALL_END).parser.sawTerminal).toBe(false);
  });

  it('a command that exited 3 failed, and the model was told its code (0.73.1, lab script fail)', () => {
    const { events } = read(
      HEADER,
      '{"type":"tool_execution_start","toolCallId":"call_lab_2","toolName":"bash","args":{"command":"echo lab-fail-out; exit 3"}}',
      '{"type":"tool_execution_end","toolCallId":"call_lab_2","toolName":"bash","result":{"content":[{"type":"text","text":"lab-fail-out\\n\\n\\nCommand exited with code 3"}],"details":{}},"isError":true}',
    );
    expect(ofKind(events, 'tool_result')).toEqual([
      {
        kind: 'tool_result',
        id: 'call_lab_2',
        ok: false,
        output: 'lab-fail-out\n\n\nCommand exited with code 3',
      },
    ]);
  });

  it('parallel calls each get their own result (0.73.1, lab script parallel)', () => {
    const { events, parser } = read(
      HEADER,
      '{"type":"tool_execution_start","toolCallId":"call_lab_3","toolName":"bash","args":{"command":"echo lab-par-one"}}',
      '{"type":"tool_execution_start","toolCallId":"call_lab_4","toolName":"bash","args":{"command":"echo lab-par-two"}}',
      '{"type":"tool_execution_end","toolCallId":"call_lab_3","toolName":"bash","result":{"content":[{"type":"text","text":"lab-par-one\\n"}]},"isError":false}',
      '{"type":"tool_execution_end","toolCallId":"call_lab_4","toolName":"bash","result":{"content":[{"type":"text","text":"lab-par-two\\n"}]},"isError":false}',
    );
    expect(ofKind(events, 'tool_result').map((e) => [e.id, e.output])).toEqual([
      ['call_lab_3', 'lab-par-one\n'],
      ['call_lab_4', 'lab-par-two\n'],
    ]);
    expect(parser.pendingTools.size).toBe(0);
  });

  it('a forked run announces its new session, not the parent (0.73.1, --fork)', () => {
    const { terminal } = read(
      '{"type":"session","version":3,"id":"01a23587-cfa6-76dc-a899-e1d993535aca","timestamp":"2026-12-02T06:53:42.695Z","cwd":"/tmp/pi-scratch/h-call/work","parentSession":"/tmp/pi-scratch/h-call/home/.pi/agent/sessions/--tmp-pi-scratch-h-call-work--/2026-12-02T06-53-17-802Z_01a23587-6e69-75bf-bfc7-2c7e61a07299.jsonl"}',
    );
    expect(terminal.session).toBe('01a23587-cfa6-76dc-a899-e1d993535aca');
  });

  it('a failed request is a failed turn with its status, whatever the exit code (0.73.1, server answering 401)', () => {
    const { terminal, parser } = read(
      '{"type":"session","version":3,"id":"01a23588-a4fb-76fc-88da-bbbfb5ac425a","timestamp":"2026-12-02T06:54:37.311Z","cwd":"/tmp/pi-scratch/h-err401/work"}',
      failed('401 lab error 401 number 1'),
    );
    expect(parser.sawTerminal).toBe(true);
    expect(terminal.stop).toEqual({ kind: 'error' });
    expect(terminal.errorStatus).toBe(401);
    expect(terminal.errorMessage).toBe('401 lab error 401 number 1');
    expect(
      terminal.usage.input,
      'the placeholder zeros of a call with no response are not counts',
    ).toBeNull();
  });

  it('a retry that failed again leaves the turn failed with the last error (0.73.1, server answering 429)', () => {
    const { terminal, parser } = read(
      '{"type":"session","version":3,"id":"01a23588-bc21-735d-b856-8cf65bf52bf4","timestamp":"2026-12-02T06:54:43.234Z","cwd":"/tmp/pi-scratch/h-err429/work"}',
      failed('429 lab error 429 number 3'),
      '{"type":"auto_retry_start","attempt":1,"maxAttempts":1,"delayMs":100,"errorMessage":"429 lab error 429 number 3"}',
      failed('429 lab error 429 number 6'),
      '{"type":"auto_retry_end","success":false,"attempt":1,"finalError":"429 lab error 429 number 6"}',
    );
    expect(parser.sawTerminal).toBe(true);
    expect(terminal.errorStatus).toBe(429);
    expect(terminal.errorMessage).toBe('429 lab error 429 number 6');
  });

  it('a turn Pi is retrying is not settled until the retry answers, and then it completed (0.73.1, server answering 503 first)', () => {
    const before = read(
      HEADER,
      failed('503 lab overloaded'),
      '{"type":"auto_retry_start","attempt":1,"maxAttempts":2,"delayMs":100,"errorMessage":"503 lab overloaded"}',
    );
    expect(before.parser.sawTerminal).toBe(false);
    const { terminal, parser } = read(
      HEADER,
      failed('503 lab overloaded'),
      '{"type":"auto_retry_start","attempt":1,"maxAttempts":2,"delayMs":100,"errorMessage":"503 lab overloaded"}',
      '{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"pong: the lab answers with text only."}}',
      TEXT_END,
      '{"type":"auto_retry_end","success":true,"attempt":1}',
    );
    expect(parser.sawTerminal).toBe(true);
    expect(terminal.stop).toEqual({ kind: 'completed' });
    expect(terminal.errorMessage).toBeNull();
    expect(terminal.errorStatus).toBeNull();
    expect(terminal.text).toBe('pong: the lab answers with text only.');
  });

  it('a compaction reports its phases, and one that retries the call un-settles the turn', () => {
    // The shape Pi's json.md documents for 0.73.1; the lab never fills a context window.
    const { events, parser } = read(
      HEADER,
      failed('context length exceeded'),
      '{"type":"compaction_start","reason":"overflow"}',
      '{"type":"compaction_end","reason":"overflow","result":{"summary":"…","firstKeptEntryId":"a1","tokensBefore":190000},"aborted":false,"willRetry":true}',
    );
    expect(ofKind(events, 'compaction').map((e) => e.compaction)).toEqual([
      { phase: 'started' },
      { phase: 'finished', ok: true, error: null },
    ]);
    expect(parser.sawTerminal).toBe(false);
  });

  it('thinking deltas are thinking, not text', () => {
    // The delta shape of pi-ai's `AssistantMessageEvent` (0.73.1); the lab's model sends no thoughts.
    const { events } = read(
      HEADER,
      '{"type":"message_update","assistantMessageEvent":{"type":"thinking_delta","contentIndex":0,"delta":"Let me see."}}',
    );
    expect(events.slice(1)).toEqual([{ kind: 'thinking', text: 'Let me see.' }]);
  });

  it('the closing agent_end cut at MAX_LINE leaves the run settled by its last message', () => {
    const cut =
      `{"type":"agent_end","messages":[${'{"role":"toolResult","content":"x"},'.repeat(MAX_LINE / 32)}`.slice(
        0,
        MAX_LINE,
      );
    const { terminal, parser } = read(HEADER, TEXT_END, cut);
    expect(parser.sawTerminal).toBe(true);
    expect(terminal.unparsed).toBe(1);
    expect(terminal.text).toBe('pong: the lab answers with text only.');
  });

  it('rejects an oversized session id', () => {
    const { terminal, events } = read(
      JSON.stringify({ type: 'session', id: 's'.repeat(MAX_IDENTIFIER_BYTES + 1) }),
    );
    expect(terminal.session).toBeNull();
    expect(ofKind(events, 'started')).toEqual([]);
  });

  const plan: Plan = {
    agent: 'pi',
    prompt: 'say pong',
    system: null,
    model: 'lab/lab-model',
    effort: null,
    permission: 'read-only',
    format: 'stream',
    cwd: '/w',
    addDirs: [],
    schema: null,
    session: { kind: 'new' },
    approvals: false,
    interactive: false,
    thinking: null,
  };
  const ID = '01a23587-6e69-75bf-bfc7-2c7e61a07299';

  it('puts the flags first and the prompt last, with read-only as Pi’s reading tools', () => {
    expect(pi.invocation(plan, null)).toEqual({
      args: ['--mode', 'json', '-p', '--tools', 'read,grep,find,ls', '--model', 'lab/lab-model', 'say pong'],
      stdin: { kind: 'none' },
      env: {},
    });
    const tools = (permission: Permission) => {
      const args = pi.invocation({ ...plan, permission }, null).args;
      const at = args.indexOf('--tools');
      return at < 0 ? null : args[at + 1];
    };
    expect([tools('plan'), tools('default'), tools('edit'), tools('auto'), tools('bypass')]).toEqual([
      'read,grep,find,ls',
      null,
      'read,grep,find,ls,edit,write',
      null,
      null,
    ]);
  });

  it('resumes and forks by whole id, and maps effort and the thinking switch to --thinking', () => {
    const args = (p: Partial<Plan>) => pi.invocation({ ...plan, ...p }, null).args;
    expect(args({ session: { kind: 'resume', id: ID, fork: false } })).toContain('--session');
    expect(args({ session: { kind: 'resume', id: ID, fork: true } })).toEqual(
      expect.arrayContaining(['--fork', ID]),
    );
    expect(args({ effort: 'high' })).toEqual(expect.arrayContaining(['--thinking', 'high']));
    expect(args({ thinking: false })).toEqual(expect.arrayContaining(['--thinking', 'off']));
    expect(args({ system: 'Be brief.' }).at(-1)).toBe('Be brief.\n\nsay pong');
    expect(args({ format: 'text' }).slice(0, 2)).toEqual(['--mode', 'text']);
  });

  it('sends a prompt Pi would read as a flag or a file on stdin', () => {
    for (const prompt of ['-x', '@notes.md explain']) {
      const inv = pi.invocation({ ...plan, prompt }, null);
      expect(inv.args).not.toContain(prompt);
      expect(inv.stdin).toEqual({ kind: 'prompt', text: prompt });
    }
  });

  it('refuses what it cannot do before anything is spawned', () => {
    const base = { agent: 'pi' as const, prompt: 'p', cwd: process.cwd() };
    const refused = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return isDriveError(e) ? e.failure.kind : 'thrown';
      }
      return 'accepted';
    };
    expect(refused(() => planRequest({ ...base, approvals: true, permission: 'default' }, pi.caps))).toBe(
      'unsupported',
    );
    expect(refused(() => planRequest({ ...base, interactive: true }, pi.caps))).toBe('accepted');
    expect(refused(() => planRequest({ ...base, schema: {} }, pi.caps))).toBe('unsupported');
    expect(refused(() => planRequest({ ...base, sessionId: ID }, pi.caps))).toBe('unsupported');
    expect(refused(() => planRequest({ ...base, resume: ID, fork: true }, pi.caps))).toBe('accepted');
    expect(refused(() => planRequest({ ...base, thinking: false }, pi.caps))).toBe('accepted');
    expect(refused(() => pi.invocation({ ...plan, effort: 'max' }, null))).toBe('unsupported');
    expect(refused(() => pi.invocation({ ...plan, effort: 'high', thinking: false }, null))).toBe(
      'invalid_request',
    );
    expect(
      refused(() => pi.invocation({ ...plan, session: { kind: 'resume', id: '01a2', fork: false } }, null)),
    ).toBe('invalid_request');
  });

  it('knows a missing key for a login failure (0.73.1 stderr)', () => {
    expect(pi.authFailure('No API key found for anthropic.\n\nUse /login to log into a provider')).toBe(true);
    expect(pi.authFailure('Error: Model "nonexistent-model" not found.')).toBe(false);
  });
});

describe('pi --mode rpc (a run that takes input mid-run)', () => {
  const plan: Plan = {
    agent: 'pi',
    prompt: '-say pong',
    system: null,
    model: 'lab/lab-model',
    effort: null,
    permission: 'edit',
    format: 'stream',
    cwd: '/w',
    addDirs: [],
    schema: null,
    session: { kind: 'resume', id: '01a23587-6e69-75bf-bfc7-2c7e61a07299', fork: false },
    approvals: false,
    interactive: true,
    thinking: null,
  };

  it('starts Pi in RPC mode with the same flags and no prompt on the command line', () => {
    const inv = pi.invocation(plan, null);
    expect(inv.args).toEqual([
      '--mode',
      'rpc',
      '--tools',
      'read,grep,find,ls,edit,write',
      '--model',
      'lab/lab-model',
      '--session',
      '01a23587-6e69-75bf-bfc7-2c7e61a07299',
    ]);
    expect(inv.stdin).toEqual({ kind: 'none' });
    expect(inv.conversation).toBeDefined();
  });

  /** A conversation over a pipe standing in for Pi's stdin: what drive wrote, as commands. */
  function rpc() {
    const stdin = new PassThrough();
    const written: unknown[] = [];
    stdin.on('data', (c: Buffer) => {
      for (const l of c.toString('utf8').split('\n')) if (l !== '') written.push(JSON.parse(l));
    });
    const host = { broke: 0, settled: 0 };
    const conversation = new PiRpc(
      'say pong',
      { broke: () => host.broke++, settled: () => host.settled++, emit: () => {}, ready: () => {} },
      piDialect,
      pi.authFailure,
    );
    conversation.begin(stdin);
    return { conversation, written, host, stdin };
  }

  it('asks for the session, sends the prompt, announces the session from get_state, and steers with send (0.73.1)', async () => {
    const { conversation, written, host } = rpc();
    const started = conversation.read(
      '{"id":"state","type":"response","command":"get_state","success":true,"data":{"thinkingLevel":"off","isStreaming":false,"sessionId":"01a24fa1-b791-7356-86f5-2e764ff596fb","messageCount":0}}',
    );
    expect(started).toEqual([
      { kind: 'started', session: '01a24fa1-b791-7356-86f5-2e764ff596fb', model: null },
    ]);
    expect(conversation.read('{"id":"prompt","type":"response","command":"prompt","success":true}')).toEqual(
      [],
    );
    conversation.send('lab-steer: also mind the steer.');
    expect(
      conversation.read(
        '{"type":"queue_update","steering":["lab-steer: also mind the steer."],"followUp":[]}',
      ),
    ).toEqual([]);
    expect(conversation.read(TEXT_END).map((e) => e.kind)).toEqual(['usage']);
    expect(conversation.open).toBe(true);
    conversation.read('{"type":"agent_end","messages":[]}');
    expect(conversation.open, 'the loop ended: nothing more goes to Pi').toBe(false);
    expect(host.settled).toBe(1);
    expect(conversation.sawTerminal).toBe(true);
    expect(conversation.terminal().text).toBe('pong: the lab answers with text only.');
    await new Promise((r) => setImmediate(r));
    expect(written).toEqual([
      { id: 'state', type: 'get_state' },
      { id: 'prompt', type: 'prompt', message: 'say pong' },
      { id: 'steer-1', type: 'steer', message: 'lab-steer: also mind the steer.' },
    ]);
  });

  it('a refused prompt breaks the run off with Pi’s words; a missing key reads as not logged in', () => {
    const { conversation, host } = rpc();
    conversation.read(
      '{"id":"prompt","type":"response","command":"prompt","success":false,"error":"No API key found for lab."}',
    );
    expect(conversation.breakdown).toEqual({
      kind: 'not_authenticated',
      message: 'No API key found for lab.',
    });
    expect(host.broke).toBe(1);
    const other = rpc();
    other.conversation.read(
      '{"id":"prompt","type":"response","command":"prompt","success":false,"error":"Model not found"}',
    );
    expect(other.conversation.breakdown).toEqual({
      kind: 'protocol',
      message: 'pi refused prompt: Model not found',
    });
  });

  it('a refused steer is a notice, and an extension dialog is dismissed so Pi never waits on it', async () => {
    const { conversation, written } = rpc();
    expect(
      conversation.read(
        '{"id":"steer-1","type":"response","command":"steer","success":false,"error":"not streaming"}',
      ),
    ).toEqual([{ kind: 'notice', text: 'Pi did not take the message: not streaming' }]);
    conversation.read(
      '{"type":"extension_ui_request","id":"uuid-2","method":"confirm","title":"Clear session?"}',
    );
    conversation.read('{"type":"extension_ui_request","id":"uuid-3","method":"notify","message":"hi"}');
    await new Promise((r) => setImmediate(r));
    expect(written.slice(2)).toEqual([{ type: 'extension_ui_response', id: 'uuid-2', cancelled: true }]);
  });
});
