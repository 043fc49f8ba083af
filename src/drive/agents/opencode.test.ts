/**
 * Reading `opencode run --format json`. The lines are trimmed copies of what opencode-ai 1.18.33
 * wrote in the conformance lab, against the stand-in model server, as each test says (the whole
 * captures are in lab/fixtures/drive/opencode/).
 */
import { describe, expect, it } from 'vitest';
import { MAX_CAPTURE } from '../bounds.js';
import { isDriveError } from '../errors.js';
import { type Permission, type Plan, planRequest, type Request } from '../request.js';
import { ofKind, parseLines } from '../test-support/fake-agent.js';
import { opencode, opencodeDialect } from './opencode.js';
import { promptBody } from './opencode-serve.js';
import { listeningOn } from './opencode-serve-http.js';
import { recordOf } from './opencode-serve-parts.js';

const read = (...lines: string[]) => parseLines(opencodeDialect, lines);

const SID = 'ses_dca77a444ffe3j8lE7sW7dlyXM';
const START = `{"type":"step_start","timestamp":1796194462014,"sessionID":"${SID}","part":{"id":"prt_2358868c5001bArqPUmnVdGfrv","messageID":"msg_2358866d6001lrrMhqVXkNgQz8","sessionID":"${SID}","type":"step-start"}}`;
const START_2 = `{"type":"step_start","timestamp":1796194466778,"sessionID":"${SID}","part":{"id":"prt_235887bc3001uQ5W55uo33bdAa","messageID":"msg_235887747001kK27t8EoYGccBj","sessionID":"${SID}","type":"step-start"}}`;
const CALLED = `{"type":"step_finish","timestamp":1796194466662,"sessionID":"${SID}","part":{"id":"prt_2358876c20013kWTTz7aWsPgJd","reason":"tool-calls","messageID":"msg_2358866d6001lrrMhqVXkNgQz8","sessionID":"${SID}","type":"step-finish","tokens":{"total":7707,"input":3843,"output":14,"reasoning":7,"cache":{"write":0,"read":3843}},"cost":0}}`;
const ANSWERED = `{"type":"step_finish","timestamp":1796194466780,"sessionID":"${SID}","part":{"id":"prt_235887bcc001G32fzUglvkO4OJ","reason":"stop","messageID":"msg_235887747001kK27t8EoYGccBj","sessionID":"${SID}","type":"step-finish","tokens":{"total":7769,"input":3873,"output":15,"reasoning":8,"cache":{"write":0,"read":3873}},"cost":0}}`;
const text = (words: string) =>
  `{"type":"text","timestamp":1796194466780,"sessionID":"${SID}","part":{"id":"prt_235887bc60015dX6ucLfYn2S40","messageID":"msg_235887747001kK27t8EoYGccBj","sessionID":"${SID}","type":"text","text":${JSON.stringify(words)},"time":{"start":1796194466758,"end":1796194466761}}}`;
const shell = (call: string, command: string, output: string, exit: number | null) =>
  `{"type":"tool_use","timestamp":1796194466659,"sessionID":"${SID}","part":{"type":"tool","tool":"bash","callID":"${call}","state":{"status":"completed","input":{"command":${JSON.stringify(command)}},"output":${JSON.stringify(output)},"metadata":{"output":${JSON.stringify(output)},"exit":${exit},"truncated":false},"title":${JSON.stringify(command)},"time":{"start":1796194461947,"end":1796194465420}},"id":"prt_2358868d5001wMQ373rYG63kZn","sessionID":"${SID}","messageID":"msg_2358866d6001lrrMhqVXkNgQz8"}}`;

describe('opencode', () => {
  it('announces the session at the first record and answers with the text (1.18.33, lab script text)', () => {
    const { events, terminal, parser } = read(
      '{"type":"step_start","timestamp":1796194452536,"sessionID":"ses_dca77e2beffengqmZ61x4qRnoY","part":{"id":"prt_23588437c001CDr8CvaDgXThnR","messageID":"msg_23588378d001Km7tOQKGvRTJj4","sessionID":"ses_dca77e2beffengqmZ61x4qRnoY","type":"step-start"}}',
      '{"type":"text","timestamp":1796194452539,"sessionID":"ses_dca77e2beffengqmZ61x4qRnoY","part":{"id":"prt_235884391001TvOpX9faJ0MiqH","messageID":"msg_23588378d001Km7tOQKGvRTJj4","sessionID":"ses_dca77e2beffengqmZ61x4qRnoY","type":"text","text":"pong: the lab answers with text only.","time":{"start":1796194452369,"end":1796194452405}}}',
      '{"type":"step_finish","timestamp":1796194452539,"sessionID":"ses_dca77e2beffengqmZ61x4qRnoY","part":{"id":"prt_2358843ee001TzvZ841EaU5UaT","reason":"stop","messageID":"msg_23588378d001Km7tOQKGvRTJj4","sessionID":"ses_dca77e2beffengqmZ61x4qRnoY","type":"step-finish","tokens":{"total":7701,"input":3842,"output":12,"reasoning":5,"cache":{"write":0,"read":3842}},"cost":0}}',
    );
    expect(events.filter((e) => e.kind !== 'usage')).toEqual([
      { kind: 'started', session: 'ses_dca77e2beffengqmZ61x4qRnoY', model: null },
      { kind: 'text', text: 'pong: the lab answers with text only.' },
    ]);
    expect(terminal.text).toBe('pong: the lab answers with text only.');
    expect(terminal.stop).toEqual({ kind: 'completed' });
    expect(parser.sawTerminal, 'a call that finished with `stop` settles the turn').toBe(true);
  });

  it('counts reasoning inside output, uncached input and cache reads, summed over the calls (1.18.33; the server said 21 and 23 out, 7 and 8 reasoning)', () => {
    const { events, terminal } = read(START, CALLED, START_2, ANSWERED);
    expect(terminal.usage).toMatchObject({
      input: 3843 + 3873,
      output: 21 + 23,
      reasoning: 7 + 8,
      cacheRead: 3843 + 3873,
      // What OpenCode reports: Chat Completions has no cache-write figure, and OpenCode writes 0.
      cacheWrite: 0,
      contextTokens: 3873 + 3873,
      costUsd: null,
    });
    expect(terminal.threadUsage, 'OpenCode reports no thread total').toBeNull();
    expect(
      ofKind(events, 'usage').map((e) => [e.usage.input, e.usage.contextTokens, e.usage.output]),
    ).toEqual([
      [3843, 7686, null],
      [3873, 7746, null],
    ]);
  });

  it('a priced model reports each call’s cost, and the run’s is their sum (1.18.33, the lab model priced in its config)', () => {
    const { terminal } = read(
      START,
      `{"type":"step_finish","timestamp":1796194674476,"sessionID":"${SID}","part":{"id":"prt_2358ba64e001CHznOzXYK0BLHL","reason":"tool-calls","messageID":"msg_2358b9a9f001vwa0sYVe3lwVh2","sessionID":"${SID}","type":"step-finish","tokens":{"total":7708,"input":3846,"output":12,"reasoning":5,"cache":{"write":0,"read":3845}},"cost":0.0097505}}`,
      START_2,
      `{"type":"step_finish","timestamp":1796194674736,"sessionID":"${SID}","part":{"id":"prt_2358ba7cf0012gYGOlGqSXQtj6","reason":"stop","messageID":"msg_2358ba6b0001yYOsXuAoIYW3h7","sessionID":"${SID}","type":"step-finish","tokens":{"total":7770,"input":3876,"output":13,"reasoning":6,"cache":{"write":0,"read":3875}},"cost":0.0098415}}`,
    );
    expect(terminal.usage.costUsd).toBeCloseTo(0.0097505 + 0.0098415, 12);
    expect(terminal.threadCostUsd).toBeNull();
  });

  it('a call arrives with its result, and the answer is the last model call’s text (1.18.33, lab script call)', () => {
    const { events, terminal } = read(
      START,
      text('Let me run it.'),
      shell('call_lab_1', 'echo lab-call-ok', 'lab-call-ok\n', 0),
      CALLED,
      START_2,
      text('The command printed lab-call-ok.'),
      ANSWERED,
    );
    expect(events.filter((e) => e.kind === 'tool_call' || e.kind === 'tool_result')).toEqual([
      { kind: 'tool_call', id: 'call_lab_1', name: 'bash', input: { command: 'echo lab-call-ok' } },
      { kind: 'tool_result', id: 'call_lab_1', ok: true, output: 'lab-call-ok\n' },
    ]);
    expect(terminal.text, 'the preamble before the call is not the answer').toBe(
      'The command printed lab-call-ok.',
    );
  });

  it('a shell command that exited 3 failed, though OpenCode says completed (1.18.33, lab script fail)', () => {
    const { events } = read(START, shell('call_lab_2', 'echo lab-fail-out; exit 3', 'lab-fail-out\n', 3));
    expect(ofKind(events, 'tool_result')).toEqual([
      { kind: 'tool_result', id: 'call_lab_2', ok: false, output: 'lab-fail-out\n' },
    ]);
  });

  it('a command that was stopped before it exited has no verdict', () => {
    const { events } = read(START, shell('call_lab_9', 'sleep 999', '', null));
    expect(ofKind(events, 'tool_result')[0]?.ok).toBeNull();
  });

  it('parallel calls each get their own result (1.18.33, lab script parallel)', () => {
    const { events } = read(
      START,
      shell('call_lab_3', 'echo lab-par-one', 'lab-par-one\n', 0),
      shell('call_lab_4', 'echo lab-par-two', 'lab-par-two\n', 0),
    );
    expect(ofKind(events, 'tool_result').map((e) => [e.id, e.output])).toEqual([
      ['call_lab_3', 'lab-par-one\n'],
      ['call_lab_4', 'lab-par-two\n'],
    ]);
  });

  it('a call refused headless failed with OpenCode’s reason, and the turn it ended never settled (1.18.33, bash: ask)', () => {
    const { events, terminal, parser } = read(
      START,
      `{"type":"tool_use","timestamp":1796194571391,"sessionID":"${SID}","part":{"type":"tool","tool":"bash","callID":"call_lab_6","state":{"status":"error","input":{"command":"echo lab-call-ok"},"error":"The user rejected permission to use this specific tool call.","time":{"start":1796194570989,"end":1796194571300}},"id":"prt_2358a12bb001x4Xe5ZerlgS2BP","sessionID":"${SID}","messageID":"msg_2358a0aee001PhNHSBlLR2wS7F"}}`,
      CALLED,
    );
    expect(ofKind(events, 'tool_result')).toEqual([
      {
        kind: 'tool_result',
        id: 'call_lab_6',
        ok: false,
        output: 'The user rejected permission to use this specific tool call.',
      },
    ]);
    expect(parser.sawTerminal, 'a call that asked for tools and got none back did not end the turn').toBe(
      false,
    );
    expect(terminal.text).toBe('');
  });

  it('a later model call reopens a turn that looked settled', () => {
    const { parser, terminal } = read(START, ANSWERED, START_2);
    expect(parser.sawTerminal).toBe(false);
    expect(terminal.text).toBe('');
  });

  it('reasoning is thinking, not answer (1.18.33 with --thinking; the lab server sent reasoning_content)', () => {
    const { events, terminal } = read(
      START,
      `{"type":"reasoning","timestamp":1796194713239,"sessionID":"${SID}","part":{"id":"prt_2358c3e750017wgnmuphpKCzfr","messageID":"msg_2358c38dd001I1lympkCRf7ema","sessionID":"${SID}","type":"reasoning","text":"The lab asks for a plain answer.","time":{"start":1796194713205,"end":1796194713209}}}`,
      text('pong: the lab answers with text only.'),
    );
    expect(ofKind(events, 'thinking')).toEqual([
      { kind: 'thinking', text: 'The lab asks for a plain answer.' },
    ]);
    expect(terminal.text).toBe('pong: the lab answers with text only.');
  });

  it('an API error is a failed turn with its status and message (1.18.33, a server answering 401)', () => {
    const { terminal, parser } = read(
      '{"type":"error","timestamp":1796194746659,"sessionID":"ses_dca735521ffeAVFq3vq472OA6h","error":{"name":"APIError","data":{"message":"Incorrect API key provided: lab-key.","statusCode":401,"isRetryable":false,"responseBody":"{\\"error\\":{\\"message\\":\\"Incorrect API key provided: lab-key.\\",\\"type\\":\\"invalid_request_error\\",\\"code\\":\\"invalid_api_key\\"}}","metadata":{"url":"http://127.0.0.1:40713/v1/chat/completions"}}}}',
    );
    expect(parser.sawTerminal).toBe(true);
    expect(terminal.stop).toEqual({ kind: 'error' });
    expect(terminal.errorStatus).toBe(401);
    expect(terminal.errorMessage).toBe('Incorrect API key provided: lab-key.');
    expect(terminal.session).toBe('ses_dca735521ffeAVFq3vq472OA6h');
  });

  it('an error without a status says what OpenCode said (1.18.33, a provider that does not exist)', () => {
    const { terminal } = read(
      '{"type":"error","timestamp":1796194590938,"sessionID":"ses_dca75a6dcffeMS88WL6N5FxU0v","error":{"name":"UnknownError","data":{"message":"Unexpected server error. Check server logs for details.","ref":"err_4ddc6659"}}}',
    );
    expect(terminal.errorStatus).toBeNull();
    expect(terminal.errorMessage).toBe('Unexpected server error. Check server logs for details.');
  });

  it('a finish for another reason is an end of its own', () => {
    const { terminal } = read(START, ANSWERED.replace('"reason":"stop"', '"reason":"length"'));
    expect(terminal.stop).toEqual({ kind: 'other', reason: 'length' });
  });

  it('a step written twice is counted once', () => {
    const { terminal } = read(START, CALLED, CALLED);
    expect(terminal.usage.input).toBe(3843);
  });

  it('an endless answer is held to the capture bound', () => {
    const big = 'x'.repeat(64 * 1024);
    const { terminal } = read(START, ...Array.from({ length: 24 }, () => text(big)));
    expect(Buffer.byteLength(terminal.text)).toBeLessThanOrEqual(MAX_CAPTURE);
  });

  it('the model it was asked for is the run’s model; without one it stays unknown', () => {
    const t = read(START, ANSWERED).terminal;
    const with_ = opencode.settle(t, plan({ model: 'lab/lab-model' }), { kind: 'fresh' });
    expect(with_.model).toBe('lab/lab-model');
    expect(opencode.settle(t, plan(), { kind: 'fresh' }).model).toBeNull();
  });
});

const plan = (more: Partial<Request> = {}): Plan =>
  planRequest({ agent: 'opencode', prompt: 'hi', permission: 'bypass', ...more }, opencode.caps);

const envOf = (p: Plan) => opencode.invocation(p, null).env;
const rulesOf = (p: Plan): unknown => {
  const raw = envOf(p).OPENCODE_PERMISSION;
  return raw === undefined ? undefined : JSON.parse(raw);
};

describe('opencode invocation', () => {
  it('runs the JSON format with thinking, the prompt on stdin verbatim', () => {
    const inv = opencode.invocation(plan({ prompt: '-x "quoted" words' }), null);
    expect(inv.args).toEqual(['run', '--format', 'json', '--thinking', '--auto']);
    expect(inv.stdin).toEqual({ kind: 'prompt', text: '-x "quoted" words' });
  });

  it('puts the system prompt in front of the prompt', () => {
    const inv = opencode.invocation(plan({ system: 'Be brief.' }), null);
    expect(inv.stdin).toEqual({ kind: 'prompt', text: 'Be brief.\n\nhi' });
  });

  it('names the session folder in PWD, which OpenCode prefers to its working directory', () => {
    const p = plan();
    expect(envOf(p).PWD).toBe(p.cwd);
  });

  it('resumes with --session and forks with --fork', () => {
    expect(opencode.invocation(plan({ resume: 'ses_a' }), null).args).toEqual(
      expect.arrayContaining(['--session', 'ses_a']),
    );
    const fork = opencode.invocation(plan({ resume: 'ses_a', fork: true }), null).args;
    expect(fork.slice(-3)).toEqual(['--session', 'ses_a', '--fork']);
  });

  it('passes the model as given and the effort as its variant', () => {
    const args = opencode.invocation(plan({ model: 'lab/lab-model', effort: 'high' }), null).args;
    expect(args).toEqual(expect.arrayContaining(['--model', 'lab/lab-model', '--variant', 'high']));
  });

  it('a plain-text run asks for OpenCode’s default format, without thinking lines', () => {
    const args = opencode.invocation(plan({ format: 'text' }), null).args;
    expect(args).not.toContain('--format');
    expect(args).not.toContain('--thinking');
  });

  it.each<[Permission, unknown, string[]]>([
    ['read-only', { edit: 'deny', bash: 'deny' }, []],
    ['plan', { edit: 'deny', bash: 'deny' }, ['--agent', 'plan']],
    ['default', undefined, []],
    ['edit', { bash: 'deny' }, []],
    ['auto', undefined, []],
    ['bypass', undefined, ['--auto']],
  ])('%s adds %j to OpenCode’s rules', (permission, rules, flags) => {
    const p = plan({ permission });
    expect(rulesOf(p)).toEqual(rules);
    const args = opencode.invocation(p, null).args.slice(4);
    expect(args).toEqual(flags);
  });

  it('added directories are places outside the project it may use', () => {
    const dir = process.cwd();
    expect(rulesOf(plan({ permission: 'read-only', addDirs: [dir] }))).toEqual({
      edit: 'deny',
      bash: 'deny',
      external_directory: { [`${dir}/*`]: 'allow' },
    });
  });

  it('refuses what it cannot do before anything is spawned', () => {
    const refuse = (more: Partial<Request>) => {
      try {
        plan(more);
        return null;
      } catch (e) {
        return isDriveError(e) ? e.failure.kind : e;
      }
    };
    expect(refuse({ sessionId: '0b9e7c9e-3f5e-4c3a-9d7e-0e8b8a9f1c2d' })).toBe('unsupported');
    expect(refuse({ schema: { type: 'object' } })).toBe('unsupported');
    expect(refuse({ interactive: true })).toBe('unsupported');
    expect(refuse({ thinking: false })).toBe('unsupported');
  });
});

describe('opencode with approvals (opencode serve)', () => {
  it('starts a server on a loopback port behind a password of its own, the prompt going over HTTP', () => {
    const inv = opencode.invocation(plan({ approvals: true, permission: 'edit' }), null);
    expect(inv.args).toEqual(['serve', '--hostname', '127.0.0.1', '--port', '0']);
    expect(inv.stdin).toEqual({ kind: 'none' });
    expect(inv.conversation).toBeDefined();
    expect(inv.env.OPENCODE_SERVER_USERNAME).toBe('opencode');
    expect(inv.env.OPENCODE_SERVER_PASSWORD).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const again = opencode.invocation(plan({ approvals: true, permission: 'edit' }), null);
    expect(again.env.OPENCODE_SERVER_PASSWORD, 'each run has its own').not.toBe(
      inv.env.OPENCODE_SERVER_PASSWORD,
    );
  });

  it.each<[Permission, unknown]>([
    ['plan', { edit: 'deny', bash: 'ask' }],
    ['default', undefined],
    ['edit', { bash: 'ask' }],
    ['auto', undefined],
    ['bypass', undefined],
  ])('%s asks where it would deny: %j', (permission, rules) => {
    expect(rulesOf(plan({ approvals: true, permission }))).toEqual(rules);
  });

  it('refuses a model that is not provider/model before spawning, as the server needs both', () => {
    const refused = () =>
      opencode.invocation(plan({ approvals: true, permission: 'edit', model: 'gpt' }), null);
    expect(refused).toThrow(/provider\/model/);
  });

  it('sends the model split in two, the plan agent, the effort as the variant, the system prompt in front', () => {
    expect(
      promptBody(
        plan({
          approvals: true,
          permission: 'plan',
          model: 'lab/lab-model',
          effort: 'high',
          system: 'Be brief.',
        }),
      ),
    ).toEqual({
      parts: [{ type: 'text', text: 'Be brief.\n\nhi' }],
      model: { providerID: 'lab', modelID: 'lab-model' },
      agent: 'plan',
      variant: 'high',
    });
  });

  it('finds where the server listens only on loopback (1.18.33 stdout)', () => {
    expect(listeningOn('opencode server listening on http://127.0.0.1:4096')).toBe('http://127.0.0.1:4096');
    expect(listeningOn('Warning: OPENCODE_SERVER_PASSWORD is not set; server is unsecured.')).toBeNull();
    expect(listeningOn('opencode server listening on http://0.0.0.0:4096')).toBeNull();
    expect(listeningOn('opencode server listening on http://evil.example:4096')).toBeNull();
  });

  it('reads a session part off /event as the record opencode run prints, once it is whole (1.18.33, lab script call)', () => {
    const part = (p: Record<string, unknown>) => ({ sessionID: SID, messageID: 'msg_1', id: 'prt_1', ...p });
    // The prompt's own part, and a text part still streaming: nothing yet.
    expect(recordOf(part({ type: 'text', text: '[lab:call] Follow the lab script call.' }))).toBeNull();
    expect(recordOf(part({ type: 'text', text: '', time: { start: 1796631803838 } }))).toBeNull();
    expect(
      recordOf(
        part({ type: 'tool', tool: 'bash', callID: 'call_lab_1', state: { status: 'running', input: {} } }),
      ),
    ).toBeNull();
    const done = part({
      type: 'tool',
      tool: 'bash',
      callID: 'call_lab_1',
      state: {
        status: 'error',
        input: { command: 'echo lab-call-ok' },
        error:
          'The user rejected permission to use this specific tool call with the following feedback: not today',
      },
    });
    const record = recordOf(done)!;
    expect(record).toEqual({ type: 'tool_use', sessionID: SID, part: done });
    const { events } = read(JSON.stringify(record));
    expect(ofKind(events, 'tool_result')).toEqual([
      {
        kind: 'tool_result',
        id: 'call_lab_1',
        ok: false,
        output:
          'The user rejected permission to use this specific tool call with the following feedback: not today',
      },
    ]);
    const text = part({ type: 'text', text: 'The command printed lab-call-ok.', time: { start: 1, end: 2 } });
    expect(recordOf(text)).toEqual({ type: 'text', sessionID: SID, part: text });
    expect(recordOf(part({ type: 'step-finish', reason: 'stop' }))?.type).toBe('step_finish');
    expect(recordOf(part({ type: 'step-start' }))?.type).toBe('step_start');
  });
});
