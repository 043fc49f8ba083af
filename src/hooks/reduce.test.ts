import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPO } from '../test-support/corpus.js';
import { HOOK_CLOCK_SKEW_MS, isEventName, readHookEvent, readPayload, reduceHook } from './reduce.js';
import { type HookAgent, type HookEvent, MAX_HOOK_FIELD_CHARS } from './types.js';

const reduce = (agent: HookAgent, event: string, text: string): HookEvent =>
  reduceHook({ agent, event, payload: readPayload(text), at: 1_796_185_300_000, ppid: 4242 });

const json = (o: unknown): string => JSON.stringify(o);

describe('reducing a payload', () => {
  it("Claude Code's permission notification keeps its session, place and type (2.1.328)", () => {
    const e = reduce(
      'claude',
      'Notification',
      json({
        session_id: '257ae998-a8d3-4e35-adba-fb73d79f40f9',
        transcript_path: '/LAB/home/.claude/projects/-LAB-work/257ae998-a8d3-4e35-adba-fb73d79f40f9.jsonl',
        cwd: '/LAB/work',
        prompt_id: 'e8c1ea6f-fad2-4f7f-9df4-9398b109ee10',
        hook_event_name: 'Notification',
        message: 'Claude needs your permission to use Bash',
        notification_type: 'permission_prompt',
      }),
    );
    expect(e).toEqual({
      v: 1,
      at: 1_796_185_300_000,
      agent: 'claude',
      event: 'Notification',
      session: '257ae998-a8d3-4e35-adba-fb73d79f40f9',
      cwd: '/LAB/work',
      notification: 'permission_prompt',
      tool: null,
      permissionMode: null,
      transcript: '/LAB/home/.claude/projects/-LAB-work/257ae998-a8d3-4e35-adba-fb73d79f40f9.jsonl',
      input: null,
      ppid: 4242,
    });
  });

  it("Codex's notify names its thread and the turn's end (0.169.0's agent-turn-complete)", () => {
    const e = reduce(
      'codex',
      'agent-turn-complete',
      json({
        type: 'agent-turn-complete',
        'thread-id': '019a5e1c-7d2f-7a40-9c1e-3b8f0d6a2e11',
        'turn-id': '1',
        cwd: '/home/dev/src/app',
        'input-messages': ['fix the test'],
        'last-assistant-message': 'Done.',
      }),
    );
    expect(e.session).toBe('019a5e1c-7d2f-7a40-9c1e-3b8f0d6a2e11');
    expect(e.cwd).toBe('/home/dev/src/app');
    expect(e.notification).toBe('agent-turn-complete');
  });

  it("Cursor's stop names its conversation, its first workspace root and how the loop ended", () => {
    const e = reduce(
      'cursor',
      'stop',
      json({
        conversation_id: 'c0ffee00-1111-2222-3333-444455556666',
        generation_id: 'g-1',
        hook_event_name: 'stop',
        workspace_roots: ['/home/dev/src/app', '/home/dev/src/lib'],
        status: 'error',
        loop_count: 0,
      }),
    );
    expect([e.session, e.cwd, e.notification]).toEqual([
      'c0ffee00-1111-2222-3333-444455556666',
      '/home/dev/src/app',
      'error',
    ]);
  });

  it('every spelling the agents use is read', () => {
    const sessions = [
      'session_id',
      'sessionId',
      'sessionID',
      'thread-id',
      'thread_id',
      'conversation_id',
      'conversationId',
    ];
    for (const key of sessions)
      expect(reduce('opencode', 'session.idle', json({ [key]: 'ses_1' })).session).toBe('ses_1');
    for (const [key, value] of [
      ['cwd', '/a'],
      ['directory', '/a'],
      ['workspace_roots', ['/a']],
      ['workspaceRoots', ['/a']],
    ] as const)
      expect(reduce('gemini', 'AfterAgent', json({ [key]: value })).cwd).toBe('/a');
    for (const key of ['notification_type', 'notificationType', 'type', 'message'])
      expect(reduce('qwen', 'Notification', json({ [key]: 'ToolPermission' })).notification).toBe(
        'ToolPermission',
      );
    for (const key of ['tool_name', 'toolName', 'tool'])
      expect(reduce('opencode', 'tool.execute.before', json({ [key]: 'bash' })).tool).toBe('bash');
    for (const key of ['permission_mode', 'permissionMode'])
      expect(reduce('claude', 'PreToolUse', json({ [key]: 'plan' })).permissionMode).toBe('plan');
    for (const key of ['transcript_path', 'transcriptPath'])
      expect(reduce('claude', 'Stop', json({ [key]: '/t.jsonl' })).transcript).toBe('/t.jsonl');
  });

  it('a notification type is preferred to the message that describes it', () => {
    const e = reduce(
      'claude',
      'Notification',
      json({ message: 'Claude is waiting', notification_type: 'idle_prompt' }),
    );
    expect(e.notification).toBe('idle_prompt');
  });

  it('an event with no payload, or one that is not an object, still names its agent and event', () => {
    for (const text of ['', 'not json', '[1,2]', '"text"', 'null', '{"session_id": 7}']) {
      const e = reduce('gemini', 'SessionEnd', text);
      expect(e).toMatchObject({ agent: 'gemini', event: 'SessionEnd', session: null, cwd: null, tool: null });
    }
  });

  it('an id too long to be one is dropped, not shortened', () => {
    const e = reduce(
      'claude',
      'Stop',
      json({ session_id: 'a'.repeat(MAX_HOOK_FIELD_CHARS + 1), cwd: '/ok' }),
    );
    expect(e.session).toBeNull();
    expect(e.cwd).toBe('/ok');
  });

  it('an id with a control character in it is no id; a message loses its control characters', () => {
    const e = reduce(
      'claude',
      'Notification',
      json({ session_id: 'abc\u001b[2Jdef', message: '\u001b[31mClaude needs\u202e your permission\u0007' }),
    );
    expect(e.session).toBeNull();
    expect(e.notification).toBe('[31mClaude needs your permission');
  });

  it("keeps the agent's own time for an event when it is believable, so events reach cctop in order", () => {
    const ran = 1_796_185_300_000;
    const at = (payload: unknown) => reduce('opencode', 'session.idle', json(payload)).at;
    expect(at({ session_id: 'ses_1', event_at_ms: ran - 250 })).toBe(ran - 250);
    expect(at({ session_id: 'ses_1', timestamp: new Date(ran - 40).toISOString() })).toBe(ran - 40);
    // In the future, or older than the skew allows: a clock gone wrong, or a made-up time.
    expect(at({ session_id: 'ses_1', event_at_ms: ran + 5_000 })).toBe(ran);
    expect(at({ session_id: 'ses_1', event_at_ms: ran - HOOK_CLOCK_SKEW_MS - 1 })).toBe(ran);
    expect(at({ session_id: 'ses_1', timestamp: 'yesterday' })).toBe(ran);
  });

  it('a long message is cut to the bound', () => {
    const e = reduce('claude', 'Notification', json({ message: 'é'.repeat(5 * MAX_HOOK_FIELD_CHARS) }));
    expect(e.notification).toBe('é'.repeat(MAX_HOOK_FIELD_CHARS));
  });

  it('a payload cut short by the input bound still gives its top-level fields, never a nested one', () => {
    const full = json({
      session_id: 'ses-outer',
      cwd: '/work',
      tool_name: 'Read',
      tool_input: { file_path: '/big', session_id: 'ses-inner', cwd: '/elsewhere' },
      tool_response: { content: 'x'.repeat(300_000) },
      permission_mode: 'default',
    });
    const cut = full.slice(0, 256 * 1024);
    const e = reduce('claude', 'PostToolUse', cut);
    expect([e.session, e.cwd, e.tool]).toEqual(['ses-outer', '/work', 'Read']);
    // It came after the cut.
    expect(e.permissionMode).toBeNull();
  });

  it('whatever the payload, reducing never throws and every field is printable and within its bound', () => {
    const payloads = fc.oneof(
      fc.string(),
      fc.json(),
      fc
        .dictionary(
          fc.constantFrom(
            'session_id',
            'cwd',
            'message',
            'tool_name',
            'workspace_roots',
            'type',
            'status',
            'x',
          ),
          fc.oneof(fc.string({ maxLength: 2000 }), fc.array(fc.string()), fc.integer(), fc.constant(null)),
        )
        .map((o) => JSON.stringify(o)),
    );
    fc.assert(
      fc.property(payloads, fc.integer({ min: 0, max: 600 }), (text, cutAt) => {
        for (const t of [text, text.slice(0, cutAt)]) {
          const e = reduce('claude', 'Stop', t);
          for (const v of [e.session, e.cwd, e.notification, e.tool, e.permissionMode, e.transcript]) {
            if (v === null) continue;
            expect(v.length).toBeLessThanOrEqual(MAX_HOOK_FIELD_CHARS);
            expect(v).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
          }
          expect(readHookEvent(JSON.parse(JSON.stringify(e)))).toEqual(e);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('event names', () => {
  it("the agents' own names are events; options, paths and sentences are not", () => {
    for (const name of [
      'PreToolUse',
      'tool.execute.before',
      'agent-turn-complete',
      'beforeSubmitPrompt',
      'notify',
    ])
      expect(isEventName(name)).toBe(true);
    for (const name of ['', '--help', '/etc/passwd', 'two words', 'x'.repeat(65), '{"type":"x"}'])
      expect(isEventName(name)).toBe(false);
  });
});

describe('reading an event back', () => {
  const event: HookEvent = {
    v: 1,
    at: 1,
    agent: 'claude',
    event: 'Stop',
    session: 's',
    cwd: null,
    notification: null,
    tool: null,
    permissionMode: null,
    transcript: null,
    input: null,
    ppid: null,
  };

  it('a line written before the input was kept reads, with no input', () => {
    const { input: _, ...older } = event;
    expect(readHookEvent(older)).toEqual(event);
    expect(readHookEvent({ ...event, input: 7 })).toBeNull();
  });

  it('a line of another version, of an unknown agent or with a field of the wrong type is not an event', () => {
    expect(readHookEvent({ ...event })).toEqual(event);
    expect(readHookEvent({ ...event, v: 2 })).toBeNull();
    expect(readHookEvent({ ...event, agent: 'emacs' })).toBeNull();
    expect(readHookEvent({ ...event, session: 5 })).toBeNull();
    expect(readHookEvent({ ...event, cwd: undefined })).toBeNull();
    expect(readHookEvent({ ...event, ppid: -3 })).toBeNull();
    expect(readHookEvent({ ...event, notification: 'bell\u0007' })).toBeNull();
    expect(readHookEvent('Stop')).toBeNull();
  });

  it('fields it does not know are not carried along', () => {
    expect(readHookEvent({ ...event, extra: 'x'.repeat(10) })).toEqual(event);
  });
});

describe("the lab's recorded payloads", () => {
  const root = join(REPO, 'lab', 'fixtures', 'hooks');
  const recorded = (agent: string): string[] => {
    try {
      return readdirSync(join(root, agent)).map((run) => join(root, agent, run, 'hooks.jsonl'));
    } catch {
      return [];
    }
  };
  const lines = (file: string): { event: string; payload: Record<string, unknown> }[] =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { event: string; payload: Record<string, unknown> });

  it.each(recorded('claude'))(
    'every hook Claude Code 2.1.328 ran in %s reduces to its session, place and tool',
    (file) => {
      const hooks = lines(file);
      expect(hooks.length).toBeGreaterThan(0);
      for (const { event, payload } of hooks) {
        const e = reduce('claude', event, JSON.stringify(payload));
        expect(e.session).toBe(payload.session_id);
        expect(e.cwd).toBe(payload.cwd);
        expect(e.transcript).toBe(payload.transcript_path);
        expect(e.tool).toBe(payload.tool_name ?? null);
        expect(e.permissionMode).toBe(payload.permission_mode ?? null);
        if (event === 'Notification') expect(e.notification).toBe(payload.notification_type);
        const input = payload.tool_input as { command?: string } | undefined;
        expect(e.input).toBe(input?.command ?? null);
        expect(readHookEvent(JSON.parse(JSON.stringify(e)))).toEqual(e);
      }
    },
  );

  it('a permission request says what it asks to run (Claude Code 2.1.328, over stream-json)', () => {
    const asked = lines(join(root, 'claude', 'approve-stream', 'hooks.jsonl')).find(
      (h) => h.event === 'PermissionRequest',
    )!;
    const e = reduce('claude', asked.event, JSON.stringify(asked.payload));
    expect([e.tool, e.input]).toEqual(['Bash', 'touch lab-approved.txt && echo lab-touched']);
  });

  it("Gemini CLI's tool call says what it runs, its input an object or the JSON text of one (0.61.0)", () => {
    const before = lines(join(root, 'gemini', 'call', 'hooks.jsonl')).find((h) => h.event === 'BeforeTool')!;
    expect(reduce('gemini', before.event, JSON.stringify(before.payload)).input).toBe('echo lab-call-ok');
    const asText = { ...before.payload, tool_input: JSON.stringify(before.payload.tool_input) };
    expect(reduce('gemini', before.event, JSON.stringify(asText)).input).toBe('echo lab-call-ok');
  });

  const spoken = (['gemini', 'qwen'] as const).flatMap((agent) =>
    recorded(agent).map((file) => [agent, file] as const),
  );
  it.each(spoken)(
    'every hook %s ran in %s reduces to its session and place (Gemini CLI 0.61.0, Qwen Code 0.24.4)',
    (agent, file) => {
      const hooks = lines(file);
      expect(hooks.length).toBeGreaterThan(0);
      for (const { event, payload } of hooks) {
        const e = reduce(agent, event, JSON.stringify(payload));
        expect([e.session, e.cwd, e.transcript]).toEqual([
          payload.session_id,
          payload.cwd,
          payload.transcript_path,
        ]);
        expect(e.permissionMode).toBe(payload.permission_mode ?? null);
        if (event === 'Notification') expect(e.notification).toBe(payload.notification_type);
        expect(readHookEvent(JSON.parse(JSON.stringify(e)))).toEqual(e);
      }
    },
  );

  const notified = (() => {
    try {
      return readdirSync(join(root, 'codex')).map((run) => join(root, 'codex', run, 'notify.jsonl'));
    } catch {
      return [];
    }
  })();
  it.each(notified)(
    "Codex 0.169.0's notify in %s, its last argument, names its thread and the turn's end",
    (file) => {
      const runs = readFileSync(file, 'utf8').split('\n').filter(Boolean);
      expect(runs.length).toBeGreaterThan(0);
      for (const line of runs) {
        const { argv, payload } = JSON.parse(line) as { argv: string[]; payload: Record<string, unknown> };
        const e = reduce('codex', 'agent-turn-complete', argv.at(-1)!);
        expect([e.session, e.cwd, e.notification]).toEqual([
          payload['thread-id'],
          payload.cwd,
          'agent-turn-complete',
        ]);
      }
    },
  );
});
