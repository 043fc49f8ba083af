import { describe, expect, it } from 'vitest';
import { TurnSink } from '../../model/conversation.js';
import type { JsonObject } from '../../model/json.js';
import { atifStep, atifSteps } from './conversation.js';

/** ATIF v1.7 steps, shaped as Devin writes them (written for these tests from the seed's captures). */
function chat(steps: string[], statuses: Record<string, string> = {}) {
  const sink = new TurnSink();
  const map = new Map(Object.entries(statuses));
  for (const s of steps) atifStep(sink, JSON.parse(s) as JsonObject, map);
  return sink.finish();
}

describe('a Devin (ATIF) conversation', () => {
  it('one step is one model response: reasoning, then the reply', () => {
    const c = chat([
      '{"step_id":1,"source":"user","timestamp":"t1","message":"fix the parser"}',
      '{"step_id":2,"source":"agent","timestamp":"t2","reasoning_content":"weighing it up","message":"on it"}',
    ]);
    expect(c.turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['user', 'message', 'fix the parser'],
      ['assistant', 'reasoning', 'weighing it up'],
      ['assistant', 'message', 'on it'],
    ]);
  });

  it('a result recorded on the same step lands on the call it made', () => {
    const c = chat([
      '{"step_id":3,"source":"agent","timestamp":"t","message":"reading","tool_calls":[{"tool_call_id":"read_1#abc","function_name":"read","arguments":{"file_path":"/a/b.rs"}}],"observation":{"results":[{"source_call_id":"read_1#abc","content":"fn main() {}"}]}}',
    ]);
    expect(c.turns).toHaveLength(1);
    expect(c.turns[0]!.tools[0]).toMatchObject({
      name: 'read',
      detail: '/a/b.rs',
      result: 'fn main() {}',
      failed: false,
    });
  });

  it('consecutive steps stay separate replies', () => {
    const c = chat([
      '{"step_id":1,"source":"agent","timestamp":"t1","message":"first"}',
      '{"step_id":2,"source":"agent","timestamp":"t2","message":"second"}',
    ]);
    expect(c.turns.map((t) => t.text)).toEqual(['first', 'second']);
  });

  it('a call the database marked failed is marked', () => {
    const c = chat(
      [
        '{"step_id":1,"source":"agent","timestamp":"t","tool_calls":[{"tool_call_id":"exec_1#abc","function_name":"exec","arguments":{"command":"cargo test"}}],"observation":{"results":[{"source_call_id":"exec_1#abc","content":"error: no such target"}]}}',
      ],
      { 'exec_1#abc': 'failed' },
    );
    expect(c.turns[0]!.tools[0]).toMatchObject({ failed: true, result: 'error: no such target' });
  });

  it('a call with no observation is still running', () => {
    const c = chat([
      '{"step_id":1,"source":"agent","timestamp":"t","tool_calls":[{"tool_call_id":"exec_1#abc","function_name":"exec","arguments":{"command":"sleep 60"}}]}',
    ]);
    expect(c.turns[0]!.tools[0]!.result).toBeNull();
  });

  it('an edit carries its diff from its own arguments', () => {
    const c = chat([
      '{"step_id":1,"source":"agent","timestamp":"t","tool_calls":[{"tool_call_id":"edit_1#abc","function_name":"edit","arguments":{"file_path":"/a/b.rs","old_string":"old\\nlines","new_string":"new\\nalso"}}],"observation":{"results":[{"source_call_id":"edit_1#abc","content":"updated"}]}}',
    ]);
    expect(c.turns[0]!.tools[0]).toMatchObject({
      added: 2,
      removed: 2,
      diff: ['-old', '-lines', '+new', '+also'],
    });
  });

  it('the prompt being assembled is not a turn; an event the harness injected mid-run is', () => {
    const c = chat([
      '{"step_id":1,"source":"system","timestamp":"t1","message":"You are Devin…","extra":{"telemetry":{"source":"sysprompt"}}}',
      '{"step_id":2,"source":"system","timestamp":"t2","message":"<rules>…</rules>","extra":{"telemetry":{"source":"rules"}}}',
      '{"step_id":3,"source":"system","timestamp":"t3","message":"<available_skills>…</available_skills>","extra":{"telemetry":{"source":"system"}}}',
      '{"step_id":4,"source":"system","timestamp":"t4","message":"You are powered by SWE-2 High.","extra":{"telemetry":{"source":"system"}}}',
      '{"step_id":5,"source":"system","timestamp":"t5","message":"<subagent_completion_notification>done</subagent_completion_notification>","extra":{"telemetry":{"source":"system"}}}',
    ]);
    expect(c.turns).toHaveLength(1);
    expect(c.turns[0]).toMatchObject({ role: 'system', text: 'done' });
  });

  it('a user action reads as the files touched', () => {
    const c = chat([
      JSON.stringify({
        step_id: 1,
        source: 'system',
        timestamp: 't1',
        message:
          "<additional_metadata>\nThe user took the following actions after the last message. ONLY talk about this if it is directly relevant to the user's next request.\n\n<user_actions>\nThe following changes were made by the USER to: /home/flo/src/a.rs.\n[diff_block_start]\n@@ -1 +1 @@\n-old\n+new\n[diff_block_end]\nPlease note that the above snippet only shows the MODIFIED lines.\nThe following changes were made by the USER to: /home/flo/src/b.rs.\n[diff_block_start]\n@@ -2 +2 @@\n-x\n+y\n[diff_block_end]\n</user_actions>\n</additional_metadata>",
        extra: { telemetry: { source: 'system' } },
      }),
    ]);
    expect(c.turns[0]!.text).toBe('the user edited /home/flo/src/a.rs, /home/flo/src/b.rs');
  });

  it('a transcript that is not an ATIF document is refused, not read as empty', () => {
    expect(() => atifSteps('not json')).toThrow();
  });
});
