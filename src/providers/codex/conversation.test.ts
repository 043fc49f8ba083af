import { describe, expect, it } from 'vitest';
import { TurnSink } from '../../model/conversation.js';
import type { JsonObject } from '../../model/json.js';
import { corpus, HAVE_CORPUS, NO_CORPUS_REASON } from '../../test-support/corpus.js';
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

describe.skipIf(!HAVE_CORPUS)(
  `real Codex conversations${HAVE_CORPUS ? '' : ` (${NO_CORPUS_REASON})`}`,
  () => {
    // codex-cli 0.40, read by hand: the environment block, the IDE-context request, then 16 shell and
    // plan calls of which three failed (a bash syntax error and two `sed` runs on a missing file).
    it('rollout 01997ea4: the request, 16 calls, three failed, each with its output', () => {
      const c = codex.conversation!(
        corpus(
          'codex',
          'rollouts',
          'agentcmd__rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl',
        ),
        {
          before: null,
          agent: null,
        },
      );
      expect(c.turns[0]!.role).toBe('system');
      const users = c.turns.filter((t) => t.role === 'user');
      expect(users[0]!.text).toContain('When I load the dashboard, I see 4 queries');
      const calls = c.turns.flatMap((t) => t.tools);
      expect(calls).toHaveLength(16);
      expect(calls.filter((t) => t.failed)).toHaveLength(3);
      expect(calls.every((t) => t.result !== null)).toBe(true);
      expect(c.turns.some((t) => t.kind === 'reasoning')).toBe(true);
    });

    it('every real rollout reads', async () => {
      const { readdirSync } = await import('node:fs');
      for (const name of readdirSync(corpus('codex', 'rollouts')).filter((n) => n.endsWith('.jsonl'))) {
        const c = codex.conversation!(corpus('codex', 'rollouts', name), { before: null, agent: null });
        expect(c.supported, name).toBe(true);
      }
    });
  },
);
