import { describe, expect, it } from 'vitest';
import { claudeDecider, lastCallId } from './decide.js';

// Payloads as Claude Code 2.1.328 sent them to a PermissionRequest hook in the lab (trimmed).
const BASH = {
  session_id: '76a71b89-ade7-44f1-b633-48325d8c9845',
  hook_event_name: 'PermissionRequest',
  tool_name: 'Bash',
  tool_input: { command: 'touch lab-approved.txt && echo lab-touched', description: 'Run a lab command' },
};
const ASK = {
  ...BASH,
  tool_name: 'AskUserQuestion',
  tool_input: {
    questions: [
      { question: 'Which lab colour should the file be?', header: 'Colour', options: [], multiSelect: false },
    ],
  },
};

const parsed = (s: string | null): unknown => (s === null ? null : JSON.parse(s));

describe("Claude Code's deciding hook", () => {
  it('an allow is the decision that closes its dialog', () => {
    expect(claudeDecider.render({ kind: 'allow' }, BASH)).toBe(
      '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}',
    );
  });

  it('a deny carries its reason as the message the model reads, or says who denied it', () => {
    expect(parsed(claudeDecider.render({ kind: 'deny', reason: 'not on a Monday' }, BASH))).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'deny', message: 'not on a Monday' },
      },
    });
    expect(parsed(claudeDecider.render({ kind: 'deny', reason: null }, BASH))).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'deny', message: 'The user denied this tool call (answered from cctop).' },
      },
    });
  });

  it('words answer each question of AskUserQuestion through updatedInput', () => {
    expect(claudeDecider.ask(ASK)).toEqual({
      kind: 'question',
      questions: ['Which lab colour should the file be?'],
    });
    expect(parsed(claudeDecider.render({ kind: 'text', text: 'green' }, ASK))).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: {
          behavior: 'allow',
          updatedInput: { ...ASK.tool_input, answers: { 'Which lab colour should the file be?': 'green' } },
        },
      },
    });
  });

  it('words for a plan send it back with them; words for a command cannot be given', () => {
    const plan = { ...BASH, tool_name: 'ExitPlanMode', tool_input: { plan: 'Step one' } };
    expect(claudeDecider.ask(plan).kind).toBe('plan');
    expect(parsed(claudeDecider.render({ kind: 'text', text: 'smaller steps' }, plan))).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'deny', message: 'smaller steps' },
      },
    });
    expect(claudeDecider.render({ kind: 'text', text: 'sure' }, BASH)).toBeNull();
  });

  it("the held call is the transcript's newest tool_use of that tool; a cut first line is passed over", () => {
    const tail = [
      'sage":{"content":[{"type":"tool_use","id":"cut"',
      JSON.stringify({ message: { content: [{ type: 'tool_use', id: 'call_1', name: 'Bash', input: {} }] } }),
      JSON.stringify({ message: { content: [{ type: 'tool_use', id: 'call_2', name: 'Read', input: {} }] } }),
      JSON.stringify({ message: { content: [{ type: 'tool_use', id: 'call_3', name: 'Bash', input: {} }] } }),
    ].join('\n');
    expect(lastCallId(tail, 'Bash')).toBe('call_3');
    expect(lastCallId(tail, 'Write')).toBeNull();
  });
});
