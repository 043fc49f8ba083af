/**
 * Reading `codex exec --json`. Lines are from codex-cli 0.145.0 as captured by the reference driver or
 * codex-cli 0.169.0 runs recorded in the conformance lab, as each test says; whole real 0.46.0 captures
 * from the shared corpus are read too where `../shared/corpus` is present.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FIRST_RUN,
  ROLLOUT_BEFORE_THIRD_RUN,
  SECOND_RUN,
  THIRD_RUN,
  THREAD,
  writeRollout,
} from '../../test-support/codex-thread.js';
import { corpus, HAVE_CORPUS, tempDir } from '../../test-support/corpus.js';
import type { Plan, SessionPlan } from '../request.js';
import { ofKind, parseLines } from '../test-support/fake-agent.js';
import { codex, codexDialect, unwrapErrorBody } from './codex.js';

const read = (...lines: string[]) => parseLines(codexDialect, lines);

const PLAN: Plan = {
  agent: 'codex',
  prompt: 'say pong',
  system: null,
  model: null,
  effort: null,
  permission: 'read-only',
  format: 'stream',
  cwd: '/w',
  addDirs: [],
  schema: null,
  session: { kind: 'new' },
  approvals: false,
  interactive: false,
  thinking: null,
};

/** The outcome's view of a new thread: its running total is all this run's. */
const settledNew = (...lines: string[]) => codex.settle(read(...lines).terminal, PLAN, { kind: 'fresh' });

describe('a turn', () => {
  it('reads the thread id and the completed message', () => {
    const { events, terminal } = read(
      '{"type":"thread.started","thread_id":"0199-xyz"}',
      '{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"pong"}}',
      '{"type":"turn.completed","usage":{"input_tokens":12,"output_tokens":3,"cached_input_tokens":9}}',
    );
    expect(events[0]).toEqual({ kind: 'started', session: '0199-xyz', model: null });
    expect(terminal.session).toBe('0199-xyz');
    expect(terminal.text).toBe('pong');
    const { usage } = codex.settle(terminal, PLAN, { kind: 'fresh' });
    // Codex's input_tokens is the whole prompt with the cached part inside: 12 - 9 is 3 uncached,
    // so `input` means what it means for Claude.
    expect(usage.input).toBe(3);
    expect(usage.cacheRead).toBe(9);
    expect(usage.output).toBe(3);
  });

  it('leaves the context unknown, because turn.completed sums every request of the turn', () => {
    // Departure from the reference driver, which reported input_tokens as the context. In this real
    // 0.46.0 capture the turn ran one command, so two requests: 6040 counts the conversation twice.
    const { terminal, events } = read(
      '{"type":"thread.started","thread_id":"019a2d7a-6455-7170-a661-c6d8b94c630a"}',
      '{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","status":"in_progress"}}',
      '{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"a\\n","exit_code":0,"status":"completed"}}',
      '{"type":"turn.completed","usage":{"input_tokens":6040,"cached_input_tokens":4992,"output_tokens":129}}',
    );
    const { usage } = codex.settle(terminal, PLAN, { kind: 'fresh' });
    expect(usage.contextTokens).toBeNull();
    expect(usage.input).toBe(6040 - 4992);
    expect(ofKind(events, 'usage'), 'Codex reports nothing mid-turn').toEqual([]);
  });

  it('the last completed message is the answer', () => {
    const { terminal } = read(
      '{"type":"item.completed","item":{"id":"i0","type":"agent_message","text":"I\'ll list the directory."}}',
      '{"type":"item.completed","item":{"id":"i2","type":"agent_message","text":"DONE"}}',
    );
    expect(terminal.text).toBe('DONE');
  });

  it('reasoning becomes thinking once it completes', () => {
    const { events } = read(
      '{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Providing simple answer**"}}',
    );
    expect(events).toEqual([{ kind: 'thinking', text: '**Providing simple answer**' }]);
  });
});

describe('tools', () => {
  it('a command execution becomes a call and a result', () => {
    const { events } = read(
      '{"type":"item.completed","item":{"id":"c1","type":"command_execution","command":"ls","exit_code":0,"aggregated_output":"a.txt"}}',
    );
    expect(events[0]).toMatchObject({ kind: 'tool_call', name: 'exec_command', input: { command: 'ls' } });
    expect(events[1]).toEqual({ kind: 'tool_result', id: 'c1', ok: true, output: 'a.txt' });
  });

  it('started then completed yields one call and one result', () => {
    // Both lines verbatim from a codex 0.145.0 transcript.
    const { events, parser } = read(
      '{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"/bin/zsh -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}',
      '{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/zsh -lc ls","aggregated_output":"a.txt\\n","exit_code":0,"status":"completed"}}',
    );
    expect(ofKind(events, 'tool_call'), 'the same item must not be announced twice').toHaveLength(1);
    expect(
      ofKind(events, 'tool_result').map((e) => e.output),
      'the in-progress blank must not appear',
    ).toEqual(['a.txt\n']);
    expect(parser.pendingTools.size, 'the finished item is no longer tracked').toBe(0);
  });

  it('a file change stands in for its own arguments', () => {
    const { events } = read(
      '{"type":"item.completed","item":{"id":"item_1","type":"file_change","changes":[{"path":"/private/tmp/codex-research-test/hello.txt","kind":"add"}],"status":"completed"}}',
    );
    expect(events[0]).toMatchObject({ kind: 'tool_call', name: 'file_change' });
    expect(events[1]).toMatchObject({ kind: 'tool_result', id: 'item_1', ok: null });
  });
});

describe('a failed turn', () => {
  it('yields the reason and the status', () => {
    // codex-cli 0.145.0 with an unknown model: it exits 0 and forwards the upstream body as a
    // JSON string, so the status is nested inside a field that is itself text.
    const { terminal } = read(
      '{"type":"thread.started","thread_id":"019fad62"}',
      '{"type":"turn.failed","error":{"message":"{\\"type\\":\\"error\\",\\"status\\":400,\\"error\\":{\\"type\\":\\"invalid_request_error\\",\\"message\\":\\"The \'bogus-model-xyz\' model is not supported when using Codex with a ChatGPT account.\\"}}"}}',
    );
    expect(terminal.stop).toEqual({ kind: 'error' });
    expect(terminal.errorStatus).toBe(400);
    expect(terminal.errorMessage, 'the sentence, not the envelope').toBe(
      "The 'bogus-model-xyz' model is not supported when using Codex with a ChatGPT account.",
    );
  });

  it('a plain failure message passes through', () => {
    const { terminal } = read(
      '{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}',
    );
    expect(terminal.errorStatus).toBeNull();
    expect(terminal.errorMessage).toBe('stream disconnected before completion');
    expect(unwrapErrorBody('[1,2]')).toEqual({ status: null, message: '[1,2]' });
  });
});

describe('one thread run three times (codex-cli 0.169.0, conformance lab)', () => {
  let home: { dir: string; cleanup: () => void };
  beforeEach(() => {
    home = tempDir('cctop-codex-home-');
  });
  afterEach(() => home.cleanup());
  const resumed = (): Plan => ({
    ...PLAN,
    session: { kind: 'resume', id: THREAD, fork: false } as SessionPlan,
  });

  it("a resumed run's usage is its share of the thread's running total, which is reported apart", () => {
    writeRollout(home.dir, ROLLOUT_BEFORE_THIRD_RUN);
    const plan = resumed();
    const baseline = codex.baseline(plan, { CODEX_HOME: home.dir });
    const t = codex.settle(read(...THIRD_RUN).terminal, plan, baseline);
    // What the lab's ledger says the run's one model call used.
    expect(t.usage).toMatchObject({
      input: 5125,
      cacheRead: 5125,
      output: 23,
      reasoning: 8,
      cacheWrite: null,
    });
    expect(t.threadUsage).toEqual({
      input: 25170,
      cacheRead: 25168,
      output: 95,
      reasoning: 30,
      cacheWrite: null,
    });
  });

  it("without the thread's earlier total, a resumed run's usage is unknown, not the thread's", () => {
    const plan = resumed();
    const t = codex.settle(read(...THIRD_RUN).terminal, plan, codex.baseline(plan, { CODEX_HOME: home.dir }));
    expect(t.usage).toMatchObject({ input: null, cacheRead: null, output: null, reasoning: null });
    expect(t.threadUsage?.input, 'the thread total is still reported').toBe(25170);
  });

  it('reports no cache writes as unknown, not the 0 Codex prints', () => {
    const { usage, threadUsage } = settledNew(...FIRST_RUN);
    expect(usage).toMatchObject({ input: 19857 - 9928, cacheRead: 9928, output: 32, reasoning: 9 });
    expect(usage.cacheWrite).toBeNull();
    expect(threadUsage?.cacheWrite).toBeNull();
  });

  it('names the shell tool exec_command, as the session document does, and exit 3 failed', () => {
    const { events } = read(...SECOND_RUN);
    expect(ofKind(events, 'tool_call')).toEqual([
      {
        kind: 'tool_call',
        id: 'item_1',
        name: 'exec_command',
        input: { command: "/bin/bash -lc 'echo lab-fail-out; exit 3'" },
      },
    ]);
    expect(ofKind(events, 'tool_result')).toEqual([
      { kind: 'tool_result', id: 'item_1', ok: false, output: 'lab-fail-out\n' },
    ]);
  });
});

/** What every whole `codex exec --json` run must read as: each line understood, a start, no context. */
function wholeRun(lines: readonly string[], finished: boolean) {
  const { events, terminal, parser } = read(...lines);
  expect(terminal.unparsed).toBe(0);
  expect(parser.sawStructured).toBe(true);
  expect(events[0]?.kind).toBe('started');
  expect(terminal.usage.contextTokens).toBeNull();
  if (finished) {
    expect(parser.sawTerminal).toBe(true);
    expect(terminal.text).not.toBe('');
    expect(ofKind(events, 'tool_call').length).toBe(ofKind(events, 'tool_result').length);
  } else {
    expect(parser.sawTerminal).toBe(false);
    expect(terminal.text).toBe('');
  }
}

describe('whole runs read without a stray line (codex-cli 0.169.0, conformance lab)', () => {
  it.each([
    ['a new thread that ran a command', FIRST_RUN],
    ['a resume whose command exited 3', SECOND_RUN],
    ['a resume that only answered', THIRD_RUN],
  ])('%s', (_, lines) => wholeRun(lines, true));

  it('a run cut off after turn.started has no answer and no settled turn', () => {
    const started = FIRST_RUN.findIndex((l) => l.includes('"turn.started"'));
    wholeRun(FIRST_RUN.slice(0, started + 1), false);
  });
});

if (HAVE_CORPUS) {
  // Extra cases over `../shared/corpus` (codex 0.46.0 captures), registered only where it is present.
  describe('whole codex 0.46.0 captures from ../shared/corpus', () => {
    const dir = corpus('codex', 'exec-json');
    const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
    it.each(files)('%s reads without a stray line', (file) => {
      // The multi-1 capture stops after turn.started: no answer, no settled turn.
      wholeRun(readFileSync(`${dir}/${file}`, 'utf8').split('\n'), !file.includes('multi-1'));
    });
  });
}

describe('the command line', () => {
  const plan = PLAN;

  it('a new read-only run', () => {
    expect(codex.invocation(plan, null).args).toEqual([
      'exec',
      '--skip-git-repo-check',
      '--sandbox',
      'read-only',
      '--json',
      'say pong',
    ]);
  });

  it('a resumed run sets the sandbox as configuration, and a system prompt leads the prompt', () => {
    const inv = codex.invocation(
      {
        ...plan,
        permission: 'edit',
        system: 'be brief',
        model: 'gpt-5',
        effort: 'high',
        session: { kind: 'resume', id: 'T1', fork: false },
      },
      '/tmp/s.json',
    );
    expect(inv.args).toEqual([
      'exec',
      'resume',
      'T1',
      '--skip-git-repo-check',
      '-c',
      'sandbox_mode="workspace-write"',
      '--model',
      'gpt-5',
      '-c',
      'model_reasoning_effort="high"',
      '--output-schema',
      '/tmp/s.json',
      '--json',
      'be brief\n\nsay pong',
    ]);
  });

  it('default leaves Codex its own sandbox and approvals, new or resumed', () => {
    expect(codex.invocation({ ...plan, permission: 'default' }, null).args).toEqual([
      'exec',
      '--skip-git-repo-check',
      '--json',
      'say pong',
    ]);
    const resumedArgs = codex.invocation(
      { ...plan, permission: 'default', session: { kind: 'resume', id: 'T1', fork: false } },
      null,
    ).args;
    expect(resumedArgs).toEqual(['exec', 'resume', 'T1', '--skip-git-repo-check', '--json', 'say pong']);
  });

  it('bypass drops the sandbox, and a large prompt goes on stdin as -', () => {
    const big = 'x'.repeat(200 * 1024);
    const inv = codex.invocation({ ...plan, permission: 'bypass', prompt: big }, null);
    expect(inv.args).toContain('--dangerously-bypass-approvals-and-sandbox');
    expect(inv.args.at(-1)).toBe('-');
    expect(inv.stdin).toEqual({ kind: 'prompt', text: big });
  });

  it('with a schema, the answer is parsed into the structured output', () => {
    const settled = codex.settle(
      {
        ...read('{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"{\\"ok\\":true}"}}')
          .terminal,
      },
      { ...plan, schema: { type: 'object' } },
      { kind: 'fresh' },
    );
    expect(settled.structured).toEqual({ ok: true });
  });
});
