/**
 * What the stand-in model says, step by step. A test picks a script by putting its marker in the
 * prompt (`[lab:call] …`); the server finds the newest user message that carries a marker and counts
 * the assistant turns after it, so the step is read from the conversation the agent sends, not from
 * state on the server: an agent that retries a request, or sends side requests (titles, quota
 * probes), gets the same answer for the same conversation.
 *
 * It does not pretend to be a model: every step is fixed, so what the agent must have written down
 * is known in advance and checked against the ledger.
 */

/** One shell command the model asks the agent to run. */
export interface ShellCall {
  command: string;
}

/** A call of one tool the agent offers by its name (an MCP server's tool), with these arguments. */
export interface NamedCall {
  name: string;
  args: Record<string, unknown>;
}

/** One model response. */
export type Step =
  /** A plain answer that ends the turn; `held`: held as a `held` step is. */
  | { kind: 'answer'; text: string; held?: true }
  /** Tool calls in one response (two or more: parallel calls); `held`: held as a `held` step is. */
  | { kind: 'calls'; calls: ShellCall[]; text?: string; held?: true }
  /** An answer the server holds open until the test releases it (the agent is working meanwhile). */
  | { kind: 'held'; text: string }
  /** A call of a tool named exactly (not the agent's shell): one of an MCP server's. */
  | { kind: 'tool'; call: NamedCall; text?: string; held?: true };

export type ScriptName =
  | 'text'
  | 'call'
  | 'fail'
  | 'parallel'
  | 'approve'
  | 'hold'
  | 'resume'
  | 'stages'
  | 'mcp'
  | 'handoff'
  | 'ask'
  | 'escalate';

/** Whether the server holds a step's response until the test releases it. */
export const isHeld = (step: Step): boolean => step.kind === 'held' || step.held === true;

/**
 * The scripts, by marker. Commands write only inside the agent's working directory and print a
 * distinct word, so a test can find each call's output in the transcript.
 */
export const SCRIPTS: Record<ScriptName, Step[]> = {
  text: [{ kind: 'answer', text: 'pong: the lab answers with text only.' }],
  call: [
    { kind: 'calls', calls: [{ command: 'echo lab-call-ok' }] },
    { kind: 'answer', text: 'The command printed lab-call-ok.' },
  ],
  fail: [
    { kind: 'calls', calls: [{ command: 'echo lab-fail-out; exit 3' }] },
    { kind: 'answer', text: 'The command failed with exit code 3.' },
  ],
  parallel: [
    { kind: 'calls', calls: [{ command: 'echo lab-par-one' }, { command: 'echo lab-par-two' }] },
    { kind: 'answer', text: 'Both commands ran.' },
  ],
  approve: [
    { kind: 'calls', calls: [{ command: 'touch lab-approved.txt && echo lab-touched' }] },
    { kind: 'answer', text: 'Done with the file.' },
  ],
  hold: [{ kind: 'held', text: 'The held answer arrives.' }],
  resume: [{ kind: 'answer', text: 'Resumed: the second turn is answered.' }],
  // Every state of a turn in turn, each held long enough to be seen: thinking, a call that needs
  // approval, thinking again once it ran, the answer.
  stages: [
    { kind: 'calls', calls: [{ command: 'touch lab-stages.txt && echo lab-staged' }], held: true },
    { kind: 'answer', text: 'The file is there.', held: true },
  ],
  // One call of cctop's MCP server, as Claude Code names it (`mcp__<server>__<tool>`). Claude Code
  // 2.1.328 defers MCP tools behind its ToolSearch: the model fetches the tool's schema first.
  mcp: [
    {
      kind: 'tool',
      call: { name: 'ToolSearch', args: { query: 'select:mcp__cctop__list_sessions', max_results: 1 } },
    },
    { kind: 'tool', call: { name: 'mcp__cctop__list_sessions', args: {} } },
    { kind: 'answer', text: 'cctop listed the running sessions.' },
  ],
  // What an agent started by `cctop handoff` does first: read the brief it was pointed at (the lab's
  // test writes it as `cctop-handoff.md` in the session's directory, where the agent starts).
  handoff: [
    { kind: 'calls', calls: [{ command: 'cat cctop-handoff.md' }] },
    { kind: 'answer', text: 'I have read the handoff brief and carry on from there.' },
  ],
  // A question that wants words: Claude Code's AskUserQuestion, as 2.1.328's tool schema takes it.
  ask: [
    {
      kind: 'tool',
      call: {
        name: 'AskUserQuestion',
        args: {
          questions: [
            {
              question: 'Which lab colour should the file be?',
              header: 'Colour',
              options: [
                { label: 'red', description: 'The red file' },
                { label: 'blue', description: 'The blue file' },
              ],
              multiSelect: false,
            },
          ],
        },
      },
    },
    { kind: 'answer', text: 'Noted the colour.' },
  ],
  // A command Codex's model asks to run outside its sandbox, as 0.169.0's `exec_command` takes it: with
  // `approval_policy = "on-request"` that is what brings up its "Would you like to run" prompt (a
  // plain call just runs, or fails, inside the sandbox, and nothing is asked). Once allowed, the command
  // waits (a minute at most) for the test to make `lab-gate` in its directory, so a test can look at
  // the session between the answer and the call's end.
  escalate: [
    {
      kind: 'tool',
      call: {
        name: 'exec_command',
        args: {
          cmd: 'for i in $(seq 600); do [ -e lab-gate ] && break; sleep 0.1; done; touch lab-escalated.txt && echo lab-escalated',
          // Its output is awaited until the command ends (Codex's default returns after seconds and lets
          // it run on), so the call is not over before the gate is made.
          yield_time_ms: 120_000,
          sandbox_permissions: 'require_escalated',
          justification: 'The lab asks to write a file outside the sandbox.',
        },
      },
    },
    { kind: 'answer', text: 'The escalated command is settled.' },
  ],
};

const MARKER = /\[lab:([a-z]+)\]/g;

/** The script a user text names, if it names one (the last marker wins). */
export function scriptIn(text: string): ScriptName | null {
  let found: ScriptName | null = null;
  for (const m of text.matchAll(MARKER)) if (m[1]! in SCRIPTS) found = m[1] as ScriptName;
  return found;
}

/** A conversation as the server needs to see it: user texts and assistant turns, in order. */
export type Turn = { role: 'user'; text: string } | { role: 'assistant' } | { role: 'tool'; text: string };

export interface Position {
  script: ScriptName;
  step: Step;
  /** 0 for the response to the prompt itself. */
  index: number;
  /** Tool results the agent sent back since the last assistant turn (what the model sees). */
  results: string[];
}

/** Where a conversation stands in its script; null when no user message names one. */
export function position(turns: readonly Turn[]): Position | null {
  let at = -1;
  let script: ScriptName | null = null;
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i]!;
    if (t.role !== 'user') continue;
    script = scriptIn(t.text);
    if (script) {
      at = i;
      break;
    }
  }
  if (!script) return null;
  let index = 0;
  const results: string[] = [];
  for (const t of turns.slice(at + 1)) {
    if (t.role === 'assistant') {
      index++;
      results.length = 0;
    } else if (t.role === 'tool') results.push(t.text);
  }
  const steps = SCRIPTS[script];
  const step = steps[Math.min(index, steps.length - 1)]!;
  // Past its end a script answers again rather than looping on calls.
  const done: Step = { kind: 'answer', text: 'The lab script is over.' };
  return { script, step: index >= steps.length ? done : step, index, results };
}
