/**
 * Who said it: the person, or text Claude Code put in a user row. Records are trimmed to what the
 * reader looks at, in the shapes Claude Code writes them: 2.1.328 for a slash command and its
 * expansion (the lab's recorded version), 2.1.332 for `rowSource`.
 */
import { describe, expect, it } from 'vitest';
import { TurnSink } from '../../model/conversation.js';
import type { JsonObject } from '../../model/json.js';
import { claudeRecord } from './conversation.js';

function chat(records: object[], sidechain = false) {
  const sink = new TurnSink(null);
  for (const r of records) claudeRecord(sink, r as JsonObject, sidechain);
  return sink.finish().turns.map((t) => [t.role, t.text]);
}

const user = (content: unknown, extra: object = {}) => ({
  type: 'user',
  timestamp: '2026-12-07T05:00:00.000Z',
  message: { role: 'user', content },
  ...extra,
});

/** What Claude Code writes for a typed `/orchestrator build the login page`: the command, then its prompt. */
const TYPED = user(
  '<command-message>orchestrator</command-message>\n<command-name>/orchestrator</command-name>\n<command-args>build the login page</command-args>',
);
const EXPANSION = user(
  [
    {
      type: 'text',
      text: '# Orchestrator\n\nPlan the work, then hand it out.\n\nARGUMENTS: build the login page',
    },
  ],
  {
    isMeta: true,
  },
);

describe('a slash command and its expansion', () => {
  it('the typed /orchestrator is the person; its isMeta expansion is the harness', () => {
    expect(chat([TYPED, EXPANSION])).toEqual([
      ['user', '/orchestrator build the login page'],
      ['system', '# Orchestrator\n\nPlan the work, then hand it out.\n\nARGUMENTS: build the login page'],
    ]);
  });
});

describe("rowSource (Claude Code 2.1.332) is the row's own word", () => {
  it('harness and hook rows are not the person, however plain their text', () => {
    expect(chat([user('Continue from where you left off.', { rowSource: 'harness' })])).toEqual([
      ['system', 'Continue from where you left off.'],
    ]);
    expect(chat([user('lint passed', { rowSource: 'hook' })])).toEqual([['system', 'lint passed']]);
  });

  it('a local row is the person, even when it opens like a tag block', () => {
    expect(chat([user('<b>\nwhy is this bold?', { rowSource: 'local' })])).toEqual([
      ['user', '<b>\nwhy is this bold?'],
    ]);
  });

  it('a recorded row, or a row without rowSource, is read by the text rules', () => {
    expect(
      chat([user('<system-reminder>\nthe file changed\n</system-reminder>', { rowSource: 'recorded' })]),
    ).toEqual([['system', 'the file changed']]);
    expect(chat([user('fix the build', { rowSource: 'recorded' })])).toEqual([['user', 'fix the build']]);
  });
});

describe("a subagent's own transcript", () => {
  it('the prompt its parent gave it is not the person', () => {
    const prompt = user('Find every caller of parseInvoice and list them.', {
      isSidechain: true,
      agentId: 'a3a64484',
    });
    expect(chat([prompt], true)).toEqual([['system', 'Find every caller of parseInvoice and list them.']]);
  });
});
