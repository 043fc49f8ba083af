import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_TEXT_CHARS, MAX_TURNS, TurnSink } from '../../model/conversation.js';
import type { JsonObject } from '../../model/json.js';
import { corpus, HAVE_CORPUS, REPO } from '../../test-support/corpus.js';
import { corpusFiles, demoFiles, LAB_CASES, labFile, labFiles } from '../../test-support/lines.js';
import { claudeRecord } from './conversation.js';
import { isHarnessText } from './harness-text.js';
import { claude } from './index.js';

/** Records as Claude Code writes them, trimmed to what the reader looks at. */
function chat(lines: string[], before: number | null = null) {
  const sink = new TurnSink(before);
  for (const l of lines) claudeRecord(sink, JSON.parse(l) as JsonObject);
  return sink.finish();
}

describe('telling the harness from the person', () => {
  it('a block the harness injected is not something a person said', () => {
    expect(isHarnessText('<system-reminder>\nbe careful\n</system-reminder>')).toBe(true);
    expect(isHarnessText('<task-notification>\n<task-id>abc</task-id>')).toBe(true);
    expect(isHarnessText('<user-prompt-submit-hook>\nhook said this')).toBe(true);
    expect(isHarnessText('<command-name>/clear</command-name>')).toBe(true);
    expect(isHarnessText('Caveat: the messages below were generated')).toBe(true);
  });

  it('a person who pastes markup is still a person', () => {
    for (const t of [
      '<p>hello</p>',
      'why does <div> break here?',
      '<img src="x">',
      '</closing>',
      'fix the parser',
    ]) {
      expect(isHarnessText(t), t).toBe(false);
    }
  });
});

describe('a Claude Code conversation', () => {
  it('an exchange becomes a user turn and an assistant turn', () => {
    const c = chat([
      '{"type":"user","timestamp":"t1","message":{"role":"user","content":"fix the parser"}}',
      '{"type":"assistant","timestamp":"t2","message":{"role":"assistant","content":[{"type":"text","text":"on it"}]}}',
    ]);
    expect(c.supported).toBe(true);
    expect(c.turns.map((t) => [t.role, t.text])).toEqual([
      ['user', 'fix the parser'],
      ['assistant', 'on it'],
    ]);
  });

  it('a tool result lands on the call it answers, however far later it comes', () => {
    const c = chat([
      '{"type":"assistant","timestamp":"t1","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a/b.rs"}}]}}',
      '{"type":"assistant","timestamp":"t2","message":{"content":[{"type":"text","text":"meanwhile"}]}}',
      '{"type":"user","timestamp":"t3","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"fn main() {}"}]}}',
    ]);
    expect(c.turns).toHaveLength(1);
    expect(c.turns[0]!.text).toBe('meanwhile');
    expect(c.turns[0]!.tools[0]).toMatchObject({
      name: 'Read',
      detail: '/a/b.rs',
      result: 'fn main() {}',
      failed: false,
    });
  });

  it('a run of assistant records is one reply, and a user turn ends it', () => {
    const c = chat([
      '{"type":"user","timestamp":"t0","message":{"content":"go"}}',
      '{"type":"assistant","timestamp":"t1","message":{"content":[{"type":"text","text":"first"}]}}',
      '{"type":"assistant","timestamp":"t2","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a"}}]}}',
      '{"type":"assistant","timestamp":"t3","message":{"content":[{"type":"text","text":"second"}]}}',
      '{"type":"user","timestamp":"t4","message":{"content":"again"}}',
      '{"type":"assistant","timestamp":"t5","message":{"content":[{"type":"text","text":"a new reply"}]}}',
    ]);
    expect(c.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(c.turns[1]!.text).toBe('first\n\nsecond');
    expect(c.turns[1]!.tools).toHaveLength(1);
    expect(c.turns[3]!.text).toBe('a new reply');
  });

  it('a failed result is marked as one', () => {
    const c = chat([
      '{"type":"assistant","timestamp":"t1","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"cargo test"}}]}}',
      '{"type":"user","timestamp":"t2","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":"no such command"}]}}',
    ]);
    expect(c.turns[0]!.tools[0]!.failed).toBe(true);
  });

  it('a call still running has no result', () => {
    const c = chat([
      '{"type":"assistant","timestamp":"t1","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"sleep 60"}}]}}',
    ]);
    expect(c.turns[0]!.tools[0]!.result).toBeNull();
  });

  it("an edit's patch is carried with its tool call", () => {
    const c = chat([
      '{"type":"assistant","timestamp":"t1","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Edit","input":{"file_path":"/a/b.rs"}}]}}',
      '{"type":"user","timestamp":"t2","toolUseResult":{"structuredPatch":[{"lines":["-old","+new","+also"]}]},"message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}}',
    ]);
    expect(c.turns[0]!.tools[0]).toMatchObject({ added: 2, removed: 1, diff: ['-old', '+new', '+also'] });
  });

  it('sidechain turns are left out of the main thread', () => {
    const c = chat([
      '{"type":"user","timestamp":"t1","message":{"content":"the real ask"}}',
      '{"type":"user","timestamp":"t2","isSidechain":true,"message":{"content":"a subagent\'s brief"}}',
    ]);
    expect(c.turns.map((t) => t.text)).toEqual(['the real ask']);
  });

  it('a compaction summary is a seam, not a message', () => {
    const c = chat([
      '{"type":"user","timestamp":"t1","isCompactSummary":true,"message":{"content":"everything so far"}}',
    ]);
    expect(c.turns[0]).toMatchObject({ kind: 'compaction', role: 'system' });
  });

  it('a slash command expansion is attributed to the harness and reads as the command typed', () => {
    expect(
      chat(['{"type":"user","timestamp":"t1","message":{"content":"<command-name>/clear</command-name>"}}'])
        .turns[0]!.role,
    ).toBe('system');
    const c = chat([
      '{"type":"user","timestamp":"t1","message":{"content":"<command-name>/loop</command-name>\\n<command-message>loop</command-message>\\n<command-args>5m</command-args>\\n<local-command-stdout>started</local-command-stdout>"}}',
    ]);
    expect(c.turns[0]!.text).toBe('/loop 5m\n\nstarted');
  });

  it('a slash command written message-first (Claude Code 1.0.x) reads as the command typed', () => {
    // The shape the corpus's 1.0.x transcripts hold: `<command-message>` before `<command-name>`.
    const c = chat([
      '{"type":"user","timestamp":"t1","version":"1.0.51","message":{"role":"user","content":"<command-message>generate-feature is running\\u2026</command-message>\\n<command-name>/generate-feature</command-name>\\n<command-args>a login page</command-args>"}}',
    ]);
    expect(c.turns[0]).toMatchObject({ role: 'system', text: '/generate-feature a login page' });
  });

  it('a command that printed nothing is just the command', () => {
    const c = chat([
      '{"type":"user","timestamp":"t1","message":{"content":"<command-name>/clear</command-name>\\n<local-command-stdout></local-command-stdout>"}}',
    ]);
    expect(c.turns[0]!.text).toBe('/clear');
  });

  it('a reminder keeps its words and loses its tags; a turn of nothing but wrapper is no turn', () => {
    const c = chat([
      '{"type":"user","timestamp":"t1","message":{"content":"<system-reminder>\\nthe file changed on disk\\n</system-reminder>"}}',
      '{"type":"user","timestamp":"t2","message":{"content":"<local-command-stdout></local-command-stdout>"}}',
    ]);
    expect(c.turns.map((t) => t.text)).toEqual(['the file changed on disk']);
  });

  it('a one-line reminder survives the same way', () => {
    const c = chat([
      '{"type":"user","timestamp":"t1","message":{"content":"<system-reminder>read the file first</system-reminder>"}}',
    ]);
    expect(c.turns[0]!.text).toBe('read the file first');
  });

  it('a task notification reads as its summary', () => {
    const c = chat([
      '{"type":"user","timestamp":"t1","message":{"content":"<task-notification>\\n<task-id>bgbdzpbxb</task-id>\\n<tool-use-id>toolu_01EK11bfRvKo9QaZMQWsMBGf</tool-use-id>\\n<output-file>/tmp/tasks/bgbdzpbxb.output</output-file>\\n<status>completed</status>\\n<summary>Background command &quot;cargo build 2&gt;&amp;1 | tail -3&quot; completed (exit code 0)</summary>\\n</task-notification>"}}',
    ]);
    expect(c.turns).toHaveLength(1);
    expect(c.turns[0]).toMatchObject({
      role: 'system',
      text: 'Background command "cargo build 2>&1 | tail -3" completed (exit code 0)',
    });
  });

  it('a monitor event keeps the event it reports', () => {
    const c = chat([
      '{"type":"user","timestamp":"t1","message":{"content":"<task-notification>\\n<task-id>br7crykx8</task-id>\\n<summary>Monitor event: &quot;rebuild chain&quot;</summary>\\n<event>[Monitor expired after 30m with 11 events delivered.]</event>\\n</task-notification>"}}',
    ]);
    expect(c.turns[0]!.text).toBe(
      'Monitor event: "rebuild chain"\n[Monitor expired after 30m with 11 events delivered.]',
    );
  });

  it("a task notification keeps an agent's parting note", () => {
    const c = chat([
      '{"type":"user","timestamp":"t1","message":{"content":"<task-notification>\\n<task-id>ad13e524</task-id>\\n<status>completed</status>\\n<summary>Agent &quot;bench linkage&quot; finished</summary>\\n<result>the build query is running in the background</result>\\n<usage><subagent_tokens>83901</subagent_tokens></usage>\\n</task-notification>"}}',
    ]);
    expect(c.turns[0]!.text).toBe(
      'Agent "bench linkage" finished\nthe build query is running in the background',
    );
  });

  it('a notification with no news is no turn', () => {
    const c = chat([
      '{"type":"user","timestamp":"t1","message":{"content":"<task-notification>\\n<task-id>x</task-id>\\n<output-file>/tmp/x.output</output-file>\\n<status>completed</status>\\n</task-notification>"}}',
      '{"type":"user","timestamp":"t2","message":{"content":"a real message"}}',
    ]);
    expect(c.turns.map((t) => t.text)).toEqual(['a real message']);
  });

  it('only the newest turns survive and the rest are counted', () => {
    const c = chat(
      Array.from(
        { length: MAX_TURNS + 10 },
        (_, i) => `{"type":"user","timestamp":"t","message":{"content":"message ${i}"}}`,
      ),
    );
    expect(c.turns).toHaveLength(MAX_TURNS);
    expect(c.earlier).toBe(10);
    expect(c.turns[0]!.text).toBe('message 10');
  });

  it('a result for a dropped call is discarded, never put on a turn that did not make the call', () => {
    const lines = [
      '{"type":"assistant","timestamp":"t0","message":{"content":[{"type":"tool_use","id":"toolu_old","name":"Read","input":{"file_path":"/gone.rs"}}]}}',
    ];
    for (let i = 0; i < MAX_TURNS + 5; i++)
      lines.push(`{"type":"user","timestamp":"t","message":{"content":"filler ${i}"}}`);
    lines.push(
      '{"type":"user","timestamp":"tz","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_old","content":"late"}]}}',
    );
    expect(chat(lines).turns.every((t) => t.tools.every((tool) => tool.result === null))).toBe(true);
  });

  it('text past the cap is cut and says so', () => {
    const c = chat([
      `{"type":"user","timestamp":"t","message":{"content":"${'x'.repeat(MAX_TEXT_CHARS + 100)}"}}`,
    ]);
    expect(c.turns[0]!.clipped).toBe(true);
    expect(c.turns[0]!.text).toHaveLength(MAX_TEXT_CHARS);
  });

  it('thinking is its own turn ahead of the reply', () => {
    const c = chat([
      '{"type":"assistant","timestamp":"t1","message":{"content":[{"type":"thinking","thinking":"weighing it up"},{"type":"text","text":"here goes"}]}}',
    ]);
    expect(c.turns.map((t) => [t.kind, t.text])).toEqual([
      ['reasoning', 'weighing it up'],
      ['message', 'here goes'],
    ]);
  });

  it('records sharing a request id are one reply, thinking in every record notwithstanding', () => {
    const c = chat([
      '{"type":"user","timestamp":"t0","message":{"content":"go"}}',
      '{"type":"assistant","timestamp":"t1","requestId":"req_1","message":{"content":[{"type":"thinking","thinking":"weighing"},{"type":"text","text":"two at once"}]}}',
      '{"type":"assistant","timestamp":"t2","requestId":"req_1","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a"}}]}}',
      '{"type":"assistant","timestamp":"t3","requestId":"req_1","message":{"content":[{"type":"tool_use","id":"toolu_2","name":"Read","input":{"file_path":"/b"}}]}}',
    ]);
    expect(c.turns.map((t) => t.kind)).toEqual(['message', 'reasoning', 'message']);
    expect(c.turns[2]!.text).toBe('two at once');
    expect(c.turns[2]!.tools).toHaveLength(2);
  });

  it('a tool result ends the reply it came back to', () => {
    const c = chat([
      '{"type":"user","timestamp":"t0","message":{"content":"go"}}',
      '{"type":"assistant","timestamp":"t1","message":{"content":[{"type":"text","text":"looking"},{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a"}}]}}',
      '{"type":"user","timestamp":"t2","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"contents"}]}}',
      '{"type":"assistant","timestamp":"t3","message":{"content":[{"type":"text","text":"now I know"}]}}',
    ]);
    expect(c.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'assistant']);
    expect(c.turns[1]!.tools).toHaveLength(1);
    expect(c.turns[2]).toMatchObject({ text: 'now I know', tools: [] });
  });

  it('a result past the window boundary still lands on its call', () => {
    const c = chat(
      [
        '{"type":"assistant","timestamp":"t1","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a"}}]}}',
        '{"type":"user","timestamp":"t2","message":{"content":"next question"}}',
        '{"type":"user","timestamp":"t3","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"done"}]}}',
      ],
      1,
    );
    expect(c.turns).toHaveLength(1);
    expect(c.turns[0]!.seq).toBe(0);
    expect(c.turns[0]!.tools[0]!.result).toBe('done');
  });

  it('an MCP tool reads without its plumbing', () => {
    const c = chat([
      '{"type":"assistant","timestamp":"t1","message":{"content":[{"type":"tool_use","id":"t","name":"mcp__linear__list_issues","input":{"team":"core"}}]}}',
    ]);
    expect(c.turns[0]!.tools[0]!.name).toBe('linear: list issues');
  });
});

const DEMO = join(REPO, 'demo', 'home', '.claude', 'projects');

describe('Claude Code conversations recorded in the lab (2.1.328) and in the bundled demo', () => {
  const read = (path: string, before: number | null = null, agent: string | null = null) =>
    claude.conversation!(path, { before, agent });

  it('every recorded and every demo transcript reads, and every call of a finished lab run has its result', () => {
    const files = [
      ...labFiles('claude'),
      ...demoFiles('.claude'),
      // The corpus's top folder only: its subfolders hold single lines and subagents, not sessions.
      ...corpusFiles('claude-code/transcripts').filter(
        (f) => dirname(f) === corpus('claude-code', 'transcripts'),
      ),
    ].filter((f) => !f.includes('/subagents/'));
    expect(files.length).toBeGreaterThanOrEqual(LAB_CASES.length + 5);
    for (const file of files) {
      const c = read(file);
      expect(c.supported, file).toBe(true);
      expect(c.turns.length, file).toBeGreaterThan(0);
    }
    for (const file of labFiles('claude')) {
      const calls = read(file).turns.flatMap((t) => t.tools);
      expect(calls.length, file).toBeLessThanOrEqual(2);
      expect(calls.filter((t) => t.result === null).length, file).toBe(0);
    }
  });

  // The lab's `call` script: the prompt, a reply calling Bash `echo lab-call-ok` (which printed
  // lab-call-ok), then a reply in words once the result came back.
  it('a prompt, a call with its result, and the answer after it', () => {
    const c = read(labFile('claude', 'call'));
    expect(c.earlier).toBe(0);
    expect(c.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'assistant']);
    expect(c.turns[0]!.text).toBe('[lab:call] Follow the lab script call.');
    const calls = c.turns.flatMap((t) => t.tools);
    expect(calls.map((t) => [t.name, t.failed])).toEqual([['Bash', false]]);
    expect(calls[0]!.result).toContain('lab-call-ok');
    expect(c.turns.at(-1)!.text).toBe('The command printed lab-call-ok.');
  });

  it('a command that exits non-zero is a failed call', () => {
    const calls = read(labFile('claude', 'fail')).turns.flatMap((t) => t.tools);
    expect(calls.map((t) => [t.name, t.failed])).toEqual([['Bash', true]]);
  });

  it('lines added and removed are kept on each edit (the demo: three edits of +2 −1)', () => {
    const c = read(join(DEMO, '-home-sam-src-docs', 'f98c2860-e7f8-42c8-aee1-25d2bb382356.jsonl'));
    const edits = c.turns.flatMap((t) => t.tools).filter((t) => t.name === 'Edit');
    expect(edits.map((t) => [t.added, t.removed])).toEqual([
      [2, 1],
      [2, 1],
      [2, 1],
    ]);
  });

  it('a permission prompt the user interrupted: the refused call failed and the interruption is the user turn', () => {
    // As Claude Code 2.0 wrote it when the user pressed Esc at a permission prompt.
    const c = chat([
      '{"type":"user","timestamp":"t0","message":{"role":"user","content":"write notes.txt"}}',
      '{"type":"assistant","timestamp":"t1","message":{"content":[{"type":"tool_use","id":"tw","name":"Write","input":{"file_path":"/w/notes.txt"}}]}}',
      '{"type":"user","timestamp":"t2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tw","content":"Permission prompt was aborted.","is_error":true}]}}',
      '{"type":"user","timestamp":"t3","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}',
    ]);
    const tool = c.turns.flatMap((t) => t.tools)[0]!;
    expect(tool.failed).toBe(true);
    expect(c.turns.at(-1)).toMatchObject({
      role: 'user',
      text: '[Request interrupted by user for tool use]',
    });
  });

  it('paging back with before=SEQ returns the window that ends just before that turn', () => {
    const file = join(DEMO, '-home-sam-src-billing', 'a0d12928-daca-4076-a4ae-776fe074bc1e.jsonl');
    const all = read(file);
    expect(all.turns.length).toBeGreaterThan(2);
    const middle = all.turns[Math.floor(all.turns.length / 2)]!.seq;
    const page = read(file, middle);
    expect(page.turns.length).toBeGreaterThan(0);
    expect(page.turns.at(-1)!.seq).toBeLessThan(middle);
    expect(page.turns.every((t) => t.seq < middle)).toBe(true);
  });

  it("a subagent's own conversation is read by its agent id", () => {
    const parent = join(DEMO, '-home-sam-src-billing', 'a0d12928-daca-4076-a4ae-776fe074bc1e.jsonl');
    const c = read(parent, null, 'a3a6448476ea5ca32');
    expect(c.supported).toBe(true);
    expect(c.turns.length).toBeGreaterThan(0);
    expect(read(parent, null, 'nope').supported).toBe(false);
    expect(read(parent, null, '../../etc').supported).toBe(false);
  });
});

if (HAVE_CORPUS) {
  // Extra cases over `../shared/corpus`, registered only where it is present.
  describe('Claude Code 2.0 conversations from ../shared/corpus', () => {
    const read = (file: string) =>
      claude.conversation!(corpus('claude-code', 'transcripts', file), { before: null, agent: null });

    // Claude Code 2.0.27, 89 lines, worked out by reading the file: it opens with the /clear caveat and
    // command, then one user request that the agent answers in 27 tool calls over many replies.
    it('agentcmd full-session-four: the harness preamble, the request, and replies split at every result', () => {
      const c = read('agentcmd__full-session-four.jsonl');
      expect(c.earlier).toBe(0);
      expect(c.turns).toHaveLength(35);
      const system = c.turns.filter((t) => t.role === 'system');
      expect(system.map((t) => t.text.slice(0, 7))).toEqual(['Caveat:', '/clear']);
      const users = c.turns.filter((t) => t.role === 'user');
      expect(users).toHaveLength(3);
      const calls = c.turns.flatMap((t) => t.tools);
      expect(calls).toHaveLength(27);
      expect(calls.filter((t) => t.failed)).toHaveLength(1);
      expect(calls.filter((t) => t.result === null)).toHaveLength(0);
      const edits = calls.filter((t) => t.name === 'Edit');
      expect(edits.reduce((n, t) => n + t.added, 0)).toBe(39);
      expect(edits.reduce((n, t) => n + t.removed, 0)).toBe(15);
    });
  });
}
