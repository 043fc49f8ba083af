import { describe, expect, it } from 'vitest';
import { HOOK_EVENT_VERSION, type HookEvent } from '../hooks/types.js';
import { readRequest } from './types.js';
import { KEYED_AGENTS, requestOfEvent, waitingCall } from './waiting-call.js';

const SESSION = '01a2529a-f17b-7703-b843-a2136d9d4a3a';
const COMMAND = 'touch lab-escalated.txt && echo lab-escalated';

const event = (event: string, at: number, over: Partial<HookEvent> = {}): HookEvent => ({
  v: HOOK_EVENT_VERSION,
  at,
  agent: 'codex',
  event,
  session: SESSION,
  cwd: '/work',
  notification: null,
  tool: event === 'PreToolUse' || event === 'PermissionRequest' ? 'Bash' : null,
  permissionMode: 'default',
  transcript: null,
  input: event === 'PreToolUse' || event === 'PermissionRequest' ? COMMAND : null,
  ppid: 4242,
  ...over,
});

/** A Codex turn up to its permission request, as 0.169.0's hooks told it in the lab. */
const ASKING = [
  event('SessionStart', 1),
  event('UserPromptSubmit', 2),
  event('agent-turn-complete', 3, { session: '01a2529a-f4de-7153-b249-c3fab4fd66d0' }),
  event('PreToolUse', 4),
  event('PermissionRequest', 5),
];

describe("the call a Codex session's hooks say waits", () => {
  it('is the command of its permission request, found by the start of its id', () => {
    expect(waitingCall(ASKING, KEYED_AGENTS, SESSION.slice(0, 13))).toEqual({
      kind: 'waiting',
      session: SESSION,
      event: ASKING[4],
    });
  });

  it('is none once the call ran or the turn was interrupted', () => {
    expect(waitingCall([...ASKING, event('PostToolUse', 6)], KEYED_AGENTS, SESSION)).toEqual({
      kind: 'not-waiting',
      session: SESSION,
      said: 'PostToolUse (working)',
    });
    expect(waitingCall([...ASKING, event('Interrupt', 6)], KEYED_AGENTS, SESSION)).toMatchObject({
      kind: 'not-waiting',
      said: 'Interrupt (idle)',
    });
  });

  it('orders events by when they happened, not by when their hooks finished', () => {
    const late = [event('PostToolUse', 9), event('PermissionRequest', 8)];
    expect(waitingCall(late, KEYED_AGENTS, SESSION).kind).toBe('not-waiting');
  });

  it('cannot name the call when its request carries no command', () => {
    expect(waitingCall([event('PermissionRequest', 5, { input: null })], KEYED_AGENTS, SESSION)).toEqual({
      kind: 'unnamed',
      session: SESSION,
    });
  });

  it("takes a short id shared with Codex's side session as the one that waits, and knows nothing of other agents' sessions", () => {
    expect(waitingCall(ASKING, KEYED_AGENTS, '01a2529a')).toMatchObject({
      kind: 'waiting',
      session: SESSION,
    });
    const twice = [
      ...ASKING,
      event('PermissionRequest', 6, { session: '01a2529a-f4de-7153-b249-c3fab4fd66d0' }),
    ];
    expect(waitingCall(twice, KEYED_AGENTS, '01a2529a')).toEqual({
      kind: 'ambiguous',
      sessions: [SESSION, '01a2529a-f4de-7153-b249-c3fab4fd66d0'],
    });
    expect(
      waitingCall(
        ASKING.map((e) => ({ ...e, agent: 'claude' as const })),
        KEYED_AGENTS,
        SESSION,
      ),
    ).toEqual({
      kind: 'none',
    });
    expect(waitingCall(ASKING, KEYED_AGENTS, '')).toEqual({ kind: 'none' });
  });

  it('is journaled as a request that reads back, with no hold', () => {
    const r = requestOfEvent({ ...ASKING[4]!, session: SESSION }, 4242);
    expect(readRequest(JSON.parse(JSON.stringify(r)))).toEqual(r);
    expect(r).toMatchObject({
      agent: 'codex',
      session: SESSION,
      tool: 'Bash',
      input: COMMAND,
      at: 5,
      expiresAt: 5,
    });
  });
});
