/**
 * Reading Qwen Code's `--output-format stream-json`. Every line is a trimmed copy of what Qwen Code
 * 0.24.4 wrote in the conformance lab (its `init` record without the tool, command and agent lists),
 * or, for the two failures, what it wrote pointed at a closed port and with no auth type.
 */
import { describe, expect, it } from 'vitest';
import { type Permission, type Plan, planRequest } from '../request.js';
import { ofKind, parseLines } from '../test-support/fake-agent.js';
import { qwen, qwenDialect } from './qwen.js';

const read = (...lines: string[]) => parseLines(qwenDialect, lines);

const INIT =
  '{"type":"system","subtype":"init","uuid":"52675066-474b-4266-bf65-7d190af52b64","session_id":"52675066-474b-4266-bf65-7d190af52b64","cwd":"/tmp/qwen-rec-mhTjCP/1/work","mcp_servers":[],"model":"qwen3-coder-plus","permission_mode":"yolo","qwen_code_version":"0.24.4"}';
const GOAL =
  '{"type":"stream_event","uuid":"fd244868-ac47-4ca8-b1a9-ef26a279e359","session_id":"52675066-474b-4266-bf65-7d190af52b64","parent_tool_use_id":null,"event":{"type":"goal_state","goal_state":{"v":2,"goal":null,"activity":"idle"}}}';
const CALL =
  '{"type":"assistant","uuid":"645adaa2-d0af-492c-96cd-388a275ef460","session_id":"52675066-474b-4266-bf65-7d190af52b64","parent_tool_use_id":null,"message":{"id":"645adaa2-d0af-492c-96cd-388a275ef460","type":"message","role":"assistant","model":"qwen3-coder-plus","content":[{"type":"tool_use","id":"call_lab_1","name":"run_shell_command","input":{"command":"echo lab-call-ok","description":"Run a lab command"}}],"stop_reason":"tool_use","usage":{"input_tokens":18006,"output_tokens":17,"cache_read_input_tokens":9003,"total_tokens":18023}}}';
const RESULT_OF_CALL =
  '{"type":"user","uuid":"e0043b0f-0d0f-461b-88be-df07a6d95fd9","session_id":"52675066-474b-4266-bf65-7d190af52b64","parent_tool_use_id":null,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_lab_1","is_error":false,"content":"lab-call-ok"}]}}';
const ANSWER =
  '{"type":"assistant","uuid":"efff5530-2e0b-4fad-8005-c4da2243a561","session_id":"52675066-474b-4266-bf65-7d190af52b64","parent_tool_use_id":null,"message":{"id":"efff5530-2e0b-4fad-8005-c4da2243a561","type":"message","role":"assistant","model":"qwen3-coder-plus","content":[{"type":"text","text":"The command printed lab-call-ok."}],"stop_reason":null,"usage":{"input_tokens":18116,"output_tokens":19,"cache_read_input_tokens":9058,"total_tokens":18135}}}';
const DONE =
  '{"type":"result","subtype":"success","uuid":"65b07ae3-bacf-456f-84c6-7e37e63921ae","session_id":"52675066-474b-4266-bf65-7d190af52b64","is_error":false,"duration_ms":2378,"duration_api_ms":1184,"num_turns":2,"result":"The command printed lab-call-ok.","usage":{"input_tokens":36122,"output_tokens":36,"cache_read_input_tokens":18061,"total_tokens":36158},"permission_denials":[]}';

describe('qwen', () => {
  it('a call, its result and the answer arrive in order, and the session is announced first', () => {
    const { events, terminal } = read(INIT, GOAL, CALL, RESULT_OF_CALL, ANSWER, DONE);
    expect(events.filter((e) => e.kind !== 'usage')).toEqual([
      { kind: 'started', session: '52675066-474b-4266-bf65-7d190af52b64', model: 'qwen3-coder-plus' },
      {
        kind: 'tool_call',
        id: 'call_lab_1',
        name: 'run_shell_command',
        input: { command: 'echo lab-call-ok', description: 'Run a lab command' },
      },
      { kind: 'tool_result', id: 'call_lab_1', ok: true, output: 'lab-call-ok' },
      { kind: 'text', text: 'The command printed lab-call-ok.' },
    ]);
    expect(terminal.text).toBe('The command printed lab-call-ok.');
    expect(terminal.stop).toEqual({ kind: 'completed' });
    expect(terminal.model).toBe('qwen3-coder-plus');
  });

  it("input is the prompt less its cached part: Qwen's input_tokens counts the cache too", () => {
    const { events, terminal } = read(INIT, CALL, RESULT_OF_CALL, ANSWER, DONE);
    // The lab server counted 9003 and 9058 uncached for these two calls.
    expect(terminal.usage).toMatchObject({
      input: 9003 + 9058,
      cacheRead: 9003 + 9058,
      output: 17 + 19,
      cacheWrite: null,
      reasoning: null,
      contextTokens: 18116,
      durationMs: 2378,
      apiDurationMs: 1184,
    });
    const live = ofKind(events, 'usage').map((e) => [e.usage.input, e.usage.contextTokens, e.usage.output]);
    expect(live, 'one per model call, output left to the outcome').toEqual([
      [9003, 18006, null],
      [9058, 18116, null],
    ]);
  });

  it('a command that exited 3 is a failed result, with what the model was told', () => {
    const { events } = read(
      '{"type":"user","uuid":"a536f66a-7c69-4e0c-8155-3e8ec93856dd","session_id":"455cdde9-74aa-4ddf-9e60-f30a7409fc57","parent_tool_use_id":null,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_lab_2","is_error":true,"content":"Command: echo lab-fail-out; exit 3\\nDirectory: (root)\\nOutput: lab-fail-out\\nError: (none)\\nExit Code: 3\\nSignal: (none)\\nProcess Group PGID: (none)"}]}}',
    );
    expect(ofKind(events, 'tool_result')).toEqual([
      {
        kind: 'tool_result',
        id: 'call_lab_2',
        ok: false,
        output:
          'Command: echo lab-fail-out; exit 3\nDirectory: (root)\nOutput: lab-fail-out\nError: (none)\nExit Code: 3\nSignal: (none)\nProcess Group PGID: (none)',
      },
    ]);
  });

  it('parallel calls come in one record and their results in one record each', () => {
    const { events, parser } = read(
      '{"type":"assistant","uuid":"36103abf-bf5d-41e7-b2ad-3a1933394d51","session_id":"54381124-1c8a-4e85-b743-e3e3f4db17bf","parent_tool_use_id":null,"message":{"id":"36103abf-bf5d-41e7-b2ad-3a1933394d51","type":"message","role":"assistant","model":"qwen3-coder-plus","content":[{"type":"tool_use","id":"call_lab_3","name":"run_shell_command","input":{"command":"echo lab-par-one","description":"Run a lab command"}},{"type":"tool_use","id":"call_lab_4","name":"run_shell_command","input":{"command":"echo lab-par-two","description":"Run a lab command"}}],"stop_reason":"tool_use","usage":{"input_tokens":18012,"output_tokens":25,"cache_read_input_tokens":9006,"total_tokens":18037}}}',
      '{"type":"user","uuid":"9bf769d9-613d-4ee9-a5b4-2e8844fd3ac7","session_id":"54381124-1c8a-4e85-b743-e3e3f4db17bf","parent_tool_use_id":null,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_lab_3","is_error":false,"content":"lab-par-one"}]}}',
      '{"type":"user","uuid":"a1792bb1-853e-4cea-95af-ab47bc7a7008","session_id":"54381124-1c8a-4e85-b743-e3e3f4db17bf","parent_tool_use_id":null,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_lab_4","is_error":false,"content":"Command: echo lab-par-two\\nDirectory: (root)\\nOutput: (empty)\\nError: (none)\\nExit Code: 0\\nSignal: (none)\\nProcess Group PGID: (none)"}]}}',
    );
    expect(ofKind(events, 'tool_call').map((e) => e.id)).toEqual(['call_lab_3', 'call_lab_4']);
    expect(ofKind(events, 'tool_result').map((e) => [e.id, e.ok])).toEqual([
      ['call_lab_3', true],
      ['call_lab_4', true],
    ]);
    expect(parser.pendingTools.size, 'every call was answered').toBe(0);
  });

  it("a resumed run's usage is its own calls; the result's is the thread's running total", () => {
    const { terminal } = read(
      '{"type":"assistant","uuid":"e8b2e90b-5b02-4361-8c9c-2fbac95b80f5","session_id":"52675066-474b-4266-bf65-7d190af52b64","parent_tool_use_id":null,"message":{"id":"e8b2e90b-5b02-4361-8c9c-2fbac95b80f5","type":"message","role":"assistant","model":"qwen3-coder-plus","content":[{"type":"text","text":"Resumed: the second turn is answered."}],"stop_reason":null,"usage":{"input_tokens":18163,"output_tokens":31,"cache_read_input_tokens":9081,"total_tokens":18194}}}',
      '{"type":"result","subtype":"success","uuid":"a86fce98-b22d-4fcb-af5d-f8ad5389198f","session_id":"52675066-474b-4266-bf65-7d190af52b64","is_error":false,"duration_ms":1254,"duration_api_ms":888,"num_turns":1,"result":"Resumed: the second turn is answered.","usage":{"input_tokens":54285,"output_tokens":67,"cache_read_input_tokens":27142,"total_tokens":54352},"permission_denials":[]}',
    );
    expect(terminal.usage).toMatchObject({ input: 9082, cacheRead: 9081, output: 31 });
    expect(terminal.threadUsage).toEqual({
      input: 54285 - 27142,
      cacheRead: 27142,
      output: 67,
      cacheWrite: null,
      reasoning: null,
    });
  });

  it("a failed API call settles as an error carrying Qwen Code's message", () => {
    const { terminal } = read(
      '{"type":"assistant","uuid":"c61e6710-ceb9-4ff5-a7a1-d09cf5faef0a","session_id":"41528ebb-cb93-4e14-9fd1-9559ed8aab8a","parent_tool_use_id":null,"message":{"id":"c61e6710-ceb9-4ff5-a7a1-d09cf5faef0a","type":"message","role":"assistant","model":"qwen3-coder-plus","content":[{"type":"text","text":"[API Error: Connection error. (cause: fetch failed)]"}],"stop_reason":null,"usage":{"input_tokens":0,"output_tokens":0}}}',
      '{"type":"result","subtype":"error_during_execution","uuid":"566b40b4-5ae5-40da-b796-6f94ffbc7fc1","session_id":"41528ebb-cb93-4e14-9fd1-9559ed8aab8a","is_error":true,"duration_ms":4174,"duration_api_ms":0,"num_turns":1,"usage":{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0},"permission_denials":[],"error":{"message":"[API Error: Connection error. (cause: fetch failed)]"}}',
    );
    expect(terminal.stop).toEqual({ kind: 'error' });
    expect(terminal.errorMessage).toBe('[API Error: Connection error. (cause: fetch failed)]');
    expect(terminal.usage.contextTokens, 'an empty prompt is no context figure').toBeNull();
  });

  it('a run with no auth type settles as an error that says what to configure', () => {
    const { events, terminal } = read(
      '{"type":"result","subtype":"error_during_execution","uuid":"6d523561-70f7-4a81-9b11-f5018304b25a","session_id":"ebcba6a1-51a3-4866-b733-755c9a328ad1","is_error":true,"duration_ms":0,"duration_api_ms":0,"num_turns":0,"usage":{"input_tokens":0,"output_tokens":0},"permission_denials":[],"error":{"message":"No auth type is selected. Please configure an auth type (e.g. via settings or `--auth-type`) before running in non-interactive mode."}}',
    );
    expect(ofKind(events, 'started')).toHaveLength(1);
    expect(terminal.stop).toEqual({ kind: 'error' });
    expect(terminal.errorMessage).toMatch(/^No auth type is selected/);
    expect(qwen.authFailure(terminal.errorMessage!)).toBe(true);
  });

  describe('invocation', () => {
    const plan = (o: Partial<Plan> = {}): Plan => ({
      ...planRequest({ agent: 'qwen', prompt: 'say pong', cwd: '/' }, qwen.caps),
      ...o,
    });

    it('puts the prompt first, then the format and the approval mode', () => {
      expect(qwen.invocation(plan({ model: 'qwen3-coder-plus', permission: 'bypass' }), null)).toEqual({
        args: [
          'say pong',
          '--output-format',
          'stream-json',
          '--approval-mode',
          'yolo',
          '--model',
          'qwen3-coder-plus',
        ],
        stdin: { kind: 'none' },
        env: {},
      });
    });

    it('read-only leaves out the tools that change things, one per flag', () => {
      expect(qwen.invocation(plan(), null).args).toEqual([
        'say pong',
        '--output-format',
        'stream-json',
        '--approval-mode',
        'default',
        '--exclude-tools=run_shell_command',
        '--exclude-tools=write_file',
        '--exclude-tools=edit',
        '--exclude-tools=notebook_edit',
      ]);
    });

    it('maps every permission onto an approval mode', () => {
      const modes = (['plan', 'default', 'edit', 'auto', 'bypass'] as Permission[]).map((permission) => {
        const args = qwen.invocation(plan({ permission }), null).args;
        return args[args.indexOf('--approval-mode') + 1];
      });
      expect(modes).toEqual(['plan', 'default', 'auto-edit', 'auto', 'yolo']);
    });

    it('names the session to mint, resume or fork', () => {
      const args = (session: Plan['session']) =>
        qwen.invocation(plan({ session, permission: 'bypass' }), null).args.slice(5);
      expect(args({ kind: 'mint', id: 'u-1' })).toEqual(['--session-id', 'u-1']);
      expect(args({ kind: 'resume', id: 'u-1', fork: false })).toEqual(['--resume', 'u-1']);
      expect(args({ kind: 'resume', id: 'u-1', fork: true })).toEqual(['--resume', 'u-1', '--fork-session']);
    });

    it('a prompt that looks like a flag goes on stdin, with no positional', () => {
      const inv = qwen.invocation(plan({ prompt: '-x', permission: 'bypass' }), null);
      expect(inv.args[0]).toBe('--output-format');
      expect(inv.stdin).toEqual({ kind: 'prompt', text: '-x' });
    });

    it("a system prompt is appended to Qwen Code's, and extra directories are included", () => {
      const args = qwen.invocation(
        plan({ system: 'Be brief.', addDirs: ['/a'], permission: 'bypass' }),
        null,
      ).args;
      expect(args.slice(5)).toEqual(['--append-system-prompt', 'Be brief.', '--include-directories=/a']);
    });

    it('an effort is refused: Qwen Code has no flag for one', () => {
      expect(() => qwen.invocation(plan({ effort: 'high' }), null)).toThrow(/reasoning effort/);
    });

    it('approvals and a schema are refused before anything is spawned', () => {
      const base = { agent: 'qwen' as const, prompt: 'p', cwd: '/' };
      expect(() => planRequest({ ...base, approvals: true, permission: 'default' }, qwen.caps)).toThrow(
        /approvals/,
      );
      expect(() => planRequest({ ...base, schema: {} }, qwen.caps)).toThrow(/schema/);
    });
  });
});
