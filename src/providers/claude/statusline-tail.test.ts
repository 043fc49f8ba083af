import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome, jsonl } from '../../test-support/corpus.js';
import { claudeCompactAt, claudeTail, FIRST_TAIL_BYTES, TAIL_BYTES } from './statusline-tail.js';

/** A main-thread response as Claude Code 2.1 writes it, trimmed to what the tail reads. */
const response = (model: string, usage: Record<string, number>, extra: Record<string, unknown> = {}) => ({
  type: 'assistant',
  sessionId: 's1',
  cwd: '/home/dev/app',
  version: '2.1.90',
  uuid: `u-${Math.random()}`,
  timestamp: '2026-11-29T10:00:00.000Z',
  requestId: `req-${Math.random()}`,
  message: {
    id: `msg-${Math.random()}`,
    role: 'assistant',
    model,
    content: [{ type: 'text', text: 'ok' }],
    usage,
  },
  ...extra,
});

const prompt = { type: 'user', sessionId: 's1', message: { role: 'user', content: 'go on' } };

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
});
afterEach(() => home.cleanup());

describe('the tail of a Claude Code transcript', () => {
  it('answers with the newest main-thread response: model and prompt size', () => {
    const path = home.write(
      home.claudeFile('-home-dev-app', 's1.jsonl'),
      jsonl(
        response('claude-sonnet-4-5-20250929', {
          input_tokens: 1,
          cache_read_input_tokens: 1000,
          output_tokens: 5,
        }),
        response('claude-opus-4-6', {
          input_tokens: 10,
          cache_creation_input_tokens: 500,
          cache_read_input_tokens: 80_000,
          output_tokens: 7,
        }),
        prompt,
      ),
    );
    expect(claudeTail(path, home.env, null)).toEqual({
      model: 'claude-opus-4-6',
      contextUsed: 80_510,
      compactAt: claudeCompactAt(home.env, 200_000),
      atMs: Date.parse('2026-11-29T10:00:00.000Z'),
    });
  });

  it("skips a subagent's responses and Claude Code's synthetic ones", () => {
    const path = home.write(
      home.claudeFile('-home-dev-app', 's1.jsonl'),
      jsonl(
        response('claude-opus-4-6', { input_tokens: 100, output_tokens: 1 }),
        response('claude-haiku-4-5', { input_tokens: 5, output_tokens: 1 }, { isSidechain: true }),
        response('<synthetic>', { input_tokens: 0, output_tokens: 0 }),
      ),
    );
    expect(claudeTail(path, home.env, null)).toMatchObject({ model: 'claude-opus-4-6', contextUsed: 100 });
  });

  it('reads only the last TAIL_BYTES, ignoring the line the cut falls inside', () => {
    const old = jsonl(response('claude-opus-4-6', { input_tokens: 100, output_tokens: 1 }));
    const filler = jsonl({ type: 'user', message: { role: 'user', content: 'x'.repeat(TAIL_BYTES) } });
    const path = home.write(home.claudeFile('-home-dev-app', 's1.jsonl'), old + filler);
    // The one response is before the tail, and the filler line is cut: nothing to answer with.
    expect(claudeTail(path, home.env, null)).toBeNull();
  });

  it('finds a response behind more than FIRST_TAIL_BYTES of newer lines, within TAIL_BYTES', () => {
    const answer = jsonl(response('claude-opus-4-6', { input_tokens: 100, output_tokens: 1 }));
    // A large tool result after the response, as a file read leaves it.
    const result = jsonl({
      type: 'user',
      message: { role: 'user', content: 'x'.repeat(FIRST_TAIL_BYTES * 2) },
    });
    const path = home.write(home.claudeFile('-home-dev-app', 's1.jsonl'), answer + result);
    expect(claudeTail(path, home.env, null)).toMatchObject({ model: 'claude-opus-4-6', contextUsed: 100 });
  });

  it('answers with the newest response when an older one lies beyond the first read', () => {
    const older = jsonl(response('claude-opus-4-6', { input_tokens: 100, output_tokens: 1 }));
    const gap = jsonl({ type: 'user', message: { role: 'user', content: 'x'.repeat(FIRST_TAIL_BYTES) } });
    const newer = jsonl(response('claude-sonnet-4-5', { input_tokens: 7, output_tokens: 1 }));
    const path = home.write(home.claudeFile('-home-dev-app', 's1.jsonl'), older + gap + newer);
    expect(claudeTail(path, home.env, null)).toMatchObject({ model: 'claude-sonnet-4-5', contextUsed: 7 });
  });

  it("takes the window the caller knows, and a project's 1M-token pin over it", () => {
    const path = home.write(
      home.claudeFile('-home-dev-app', 's1.jsonl'),
      jsonl(response('claude-opus-4-6', { input_tokens: 100, output_tokens: 1 })),
    );
    expect(claudeTail(path, home.env, 400_000)?.compactAt).toBe(claudeCompactAt(home.env, 400_000));
    // The provider looks each settings file up once per process: the pin goes in a home of its own.
    const pinned = new FakeHome();
    try {
      pinned.write(`${pinned.dir}/.claude/settings.json`, JSON.stringify({ model: 'opus[1m]' }));
      const there = pinned.write(
        pinned.claudeFile('-home-dev-app', 's1.jsonl'),
        jsonl(response('claude-opus-4-6', { input_tokens: 100 })),
      );
      expect(claudeTail(there, pinned.env, 200_000)?.compactAt).toBe(claudeCompactAt(pinned.env, 1_000_000));
    } finally {
      pinned.cleanup();
    }
  });

  it('compacts where the user says, with CLAUDE_AUTOCOMPACT_PCT_OVERRIDE', () => {
    expect(claudeCompactAt({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '50' }, 200_000)).toBe(100_000);
    expect(claudeCompactAt({}, null)).toBeNull();
  });

  it('answers null for a file that is not there or holds no response', () => {
    expect(claudeTail(`${home.dir}/none.jsonl`, home.env, null)).toBeNull();
    const path = home.write(home.claudeFile('-home-dev-app', 's1.jsonl'), 'not json\n{"usage": 1}\n');
    expect(claudeTail(path, home.env, null)).toBeNull();
  });
});
