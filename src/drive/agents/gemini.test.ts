/**
 * Reading Gemini CLI's `--output-format stream-json`. The lines are trimmed copies of what
 * @google/gemini-cli 0.61.0 wrote in the conformance lab, against the stand-in model server, as each
 * test says.
 */
import { describe, expect, it } from 'vitest';
import { MAX_IDENTIFIER_BYTES } from '../bounds.js';
import { isDriveError } from '../errors.js';
import { type Permission, type Plan, planRequest } from '../request.js';
import { ofKind, parseLines } from '../test-support/fake-agent.js';
import { gemini, geminiDialect } from './gemini.js';

const read = (...lines: string[]) => parseLines(geminiDialect, lines);

const INIT =
  '{"type":"init","timestamp":"2026-12-02T05:52:28.022Z","session_id":"602e7a3f-ef89-411d-a61a-dd027df1d85a","model":"gemini-2.5-flash"}';

describe('gemini', () => {
  it('announces the session at init and answers with the streamed text (0.61.0, lab script text)', () => {
    const { events, terminal } = read(
      '{"type":"init","timestamp":"2026-12-02T05:52:23.463Z","session_id":"92c51758-bc7f-4662-a73e-8dec078632b5","model":"gemini-2.5-flash"}',
      '{"type":"message","timestamp":"2026-12-02T05:52:23.465Z","role":"user","content":"[lab:text] Follow the lab script text."}',
      '{"type":"message","timestamp":"2026-12-02T05:52:23.513Z","role":"assistant","content":"pong: the lab answers with text only.","delta":true}',
      '{"type":"result","timestamp":"2026-12-02T05:52:23.562Z","status":"success","stats":{"total_tokens":11773,"input_tokens":11758,"output_tokens":11,"cached":5879,"input":5879,"duration_ms":99,"tool_calls":0,"models":{"gemini-2.5-flash":{"total_tokens":11773,"input_tokens":11758,"output_tokens":11,"cached":5879,"input":5879}}}}',
    );
    expect(events).toEqual([
      { kind: 'started', session: '92c51758-bc7f-4662-a73e-8dec078632b5', model: 'gemini-2.5-flash' },
      { kind: 'text', text: 'pong: the lab answers with text only.' },
    ]);
    expect(terminal.text, 'the prompt echoed back is not the answer').toBe(
      'pong: the lab answers with text only.',
    );
    expect(terminal.stop).toEqual({ kind: 'completed' });
    expect(terminal.model).toBe('gemini-2.5-flash');
  });

  it('counts uncached input, cache reads, and thoughts inside output (0.61.0; the server said 15 out, 4 thinking)', () => {
    const { terminal } = read(
      INIT,
      '{"type":"result","timestamp":"2026-12-02T05:52:23.562Z","status":"success","stats":{"total_tokens":11773,"input_tokens":11758,"output_tokens":11,"cached":5879,"input":5879,"duration_ms":99,"tool_calls":0,"models":{"gemini-2.5-flash":{"total_tokens":11773,"input_tokens":11758,"output_tokens":11,"cached":5879,"input":5879}}}}',
    );
    expect(terminal.usage).toMatchObject({
      input: 5879,
      cacheRead: 5879,
      cacheWrite: null,
      output: 15,
      reasoning: 4,
      contextTokens: null,
      durationMs: 99,
    });
    expect(terminal.threadUsage, 'Gemini reports no thread total').toBeNull();
  });

  it('a call and its result are matched by id, and the answer is the last model turn (0.61.0, lab script call)', () => {
    const { events, terminal } = read(
      INIT,
      '{"type":"message","timestamp":"2026-12-02T05:52:28.100Z","role":"assistant","content":"Let me run it.","delta":true}',
      '{"type":"tool_use","timestamp":"2026-12-02T05:52:28.158Z","tool_name":"run_shell_command","tool_id":"run_shell_command__call_lab_1","parameters":{"command":"echo lab-call-ok","description":"Run a lab command"}}',
      '{"type":"tool_result","timestamp":"2026-12-02T05:52:28.329Z","tool_id":"run_shell_command__call_lab_1","status":"success","output":"lab-call-ok"}',
      '{"type":"message","timestamp":"2026-12-02T05:52:28.374Z","role":"assistant","content":"The command printed lab-call-ok.","delta":true}',
    );
    expect(ofKind(events, 'tool_call')).toEqual([
      {
        kind: 'tool_call',
        id: 'run_shell_command__call_lab_1',
        name: 'run_shell_command',
        input: { command: 'echo lab-call-ok', description: 'Run a lab command' },
      },
    ]);
    // The shell's `success` says it ran, not how it exited: no verdict.
    expect(ofKind(events, 'tool_result')).toEqual([
      { kind: 'tool_result', id: 'run_shell_command__call_lab_1', ok: null, output: 'lab-call-ok' },
    ]);
    expect(ofKind(events, 'text').map((e) => e.text)).toEqual([
      'Let me run it.',
      'The command printed lab-call-ok.',
    ]);
    expect(terminal.text, 'the preamble before the call is not the answer').toBe(
      'The command printed lab-call-ok.',
    );
  });

  it('a shell command that exited 3 has no verdict, since Gemini says success (0.61.0, lab script fail)', () => {
    const { events } = read(
      INIT,
      '{"type":"tool_use","timestamp":"2026-12-02T05:52:38.868Z","tool_name":"run_shell_command","tool_id":"run_shell_command__call_lab_2","parameters":{"command":"echo lab-fail-out; exit 3","description":"Run a lab command"}}',
      '{"type":"tool_result","timestamp":"2026-12-02T05:52:39.019Z","tool_id":"run_shell_command__call_lab_2","status":"success","output":"lab-fail-out"}',
    );
    expect(ofKind(events, 'tool_result')).toEqual([
      { kind: 'tool_result', id: 'run_shell_command__call_lab_2', ok: null, output: 'lab-fail-out' },
    ]);
  });

  it('parallel calls each get their own result (0.61.0, lab script parallel)', () => {
    const { events, parser } = read(
      INIT,
      '{"type":"tool_use","timestamp":"2026-12-02T05:52:44.963Z","tool_name":"run_shell_command","tool_id":"run_shell_command__call_lab_3","parameters":{"command":"echo lab-par-one","description":"Run a lab command"}}',
      '{"type":"tool_use","timestamp":"2026-12-02T05:52:44.966Z","tool_name":"run_shell_command","tool_id":"run_shell_command__call_lab_4","parameters":{"command":"echo lab-par-two","description":"Run a lab command"}}',
      '{"type":"tool_result","timestamp":"2026-12-02T05:52:45.205Z","tool_id":"run_shell_command__call_lab_3","status":"success","output":"lab-par-one"}',
      '{"type":"tool_result","timestamp":"2026-12-02T05:52:45.206Z","tool_id":"run_shell_command__call_lab_4","status":"success","output":"lab-par-two"}',
    );
    expect(ofKind(events, 'tool_result').map((e) => [e.id, e.output])).toEqual([
      ['run_shell_command__call_lab_3', 'lab-par-one'],
      ['run_shell_command__call_lab_4', 'lab-par-two'],
    ]);
    expect(parser.pendingTools.size).toBe(0);
  });

  it('a resumed run keeps its session id and counts only its own tokens (0.61.0, lab script resume)', () => {
    const { terminal } = read(
      '{"type":"init","timestamp":"2026-12-02T05:52:34.039Z","session_id":"602e7a3f-ef89-411d-a61a-dd027df1d85a","model":"gemini-2.5-flash"}',
      '{"type":"message","timestamp":"2026-12-02T05:52:34.096Z","role":"assistant","content":"Resumed: the second turn is answered.","delta":true}',
      '{"type":"result","timestamp":"2026-12-02T05:52:34.174Z","status":"success","stats":{"total_tokens":11957,"input_tokens":11936,"output_tokens":14,"cached":5968,"input":5968,"duration_ms":142,"tool_calls":0,"models":{"gemini-2.5-flash":{"total_tokens":11957,"input_tokens":11936,"output_tokens":14,"cached":5968,"input":5968}}}}',
    );
    expect(terminal.session).toBe('602e7a3f-ef89-411d-a61a-dd027df1d85a');
    expect(terminal.usage).toMatchObject({ input: 5968, cacheRead: 5968, output: 21, reasoning: 7 });
  });

  it('a refused or broken call failed, and says why', () => {
    // The shape 0.61.0's non-interactive loop writes for a call whose response has an error
    // (`status: "error"` and `error.message`); the lab has no script that refuses a call.
    const { events } = read(
      '{"type":"tool_use","tool_name":"read_file","tool_id":"read_file__1","parameters":{"file_path":"/nope"}}',
      '{"type":"tool_result","tool_id":"read_file__1","status":"error","error":{"type":"file_not_found","message":"File not found: /nope"}}',
    );
    expect(ofKind(events, 'tool_result')).toEqual([
      { kind: 'tool_result', id: 'read_file__1', ok: false, output: 'File not found: /nope' },
    ]);
  });

  it('rejects an oversized session id', () => {
    const { terminal, events } = read(
      JSON.stringify({ type: 'init', session_id: 's'.repeat(MAX_IDENTIFIER_BYTES + 1), model: 'm' }),
    );
    expect(terminal.session).toBeNull();
    expect(ofKind(events, 'started')).toEqual([]);
  });

  const plan: Plan = {
    agent: 'gemini',
    prompt: 'say pong',
    system: null,
    model: 'gemini-2.5-flash',
    effort: null,
    permission: 'read-only',
    format: 'stream',
    cwd: '/w',
    addDirs: ['/x'],
    schema: null,
    session: { kind: 'mint', id: '0c8b3f7e-0000-4000-8000-000000000001' },
    approvals: false,
    interactive: false,
    thinking: null,
  };

  it('maps permissions to approval modes, always trusting the folder for the run', () => {
    expect(gemini.invocation(plan, null).args).toEqual([
      '-p',
      'say pong',
      '--skip-trust',
      '--approval-mode',
      'plan',
      '--model',
      'gemini-2.5-flash',
      '--session-id',
      '0c8b3f7e-0000-4000-8000-000000000001',
      '--include-directories',
      '/x',
      '--output-format',
      'stream-json',
    ]);
    const mode = (permission: Permission) => {
      const args = gemini.invocation({ ...plan, permission, addDirs: [] }, null).args;
      const at = args.indexOf('--approval-mode');
      return at < 0 ? null : args[at + 1];
    };
    expect([mode('plan'), mode('default'), mode('edit'), mode('auto'), mode('bypass')]).toEqual([
      'plan',
      null,
      'auto_edit',
      'yolo',
      'yolo',
    ]);
    const resumed = gemini.invocation({ ...plan, session: { kind: 'resume', id: 'abc', fork: false } }, null);
    expect(resumed.args).toContain('--resume');
    const piped = gemini.invocation({ ...plan, prompt: '-x' }, null);
    expect(piped.args).not.toContain('-p');
    expect(piped.stdin).toEqual({ kind: 'prompt', text: '-x' });
  });

  it('refuses what it cannot do before anything is spawned', () => {
    const base = { agent: 'gemini' as const, prompt: 'p', cwd: process.cwd() };
    const refused = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return isDriveError(e) ? e.failure.kind : 'thrown';
      }
      return 'accepted';
    };
    expect(refused(() => planRequest({ ...base, approvals: true, permission: 'default' }, gemini.caps))).toBe(
      'unsupported',
    );
    expect(refused(() => planRequest({ ...base, interactive: true }, gemini.caps))).toBe('unsupported');
    expect(refused(() => planRequest({ ...base, schema: {} }, gemini.caps))).toBe('unsupported');
    expect(refused(() => planRequest({ ...base, resume: 'a', fork: true }, gemini.caps))).toBe('unsupported');
    expect(refused(() => planRequest({ ...base, thinking: false }, gemini.caps))).toBe('unsupported');
    expect(refused(() => gemini.invocation({ ...plan, effort: 'high' }, null))).toBe('unsupported');
  });
});
