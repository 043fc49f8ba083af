import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome } from '../../test-support/corpus.js';
import { readCold } from '../../test-support/snapshot.js';
import { codebuff } from './index.js';
import { chatIdMs, usageOf } from './record.js';

const snap = (home: FakeHome) =>
  readCold(home.env, { providers: ['codebuff'], nowMs: Date.parse('2026-02-01T12:00:00Z') });

const chat = (home: FakeHome, project: string, id: string, messages: unknown[], channel = 'manicode') =>
  home.write(
    join(home.dir, '.config', channel, 'projects', project, 'chats', id, 'chat-messages.json'),
    JSON.stringify(messages),
  );

describe('Codebuff chats', () => {
  let home: FakeHome;
  beforeEach(() => {
    home = new FakeHome();
  });
  afterEach(() => home.cleanup());

  it("usage in OpenAI's words: the cached part of the prompt is a cache read, not input as well", () => {
    expect(
      usageOf({
        prompt_tokens: 1200,
        completion_tokens: 300,
        prompt_tokens_details: { cached_tokens: 1000 },
      }),
    ).toEqual({ input: 200, output: 300, cacheWrite: 0, cacheRead: 1000, unnamed: 0 });
    expect(usageOf({ inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 40, totalTokens: 60 })).toEqual({
      input: 10,
      output: 5,
      cacheWrite: 0,
      cacheRead: 40,
      unnamed: 5,
    });
    expect(usageOf({ totalTokens: 789 })).toMatchObject({ output: 789 });
  });

  it('a chat id is the time the chat began', () => {
    expect(chatIdMs('2026-01-02T03-04-05.000Z')).toBe(Date.parse('2026-01-02T03:04:05.000Z'));
    expect(chatIdMs('not-a-time')).toBeNull();
  });

  it('each response with usage is a request; a response without a time is dated by its chat', async () => {
    chat(home, 'web', '2026-01-06T14-30-00.000Z', [
      { variant: 'user', content: 'why so large?' },
      {
        variant: 'ai',
        content: 'lodash',
        metadata: { model: 'claude-haiku-4-5', usage: { inputTokens: 50, outputTokens: 7 } },
      },
      { variant: 'ai', content: 'no usage here' },
    ]);
    const s = (await snap(home)).document.sessions[0]!;
    expect([s.id, s.title, s.requests, s.lastActiveAt]).toEqual([
      'manicode/web/2026-01-06T14-30-00.000Z',
      'why so large?',
      1,
      '2026-01-06T14:30:00.000Z',
    ]);
    expect(s.tokens).toEqual({ input: 50, output: 7, cacheRead: 0, cacheWrite: 0, reasoning: null });
    // Codebuff's chat names no calls cctop can read: failures are unknown, not zero.
    expect(s.tools.failed).toBeNull();
  });

  it("a response whose metadata has no usage takes the run state's newest", async () => {
    chat(home, 'api', '2026-01-08T16-00-00.000Z', [
      {
        variant: 'agent',
        timestamp: '2026-01-08T16:00:30Z',
        metadata: {
          runState: {
            sessionState: {
              mainAgentState: {
                messageHistory: [
                  {
                    role: 'assistant',
                    providerOptions: { codebuff: { usage: { inputTokens: 99, outputTokens: 1 } } },
                  },
                  {
                    role: 'assistant',
                    providerOptions: { codebuff: { model: 'gpt-5', usage: { inputTokens: 400 } } },
                  },
                ],
              },
            },
          },
        },
      },
    ]);
    const s = (await snap(home)).document.sessions[0]!;
    expect([s.models, s.tokens.input, s.tokens.output]).toEqual([['gpt-5'], 400, 1]);
  });

  it("the conversation: the person's messages and the responses' text", () => {
    const path = chat(home, 'p', '2026-01-06T14-30-00.000Z', [
      { variant: 'user', content: 'hello', timestamp: '2026-01-06T14:30:01.000Z' },
      { variant: 'ai', content: 'hi there' },
    ]);
    const c = codebuff.conversation!(path, { before: null, agent: null });
    expect(c.turns.map((t) => [t.role, t.text, t.ts])).toEqual([
      ['user', 'hello', '2026-01-06T14:30:01.000Z'],
      ['assistant', 'hi there', ''],
    ]);
  });
});
