/**
 * One ACP conversation, driven line by line without a process. The agent's lines are trimmed copies
 * of what Gemini CLI 0.61.0 wrote in its ACP mode (`gemini --acp`) in the conformance lab, against
 * the stand-in model server, as each test says; drive's own requests are numbered from 0 in the
 * order it sends them, as they were in the lab.
 */
import { PassThrough } from 'node:stream';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_PENDING_APPROVALS } from '../bounds.js';
import type { ConversationHost } from '../conversation.js';
import { isDriveError } from '../errors.js';
import type { Event } from '../events.js';
import { type Plan, planRequest, type Request } from '../request.js';
import { ofKind } from '../test-support/fake-agent.js';
import { AcpConversation } from './client.js';
import type { AcpAgent } from './request.js';
import { acpSpec } from './spec.js';

const GEMINI: AcpAgent = { name: 'gemini', command: ['gemini', '--acp'] };
const SESSION = '37f5ea39-43fb-4500-ac8c-983ec4d101e8';

const INITIALIZED =
  '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"authMethods":[{"id":"gemini-api-key","name":"Gemini API key","description":"Use an API key with Gemini Developer API","_meta":{"api-key":{"provider":"google"}}}],"agentInfo":{"name":"gemini-cli","title":"Gemini CLI","version":"0.61.0"},"agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":true,"audio":true,"embeddedContext":true},"mcpCapabilities":{"http":true,"sse":true}}}}';
const OPENED = `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"${SESSION}","modes":{"availableModes":[{"id":"default","name":"Default","description":"Prompts for approval"},{"id":"autoEdit","name":"Auto Edit","description":"Auto-approves edit tools"},{"id":"yolo","name":"YOLO","description":"Auto-approves all tools"},{"id":"plan","name":"Plan","description":"Read-only mode"}],"currentModeId":"default"},"models":{"availableModels":[{"modelId":"gemini-2.5-pro","name":"gemini-2.5-pro"}],"currentModelId":"gemini-2.5-flash"}}}`;
const COMMANDS = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${SESSION}","update":{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"memory","description":"Manage memory."},{"name":"init","description":"Analyzes the project and creates a tailored GEMINI.md file"}]}}}`;
const update = (u: object, session = SESSION) =>
  JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: session, update: u } });
const ENDED = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"result":{"stopReason":"end_turn","_meta":{"quota":{"token_count":{"input_tokens":23951,"output_tokens":25},"model_usage":[{"model":"gemini-2.5-flash","token_count":{"input_tokens":23951,"output_tokens":25}}]}}}}`;
const SHELL_CALL = {
  sessionUpdate: 'tool_call',
  toolCallId: 'run_shell_command__call_lab_1',
  status: 'in_progress',
  title: 'echo lab-call-ok',
  content: [
    {
      type: 'content',
      content: { type: 'text', text: '[current working directory /tmp/lab/work] (Run a lab command)' },
    },
  ],
  locations: [],
  kind: 'execute',
};
const ASK = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"session/request_permission","params":{"sessionId":"${SESSION}","options":[{"optionId":"proceed_always","name":"Allow for this session","kind":"allow_always"},{"optionId":"proceed_once","name":"Allow","kind":"allow_once"},{"optionId":"cancel","name":"Reject","kind":"reject_once"}],"toolCall":{"toolCallId":"run_shell_command__call_lab_3","status":"pending","title":"touch lab-approved.txt && echo lab-touched","content":[],"locations":[],"kind":"execute"}}}`;

interface Talk {
  c: AcpConversation;
  written: () => Record<string, unknown>[];
  host: { broke: number; settled: number };
  /** Each line read in turn, every tick it makes run; the events they made, in order. */
  feed: (...lines: string[]) => Promise<Event[]>;
}

function talk(req: Partial<Request> = {}, acp: AcpAgent = GEMINI): Talk {
  const request: Request = {
    agent: 'acp',
    acp,
    prompt: '[lab:call] do the lab step',
    cwd: process.cwd(),
    ...req,
  };
  const plan: Plan = planRequest(request, acpSpec(acp).caps);
  const calls = { broke: 0, settled: 0 };
  const emitted: Event[] = [];
  const host: ConversationHost = {
    broke: () => calls.broke++,
    settled: () => calls.settled++,
    emit: (events) => emitted.push(...events),
    ready: () => {},
  };
  const c = new AcpConversation(plan, acp, host);
  const stdin = new PassThrough();
  const chunks: string[] = [];
  stdin.on('data', (b: Buffer) => chunks.push(b.toString('utf8')));
  c.begin(stdin);
  return {
    c,
    host: calls,
    written: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    feed: async (...lines) => {
      const from = emitted.length;
      for (const line of lines) {
        // What drive writes, it writes on later ticks too: the line answers what was written by then.
        await tick();
        emitted.push(...c.read(line));
        // The SDK reads a line on later ticks, and the turn settles a tick after its reply.
        for (let i = 0; i < SETTLING_TICKS; i++) await tick();
      }
      return emitted.slice(from);
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));
/** Ticks a line takes at most to make its events: read, handled, then a reply settled and stdin ended. */
const SETTLING_TICKS = 3;
afterEach(() => vi.useRealTimers());
// The client loads the SDK with its first run; loaded here, every test's ticks count from the same start.
beforeAll(() => import('@agentclientprotocol/sdk'));

describe('an ACP conversation', () => {
  it('opens a session with no files, terminal or MCP servers, and announces it with its model', async () => {
    const t = talk();
    const events = await t.feed(INITIALIZED, OPENED, COMMANDS);
    await tick();
    const [init, open, prompt] = t.written();
    expect(init).toMatchObject({
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      },
    });
    expect(open).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'session/new',
      params: { cwd: process.cwd(), mcpServers: [] },
    });
    // Gemini's plan mode is its read-only one: asked for before the prompt.
    expect(prompt).toMatchObject({
      id: 2,
      method: 'session/set_mode',
      params: { sessionId: SESSION, modeId: 'plan' },
    });
    expect(events).toEqual([
      { kind: 'started', session: SESSION, model: 'gemini-2.5-flash' },
      { kind: 'commands', commands: { all: ['memory', 'init'], skills: [] } },
    ]);
    expect(t.c.terminal().acp).toEqual({
      name: 'gemini',
      command: ['gemini', '--acp'],
      agentName: 'gemini-cli',
      agentVersion: '0.61.0',
      protocolVersion: 1,
    });
  });

  it('a call and its answer arrive as events; the answer is the text after the last call (lab script call)', async () => {
    const t = talk({ permission: 'default' });
    await t.feed(INITIALIZED, OPENED);
    await tick();
    expect(t.written()[2]).toMatchObject({
      id: 2,
      method: 'session/prompt',
      params: { sessionId: SESSION, prompt: [{ type: 'text', text: '[lab:call] do the lab step' }] },
    });
    const events = await t.feed(
      update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Let me run it.' } }),
      update(SHELL_CALL),
      update({ ...SHELL_CALL, sessionUpdate: 'tool_call_update', status: 'completed', content: [] }),
      update({
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: 'The command printed lab-call-ok.' },
      }),
      ENDED(2),
    );
    expect(events).toEqual([
      { kind: 'text', text: 'Let me run it.' },
      { kind: 'tool_call', id: 'run_shell_command__call_lab_1', name: 'echo lab-call-ok', input: null },
      // Gemini says `completed` for a command that exited 3 as well: it ran, nothing more is known.
      { kind: 'tool_result', id: 'run_shell_command__call_lab_1', ok: null, output: '' },
      { kind: 'text', text: 'The command printed lab-call-ok.' },
    ]);
    const end = t.c.terminal();
    expect(end.text).toBe('The command printed lab-call-ok.');
    expect(end.stop).toEqual({ kind: 'completed' });
    expect(t.c.sawTerminal).toBe(true);
    // Gemini's `_meta.quota` folds the cache into input and leaves thoughts out: not read.
    expect(end.usage.input).toBeNull();
    expect(end.usage.output).toBeNull();
    expect(t.host.settled).toBe(1);
    expect(t.c.open, 'stdin is ended once the turn settled').toBe(false);
  });

  it('a permission request becomes an approval_request answered with the agent’s own options (lab script approve)', async () => {
    const t = talk({ permission: 'default', approvals: true });
    await t.feed(INITIALIZED, OPENED);
    const asked = await t.feed(ASK(0));
    expect(asked).toEqual([
      {
        kind: 'tool_call',
        id: 'run_shell_command__call_lab_3',
        name: 'touch lab-approved.txt && echo lab-touched',
        input: null,
      },
      { kind: 'approval_request', id: '0', tool: 'touch lab-approved.txt && echo lab-touched', input: null },
    ]);
    expect(t.c.answer('0', { behavior: 'allow' })).toBe(true);
    expect(t.c.answer('0', { behavior: 'allow' }), 'answered once').toBe(false);
    await t.feed(ASK(1));
    expect(t.c.answer('1', { behavior: 'deny', reason: 'not now' })).toBe(true);
    await tick();
    expect(t.written().slice(-2)).toEqual([
      { jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'selected', optionId: 'proceed_once' } } },
      { jsonrpc: '2.0', id: 1, result: { outcome: { outcome: 'selected', optionId: 'cancel' } } },
    ]);
  });

  it('changed arguments cannot be carried, so allowing with them is refused and the request still waits', async () => {
    const t = talk({ permission: 'default', approvals: true });
    await t.feed(INITIALIZED, OPENED, ASK(0));
    let error: unknown = null;
    try {
      t.c.answer('0', { behavior: 'allow', updatedInput: { command: 'true' } });
    } catch (e) {
      error = e;
    }
    expect(isDriveError(error) && error.kind).toBe('unsupported');
    expect(t.c.answer('0', { behavior: 'deny' })).toBe(true);
  });

  it('without approvals a permission request is rejected at once, and the caller sees only the call', async () => {
    const t = talk({ permission: 'default' });
    await t.feed(INITIALIZED, OPENED);
    const events = await t.feed(ASK(0));
    expect(ofKind(events, 'approval_request')).toEqual([]);
    expect(ofKind(events, 'tool_call')).toHaveLength(1);
    await tick();
    expect(t.written().at(-1)).toEqual({
      jsonrpc: '2.0',
      id: 0,
      result: { outcome: { outcome: 'selected', optionId: 'cancel' } },
    });
  });

  it(`past ${MAX_PENDING_APPROVALS} waiting requests the next is rejected on the caller's behalf`, async () => {
    const t = talk({ permission: 'default', approvals: true });
    await t.feed(INITIALIZED, OPENED);
    for (let i = 0; i < MAX_PENDING_APPROVALS; i++)
      expect(ofKind(await t.feed(ASK(i)), 'approval_request')).toHaveLength(1);
    expect(ofKind(await t.feed(ASK(99)), 'approval_request')).toEqual([]);
    await tick();
    expect(t.written().at(-1)).toMatchObject({ id: 99, result: { outcome: { optionId: 'cancel' } } });
  });

  it('cancelling answers what waits as cancelled, then cancels the turn and ends stdin', async () => {
    const t = talk({ permission: 'default', approvals: true });
    await t.feed(INITIALIZED, OPENED, ASK(0));
    t.c.close();
    for (let i = 0; i < SETTLING_TICKS; i++) await tick();
    expect(t.written().slice(-2)).toEqual([
      { jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'cancelled' } } },
      { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: SESSION } },
    ]);
    expect(t.c.open).toBe(false);
  });

  it('requests for files, terminals or anything else get an error, so the agent never waits', async () => {
    const t = talk({ permission: 'default' });
    await t.feed(INITIALIZED, OPENED);
    await t.feed(
      `{"jsonrpc":"2.0","id":"t1","method":"terminal/create","params":{"sessionId":"${SESSION}","command":"ls"}}`,
    );
    await tick();
    // The SDK's own refusal, which names the method.
    expect(t.written().at(-1)).toMatchObject({
      jsonrpc: '2.0',
      id: 't1',
      error: { code: -32601, data: { method: 'terminal/create' } },
    });
  });

  it('text before the prompt is not the answer: Gemini announces its mode change as a message chunk', async () => {
    const t = talk({ permission: 'plan' });
    const events = await t.feed(
      INITIALIZED,
      OPENED,
      update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '[MODE_UPDATE] plan' } }),
      '{"jsonrpc":"2.0","id":2,"result":{}}',
    );
    expect(ofKind(events, 'text')).toEqual([]);
    expect(t.c.terminal().text).toBe('');
  });

  it('a resumed session is loaded, and the history it replays is not this run’s (lab script resume)', async () => {
    const t = talk({ permission: 'default', resume: SESSION });
    const events = await t.feed(
      INITIALIZED,
      update({
        sessionUpdate: 'user_message_chunk',
        content: { type: 'text', text: '[lab:call] do the lab step' },
      }),
      update({ ...SHELL_CALL, status: 'completed', title: 'Shell', content: [] }),
      update({
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: 'The command printed lab-call-ok.' },
      }),
      '{"jsonrpc":"2.0","id":1,"result":{"modes":{"availableModes":[{"id":"default","name":"Default"}],"currentModeId":"default"}}}',
      update({
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: 'Resumed: the second turn is answered.' },
      }),
    );
    await tick();
    expect(t.written()[1]).toMatchObject({
      method: 'session/load',
      params: { sessionId: SESSION, mcpServers: [] },
    });
    expect(events).toEqual([
      { kind: 'started', session: SESSION, model: null },
      { kind: 'text', text: 'Resumed: the second turn is answered.' },
    ]);
  });

  it('a plan arrives whole as one event, its entries as the agent wrote them (ACP v1 shape)', async () => {
    const t = talk({ permission: 'default' });
    await t.feed(INITIALIZED, OPENED);
    const events = await t.feed(
      update({
        sessionUpdate: 'plan',
        entries: [
          { content: 'Read the failing test', priority: 'high', status: 'completed' },
          { content: 'Fix the parser', priority: 'medium', status: 'in_progress' },
          { content: 'Something odd', priority: 'low', status: 'skipped' },
        ],
      }),
    );
    expect(events).toEqual([
      {
        kind: 'plan',
        entries: [
          { content: 'Read the failing test', status: 'completed', priority: 'high' },
          { content: 'Fix the parser', status: 'in_progress', priority: 'medium' },
        ],
      },
    ]);
  });

  it('reads usage as the protocol drafts it, and the context and session cost from usage_update', async () => {
    const t = talk({ permission: 'default' });
    await t.feed(INITIALIZED, OPENED);
    const live = await t.feed(
      update({
        sessionUpdate: 'usage_update',
        used: 53000,
        size: 200000,
        cost: { amount: 0.12, currency: 'USD' },
      }),
    );
    expect(live).toEqual([
      {
        kind: 'usage',
        usage: expect.objectContaining({
          contextTokens: 53000,
          contextWindow: 200000,
          costUsd: null,
          input: null,
        }),
      },
    ]);
    await t.feed(
      '{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn","usage":{"totalTokens":53000,"inputTokens":35000,"outputTokens":12000,"thoughtTokens":5000,"cachedReadTokens":5000,"cachedWriteTokens":1000}}}',
    );
    const end = t.c.terminal();
    expect(end.usage).toMatchObject({
      input: 35000,
      output: 12000,
      reasoning: 5000,
      cacheRead: 5000,
      cacheWrite: 1000,
      contextTokens: 53000,
      contextWindow: 200000,
    });
    expect(end.threadCostUsd).toBe(0.12);
  });

  it('a failed prompt settles the turn as failed, keeping an HTTP status Gemini gives as its code', async () => {
    const t = talk({ permission: 'default' });
    await t.feed(
      INITIALIZED,
      OPENED,
      '{"jsonrpc":"2.0","id":2,"error":{"code":429,"message":"Rate limit exceeded. Try again later."}}',
    );
    const end = t.c.terminal();
    expect(end.stop).toEqual({ kind: 'error' });
    expect(end.errorStatus).toBe(429);
    expect(end.errorMessage).toBe('Rate limit exceeded. Try again later.');
    expect(t.c.sawTerminal).toBe(true);
  });
});

describe('what the SDK never sees', () => {
  it('a line that is not JSON-RPC is counted, a reply to nothing is dropped, and nothing reaches stderr', async () => {
    const said = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const t = talk({ permission: 'default' });
      await t.feed(INITIALIZED, OPENED);
      await t.feed(
        'Loaded cached credentials.',
        '[1,2,3]',
        '{"jsonrpc":"2.0","id":99,"result":{}}',
        '{"jsonrpc":"2.0","id":"x","result":{}}',
        '{"jsonrpc":"2.0"}',
      );
      expect(t.c.terminal().unparsed).toBe(3);
      expect(t.c.terminal().firstUnparsed).toBe('Loaded cached credentials.');
      expect(said).not.toHaveBeenCalled();
    } finally {
      said.mockRestore();
    }
  });

  it('an update the SDK’s schema would refuse is still read, and an unknown kind is left quietly', async () => {
    const said = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const t = talk({ permission: 'default' });
      await t.feed(INITIALIZED, OPENED);
      const events = await t.feed(
        // `annotations` must be an object in ACP v1's schema; a newer agent's kind is not in it at all.
        update({
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: 'still read', annotations: 5 },
        }),
        update({ sessionUpdate: 'a_kind_from_a_newer_protocol', whatever: true }),
      );
      expect(events).toEqual([{ kind: 'text', text: 'still read' }]);
      expect(said).not.toHaveBeenCalled();
    } finally {
      said.mockRestore();
    }
  });
});

describe('an ACP conversation that cannot go on', () => {
  it('an agent that wants a login says so (Gemini CLI 0.61.0 without GEMINI_API_KEY)', async () => {
    const t = talk();
    await t.feed(
      INITIALIZED,
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Gemini API key is missing or not configured."}}',
    );
    expect(t.c.breakdown).toEqual({
      kind: 'not_authenticated',
      message: 'Gemini API key is missing or not configured.',
    });
    expect(t.host.broke).toBe(1);
  });

  it('another protocol version is refused', async () => {
    const t = talk();
    await t.feed('{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2,"agentCapabilities":{}}}');
    expect(t.c.breakdown).toEqual({
      kind: 'protocol',
      message: 'gemini speaks ACP version 2; cctop speaks 1',
    });
  });

  it('a permission level that needs a mode the agent lacks is refused, naming its modes', async () => {
    const t = talk({ permission: 'edit' });
    await t.feed(INITIALIZED, OPENED.replace('"autoEdit"', '"careful"'));
    expect(t.c.breakdown).toMatchObject({ kind: 'unsupported' });
    expect(t.c.breakdown?.kind === 'unsupported' && t.c.breakdown.what).toContain(
      'its modes: default, careful, yolo, plan',
    );
  });

  it('resuming needs session/resume or session/load', async () => {
    const t = talk({ resume: SESSION });
    await t.feed(
      '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":false}}}',
    );
    expect(t.c.breakdown).toMatchObject({ kind: 'unsupported' });
  });

  it('a handshake not answered within its deadline breaks off, saying which step waited', async () => {
    vi.useFakeTimers();
    const t = talk({}, { ...GEMINI, handshakeMs: 2000 });
    vi.advanceTimersByTime(1999);
    expect(t.host.broke).toBe(0);
    vi.advanceTimersByTime(1);
    expect(t.host.broke).toBe(1);
    expect(t.c.breakdown).toEqual({
      kind: 'protocol',
      message:
        'gemini did not answer `initialize` within 2 s: is `gemini --acp` an ACP agent, started in its ACP mode?',
    });
  });
});
