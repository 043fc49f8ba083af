/**
 * Reading Copilot CLI's `--output-format json`. No public capture of it exists in the corpus; the
 * lines are the reference driver's, from GitHub Copilot CLI 1.0.75.
 */
import { describe, expect, it } from 'vitest';
import { MAX_IDENTIFIER_BYTES } from '../bounds.js';
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
      permission: 'read-only' as const,
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
    const piped = copilot.invocation({ ...plan, prompt: '-x', permission: 'plan' }, null);
    expect(piped.args.slice(0, 4)).toEqual(['--allow-all-tools', '--no-ask-user', '--mode', 'plan']);
    expect(piped.stdin).toEqual({ kind: 'prompt', text: '-x' });
  });
});
