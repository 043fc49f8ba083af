import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../hooks/types.js';
import { decodeMessage, encodeMessage, MAX_MESSAGE_BYTES, type Message } from './protocol.js';
import { MAX_RUN_INPUT_CHARS } from './runs.js';

const event: HookEvent = {
  v: 1,
  at: 1_796_185_300_000,
  agent: 'claude',
  event: 'PermissionRequest',
  session: '257ae998-a8d3-4e35-adba-fb73d79f40f9',
  cwd: '/LAB/work',
  notification: null,
  tool: 'Bash',
  permissionMode: 'default',
  transcript: null,
  input: null,
  ppid: 4552,
};
const hook: Message = { v: 1, kind: 'hook', event };

describe('the runtime protocol', () => {
  it('a hook message is one line that reads back as itself', () => {
    const line = encodeMessage(hook);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.indexOf('\n')).toBe(line.length - 1);
    expect(decodeMessage(line.slice(0, -1))).toEqual({ kind: 'message', message: hook });
  });

  it('the order of the keys on the line does not matter', () => {
    const reordered = `{"event":${JSON.stringify(event)},"kind":"hook","v":1}`;
    expect(decodeMessage(reordered)).toEqual({ kind: 'message', message: hook });
  });

  it('a message of another version or of a kind not known yet is ignored, not taken for garbage', () => {
    expect(decodeMessage(JSON.stringify({ ...hook, v: 2 }))).toEqual({ kind: 'ignored', why: 'version' });
    expect(decodeMessage(JSON.stringify({ v: 1, kind: 'handoff', run: 'r1' }))).toEqual({
      kind: 'ignored',
      why: 'kind',
    });
  });

  it("a driven run's snapshot is read back with its text made safe and bounded, and a bad one is bad", () => {
    const run = {
      id: 'r1',
      agent: 'claude',
      program: 'bot\u001b]0;pwned\u0007',
      pid: 42,
      cwd: '/w',
      model: null,
      session: null,
      startedAtMs: 1,
      phase: 'waiting',
      pending: [{ id: 'q1', tool: 'Bash', input: 'x'.repeat(10_000) }],
      remote: true,
    };
    const d = decodeMessage(JSON.stringify({ v: 1, kind: 'announce', run }));
    if (d.kind !== 'message' || d.message.kind !== 'announce') throw new Error(JSON.stringify(d));
    expect(d.message.run.program).toBe('bot\ufffd]0;pwned\ufffd');
    expect(d.message.run.pending[0]!.input.length).toBe(MAX_RUN_INPUT_CHARS);
    expect(d.message.run.tokens).toBeNull();
    expect(
      decodeMessage(JSON.stringify({ v: 1, kind: 'run-event', run: { ...run, phase: 'dancing' } })).kind,
    ).toBe('bad');
    expect(
      decodeMessage(
        JSON.stringify({
          v: 1,
          kind: 'answer',
          answer: { run: 'r1', request: 'q1', behavior: 'maybe', by: 'x' },
        }),
      ).kind,
    ).toBe('bad');
    expect(decodeMessage(JSON.stringify({ v: 1, kind: 'bye', run: 'r1' }))).toEqual({
      kind: 'message',
      message: { v: 1, kind: 'bye', run: 'r1' },
    });
  });

  it('a line that is not a message is bad, and reading it never throws', () => {
    for (const line of [
      '',
      'hello',
      '[1]',
      'null',
      '{"v":1',
      '{"v":1,"kind":"hook"}',
      '{"v":1,"kind":"hook","event":{}}',
    ])
      expect(decodeMessage(line).kind).toBe('bad');
    expect(decodeMessage(`${'['.repeat(100_000)}`).kind).toBe('bad');
    expect(decodeMessage(JSON.stringify({ ...hook, pad: 'x'.repeat(MAX_MESSAGE_BYTES) })).kind).toBe('bad');
  });

  it("the largest event a hook can make fits in a message's bound", () => {
    const worst = '\ud800'.repeat(512);
    const big: Message = {
      v: 1,
      kind: 'hook',
      event: {
        ...event,
        event: 'x'.repeat(64),
        session: worst,
        cwd: worst,
        notification: worst,
        tool: worst,
        transcript: worst,
        permissionMode: worst,
      },
    };
    expect(Buffer.byteLength(encodeMessage(big))).toBeLessThan(MAX_MESSAGE_BYTES);
  });
});
