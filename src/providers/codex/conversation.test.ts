import { describe, expect, it } from 'vitest';
import { TurnSink } from '../../model/conversation.js';
import type { JsonObject } from '../../model/json.js';
import { corpus, HAVE_CORPUS } from '../../test-support/corpus.js';
import { corpusFiles, demoFiles, LAB_CASES, labFile, labFiles } from '../../test-support/lines.js';
import { CodexConversation } from './conversation.js';
import { codex } from './index.js';

function chat(lines: string[]) {
  const sink = new TurnSink();
  const reader = new CodexConversation(sink);
  for (const l of lines) reader.record(JSON.parse(l) as JsonObject);
  return sink.finish();
}

describe('a Codex conversation', () => {
  it('an exchange reads the same way as Claude', () => {
    const c = chat([
      '{"type":"response_item","timestamp":"t1","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"ship it"}]}}',
      '{"type":"response_item","timestamp":"t2","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"shipping"}]}}',
    ]);
    expect(c.turns.map((t) => [t.role, t.text])).toEqual([
      ['user', 'ship it'],
      ['assistant', 'shipping'],
    ]);
  });

  it('a call attaches to the assistant turn in progress and its output lands on it', () => {
    const c = chat([
      '{"type":"response_item","timestamp":"t1","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"looking"}]}}',
      '{"type":"response_item","timestamp":"t2","payload":{"type":"function_call","call_id":"c1","name":"shell","arguments":"{\\"command\\":\\"ls\\"}"}}',
      '{"type":"response_item","timestamp":"t3","payload":{"type":"function_call_output","call_id":"c1","output":"a.rs\\nb.rs"}}',
    ]);
    expect(c.turns).toHaveLength(1);
    expect(c.turns[0]!.tools).toHaveLength(1);
    expect(c.turns[0]!.tools[0]).toMatchObject({ detail: 'ls', result: 'a.rs\nb.rs' });
  });

  it('a repeated call id is one call', () => {
    const entry =
      '{"type":"response_item","timestamp":"t","payload":{"type":"function_call","call_id":"c1","name":"shell","arguments":"{\\"command\\":\\"ls\\"}"}}';
    expect(chat([entry, entry]).turns[0]!.tools).toHaveLength(1);
  });

  it('an apply_patch carries its diff and names its file', () => {
    const c = chat([
      '{"type":"response_item","timestamp":"t","payload":{"type":"custom_tool_call","call_id":"c1","name":"apply_patch","input":"*** Begin Patch\\n*** Update File: src/a.rs\\n-old\\n+new\\n*** End Patch"}}',
    ]);
    const tool = c.turns[0]!.tools[0]!;
    expect(tool).toMatchObject({ detail: 'src/a.rs', added: 1, removed: 1 });
    expect(tool.diff).toContain('+new');
  });

  it('the environment block Codex puts in a user message is the harness speaking', () => {
    const c = chat([
      '{"type":"response_item","timestamp":"t","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\\n  <cwd>/w</cwd>\\n</environment_context>"}]}}',
    ]);
    expect(c.turns[0]!.role).toBe('system');
  });

  it('an old output envelope shows its output, and its exit code decides the failure', () => {
    const c = chat([
      '{"type":"response_item","timestamp":"t1","payload":{"type":"function_call","call_id":"c1","name":"shell","arguments":"{\\"command\\":[\\"bash\\",\\"-lc\\",\\"cargo test\\"]}"}}',
      '{"type":"response_item","timestamp":"t2","payload":{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"error[E0308]\\",\\"metadata\\":{\\"exit_code\\":101}}"}}',
    ]);
    expect(c.turns[0]!.tools[0]).toMatchObject({
      detail: 'cargo test',
      result: 'error[E0308]',
      failed: true,
    });
  });
});

describe('Codex conversations recorded in the lab (0.169.0) and in the bundled demo', () => {
  const read = (path: string) => codex.conversation!(path, { before: null, agent: null });

  // The lab's `call` script: the harness's instructions and environment, the prompt, a shell call
  // `echo lab-call-ok` that printed lab-call-ok, then the answer.
  it('the harness preamble, the request, the call with its output, and the answer', () => {
    const c = read(labFile('codex', 'call'));
    expect(c.turns[0]!.role).toBe('system');
    const users = c.turns.filter((t) => t.role === 'user');
    expect(users.map((t) => t.text)).toEqual(['[lab:call] Follow the lab script call.']);
    const calls = c.turns.flatMap((t) => t.tools);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.failed).toBe(false);
    expect(calls[0]!.result).toContain('lab-call-ok');
    expect(c.turns.at(-1)).toMatchObject({ role: 'assistant', text: 'The command printed lab-call-ok.' });
  });

  it('a command that exits non-zero is a failed call', () => {
    const calls = read(labFile('codex', 'fail')).turns.flatMap((t) => t.tools);
    expect(calls.map((t) => t.failed)).toEqual([true]);
  });

  it('the reasoning summaries Codex kept are turns of their own (the demo)', () => {
    for (const file of demoFiles('.codex')) {
      expect(
        read(file).turns.some((t) => t.kind === 'reasoning'),
        file,
      ).toBe(true);
    }
  });

  it('every recorded and every demo rollout reads', () => {
    const files = [...labFiles('codex'), ...demoFiles('.codex'), ...corpusFiles('codex/rollouts')];
    expect(files.length).toBeGreaterThanOrEqual(LAB_CASES.length + 3);
    for (const file of files) expect(read(file).supported, file).toBe(true);
  });
});

if (HAVE_CORPUS) {
  // An extra case over `../shared/corpus`, registered only where it is present.
  describe('a Codex 0.40 conversation from ../shared/corpus', () => {
    // codex-cli 0.40, read by hand: the environment block, the IDE-context request, then 16 shell and
    // plan calls of which three failed (a bash syntax error and two `sed` runs on a missing file).
    it('rollout 01997ea4: the request, 16 calls, three failed, each with its output', () => {
      const c = codex.conversation!(
        corpus(
          'codex',
          'rollouts',
          'agentcmd__rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl',
        ),
        { before: null, agent: null },
      );
      expect(c.turns[0]!.role).toBe('system');
      const calls = c.turns.flatMap((t) => t.tools);
      expect(calls).toHaveLength(16);
      expect(calls.filter((t) => t.failed)).toHaveLength(3);
      expect(calls.every((t) => t.result !== null)).toBe(true);
      expect(c.turns.some((t) => t.kind === 'reasoning')).toBe(true);
    });
  });
}
