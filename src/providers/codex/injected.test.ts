/**
 * Who said it in a Codex rollout: the person, or what Codex put in a user message (the environment,
 * a project's AGENTS.md, a subagent's prompt). The `provenance` case is the lab's recording of Codex
 * 0.169.0 (`lab/fixtures/codex/text`); the others are trimmed to the fields the reader looks at, in
 * the shapes 0.1xx writes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TurnSink } from '../../model/conversation.js';
import type { JsonObject } from '../../model/json.js';
import { REPO } from '../../test-support/corpus.js';
import { CodexConversation } from './conversation.js';

function chat(records: object[]) {
  const sink = new TurnSink(null);
  const c = new CodexConversation(sink);
  for (const r of records) c.record(r as JsonObject);
  return sink.finish().turns.map((t) => [t.role, t.text.split('\n')[0]]);
}

const userMessage = (text: string, passthrough?: object) => ({
  timestamp: '2026-12-01T21:24:04.876Z',
  type: 'response_item',
  payload: {
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text }],
    ...(passthrough ? { internal_chat_message_metadata_passthrough: passthrough } : {}),
  },
});

const AGENTS_MD =
  '# AGENTS.md instructions for /home/sam/src/httpc\n\n<INSTRUCTIONS>\nRun `cargo test` before you say it is done.\n</INSTRUCTIONS>';

describe('text Codex put in a user message', () => {
  it("a project's AGENTS.md block is the harness, not #0 you", () => {
    expect(chat([userMessage(AGENTS_MD), userMessage('retry on 503')])).toEqual([
      ['system', '# AGENTS.md instructions for /home/sam/src/httpc'],
      ['user', 'retry on 503'],
    ]);
  });

  it('the recorded 0.169 run: its environment and skills are the harness, the one prompt is the person', () => {
    const dir = join(
      REPO,
      'lab',
      'fixtures',
      'codex',
      'text',
      'home',
      '.codex',
      'sessions',
      '2026',
      '12',
      '01',
    );
    const file = join(dir, readdirSync(dir).find((n) => n.endsWith('.jsonl'))!);
    const records = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as object);
    const turns = chat(records);
    expect(turns.filter(([role]) => role === 'user')).toEqual([
      ['user', '[lab:text] Follow the lab script text.'],
    ]);
  });

  it("a message's provenance decides over its text", () => {
    const harness = { content_item_metadata: [{ provenance: { type: 'harness', hook: false } }] };
    const person = { content_item_metadata: [{ provenance: { type: 'user' } }] };
    expect(chat([userMessage('Keep going.', harness), userMessage('<b>\nwhy bold?', person)])).toEqual([
      ['system', 'Keep going.'],
      ['user', '<b>'],
    ]);
  });

  it("a spawned subagent's prompt is its parent's, not the person's", () => {
    const meta = {
      timestamp: '2026-12-01T21:24:04.000Z',
      type: 'session_meta',
      payload: {
        id: 'child',
        cwd: '/w',
        source: { subagent: { thread_spawn: { parent_thread_id: 'parent' } } },
      },
    };
    expect(chat([meta, userMessage('List the failing tests.')])).toEqual([
      ['system', 'List the failing tests.'],
    ]);
  });
});
