/**
 * Reading Copilot CLI's `--output-format json`. No public capture of it exists in the corpus; the
 * lines are the reference driver's, from GitHub Copilot CLI 1.0.75, or trimmed copies of what
 * Copilot CLI 1.0.102 wrote in the conformance lab, as each test says.
 */
import { describe, expect, it } from 'vitest';
import { MAX_IDENTIFIER_BYTES } from '../bounds.js';
import type { Permission } from '../request.js';
import { ofKind, parseLines } from '../test-support/fake-agent.js';
import { copilot, copilotDialect } from './copilot.js';

const read = (...lines: string[]) => parseLines(copilotDialect, lines);

describe('copilot', () => {
  it('streams deltas and takes its answer from the settled message', () => {
    const { events, terminal } = read(
      '{"type":"assistant.message_delta","data":{"messageId":"m","deltaContent":"po"}}',
      '{"type":"assistant.message_delta","data":{"messageId":"m","deltaContent":"ng"}}',
      '{"type":"assistant.message","data":{"messageId":"m","model":"gpt-5-mini","content":"pong"}}',
      '{"type":"result","sessionId":"768c8e7d","exitCode":0,"usage":{"premiumRequests":0}}',
    );
    // The deltas stream; the settled message must not double them.
    expect(ofKind(events, 'text').map((e) => e.text)).toEqual(['po', 'ng']);
    expect(terminal.text, 'the answer is the settled message').toBe('pong');
    expect(terminal.session).toBe('768c8e7d');
    expect(terminal.usage.premiumRequests).toBe(0);
    expect(terminal.model).toBe('gpt-5-mini');
    expect(ofKind(events, 'started')).toEqual([{ kind: 'started', session: '768c8e7d', model: null }]);
  });

  it('brackets a tool call with its completion', () => {
    const { events } = read(
      '{"type":"tool.execution_start","data":{"toolCallId":"call_1","toolName":"bash","arguments":{"command":"ls"}}}',
      '{"type":"tool.execution_complete","data":{"toolCallId":"call_1","success":true,"result":{"content":"a.txt"}}}',
    );
    expect(events[0]).toMatchObject({ kind: 'tool_call', id: 'call_1', name: 'bash' });
    expect(events[1]).toEqual({ kind: 'tool_result', id: 'call_1', ok: true, output: 'a.txt' });
  });

  it('a shell command that exited non-zero failed, though Copilot says success (1.0.102)', () => {
    const { events } = read(
      '{"type":"tool.execution_start","data":{"toolCallId":"call_lab_1","toolName":"bash","arguments":{"command":"echo lab-fail-out; exit 3","description":"lab description"},"turnId":"0","model":"gpt-5-mini","toolTitle":"Running command"},"id":"5917b765-feab-450e-9db1-95a3401f3f84","timestamp":"2026-12-01T21:16:13.383Z"}',
      '{"type":"tool.execution_complete","data":{"toolCallId":"call_lab_1","model":"gpt-5-mini","interactionId":"3d34e41c-a63e-4fd1-b683-f54382683a82","turnId":"0","rte":false,"shellExecution":{"exitCode":3},"success":true,"result":{"content":"lab-fail-out\\n<shellId: 0 completed with exit code 3>","detailedContent":"lab-fail-out\\n<shellId: 0 completed with exit code 3>"},"toolTelemetry":{"properties":{"shell_error_category":"command_nonzero_exit"},"metrics":{"exit_code":3}}},"id":"724b1034-af8a-43b1-9777-f0bc50b2f621","timestamp":"2026-12-01T21:16:13.763Z"}',
    );
    expect(ofKind(events, 'tool_result')).toEqual([
      {
        kind: 'tool_result',
        id: 'call_lab_1',
        ok: false,
        output: 'lab-fail-out\n<shellId: 0 completed with exit code 3>',
      },
    ]);
  });

  it('a refused call keeps its reason as what the model was told (1.0.102, --deny-tool=shell)', () => {
    const { events } = read(
      '{"type":"tool.execution_start","data":{"toolCallId":"call_lab_2","toolName":"bash","arguments":{"command":"echo lab-call-ok","description":"lab description"},"turnId":"0","model":"gpt-5-mini","toolTitle":"Running command"},"id":"71b13272-c614-43fb-91e7-48b7d654316c","timestamp":"2026-12-01T21:16:16.508Z"}',
      '{"type":"tool.execution_complete","data":{"toolCallId":"call_lab_2","model":"gpt-5-mini","interactionId":"4cc1aec8-31a6-473b-8dba-ce1c742e3454","turnId":"0","rte":false,"success":false,"error":{"message":"Permission to run this tool was denied due to the following rules: `shell`","code":"denied"},"toolTelemetry":{"properties":{"shell_error_category":"permission_denied"}}},"id":"86998aab-b7a7-40e7-a285-6e5ab333604d","timestamp":"2026-12-01T21:16:16.630Z"}',
    );
    expect(ofKind(events, 'tool_result')).toEqual([
      {
        kind: 'tool_result',
        id: 'call_lab_2',
        ok: false,
        output: 'Permission to run this tool was denied due to the following rules: `shell`',
      },
    ]);
  });

  it('reports spend as it goes and names the exit code of a failure', () => {
    const { terminal } = read(
      '{"type":"session.usage_checkpoint","data":{"totalNanoAiu":1200000,"totalPremiumRequests":1}}',
      '{"type":"result","sessionId":"s","exitCode":2,"usage":{"premiumRequests":1,"sessionDurationMs":5100,"totalApiDurationMs":4000}}',
    );
    expect(terminal.usage).toMatchObject({
      aiCreditsNano: 1_200_000,
      premiumRequests: 1,
      durationMs: 5100,
      apiDurationMs: 4000,
    });
    expect(terminal.stop).toEqual({ kind: 'error' });
    expect(terminal.errorMessage).toBe('copilot exited with code 2');
  });

  it('rejects an oversized session id', () => {
    const { terminal, events } = read(
      JSON.stringify({ type: 'result', sessionId: 's'.repeat(MAX_IDENTIFIER_BYTES + 1), exitCode: 0 }),
    );
    expect(terminal.session).toBeNull();
    expect(ofKind(events, 'started')).toEqual([]);
  });

  it('maps permissions to its own flags, with the = its parser needs', () => {
    const plan = {
      agent: 'copilot' as const,
      prompt: 'say pong',
      system: null,
      model: 'gpt-5-mini',
      effort: null,
      permission: 'read-only' as Permission,
      format: 'stream' as const,
      cwd: '/w',
      addDirs: [],
      schema: null,
      session: { kind: 'mint' as const, id: 'u-1' },
      approvals: false,
      interactive: false,
      thinking: null,
    };
    expect(copilot.invocation(plan, null).args).toEqual([
      '-p',
      'say pong',
      '--allow-all-tools',
      '--no-ask-user',
      '--deny-tool=shell',
      '--deny-tool=write',
      '--model',
      'gpt-5-mini',
      '--session-id',
      'u-1',
      '--output-format',
      'json',
    ]);
    expect(
      copilot.invocation({ ...plan, permission: 'default' }, null).args,
      "default is Copilot's own rules: no allow-all flag",
    ).toEqual([
      '-p',
      'say pong',
      '--no-ask-user',
      '--model',
      'gpt-5-mini',
      '--session-id',
      'u-1',
      '--output-format',
      'json',
    ]);
    const piped = copilot.invocation({ ...plan, prompt: '-x', permission: 'plan' }, null);
    expect(piped.args.slice(0, 4)).toEqual(['--allow-all-tools', '--no-ask-user', '--mode', 'plan']);
    expect(piped.stdin).toEqual({ kind: 'prompt', text: '-x' });
  });
});
