#!/usr/bin/env node
// Writes the sample history that `cctop --demo` reads: a few Claude Code and Codex sessions in the
// exact on-disk shapes those harnesses use (Claude Code 2.x, codex-cli 0.5x), written for cctop,
// with made-up projects and prompts. Deterministic; timestamps are around DEMO_NOW and `--demo`
// shifts them so the newest record is a few minutes old when you run it.
//
//   node demo/generate.mjs        (rewrites demo/home/)
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'home');
export const DEMO_NOW = Date.parse('2026-11-01T12:00:00.000Z');

let seed = 20261101;
const rand = () => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32;
};
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const hex = (n) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
const iso = (ms) => new Date(ms).toISOString();

function write(rel, lines) {
  const path = join(out, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
}

const SOURCE = [
  "import { describe, expect, it } from 'vitest';",
  "import { parseInvoice } from './invoice';",
  '',
  "describe('parseInvoice', () => {",
  "  it('reads the total', () => {",
  "    expect(parseInvoice('total: 42').total).toBe(42);",
  '  });',
  '});',
  'export function parseInvoice(text: string) {',
  '  const match = /total:\\s*(\\d+)/.exec(text);',
  '  return { total: match ? Number(match[1]) : null };',
  '}',
];
const body = (n) =>
  Array.from({ length: n }, (_, i) => `${String(i + 1).padStart(6)}→${pick(SOURCE)}`).join('\n');

/**
 * A Claude Code transcript being written: its records so far, the clock and the context size the
 * next request reads. `push` chains a record to the one before it, as Claude Code does.
 */
function claudeLog(env, start) {
  const log = { lines: [], t: start, ctx: 0, parent: null };
  log.push = (rec) => {
    const id = uuid();
    log.lines.push({ parentUuid: log.parent, ...env, ...rec, uuid: id, timestamp: iso(log.t) });
    log.parent = id;
  };
  return log;
}

/** An assistant record: Claude Code writes one per content block, with the response's ids. */
const assistant = (requestId, model, id, rest) => ({
  type: 'assistant',
  requestId,
  message: { model, id, type: 'message', role: 'assistant', ...rest },
});

/** An automatic compaction: the boundary, then the summary the next turn starts from. */
function compaction(log) {
  log.push({
    type: 'system',
    subtype: 'compact_boundary',
    content: 'Conversation compacted',
    compactMetadata: { trigger: 'auto', preTokens: log.ctx },
  });
  log.t += 20_000;
  log.push({
    type: 'user',
    isCompactSummary: true,
    message: {
      role: 'user',
      content:
        'This session is being continued from a previous conversation. Summary: the invoice parser now handles totals; tests pass.',
    },
  });
  log.ctx = 24_000;
}

/** The usage of one request that writes a little more to the cache; the context grows by it. */
function stepUsage(log) {
  const write = Math.floor(500 + rand() * 4000);
  log.ctx += write;
  return {
    input_tokens: 3 + Math.floor(rand() * 8),
    cache_creation_input_tokens: write,
    cache_read_input_tokens: log.ctx - write,
    cache_creation: { ephemeral_5m_input_tokens: write, ephemeral_1h_input_tokens: 0 },
    output_tokens: 40 + Math.floor(rand() * 900),
    service_tier: 'standard',
  };
}

function toolInput(tool, cwd) {
  if (tool === 'Read') return { file_path: `${cwd}/src/invoice.ts` };
  if (tool === 'Edit')
    return {
      file_path: `${cwd}/src/invoice.ts`,
      old_string: 'return { total };',
      new_string: 'return { total, currency };',
    };
  if (tool === 'Bash')
    return {
      command: pick(['npm test', 'npx tsc --noEmit', 'git status --short']),
      description: 'Run the checks',
    };
  return { pattern: 'parseInvoice', path: cwd };
}

function toolOutput(tool, cwd, failed) {
  if (tool === 'Read') return body(20 + Math.floor(rand() * 120));
  if (tool === 'Bash')
    return failed
      ? 'FAIL src/invoice.test.ts\n  ● parseInvoice › reads the currency\n    expected "EUR", received undefined'
      : ' ✓ src/invoice.test.ts (3 tests) 4ms\n Test Files  1 passed (1)';
  if (tool === 'Grep')
    return `Found 3 files\n${cwd}/src/invoice.ts\n${cwd}/src/invoice.test.ts\n${cwd}/src/index.ts`;
  return 'The file has been updated.';
}

/** The `toolUseResult` Claude Code adds to an Edit's result: the change as a patch. */
const editResult = (input) => ({
  filePath: input.file_path,
  oldString: input.old_string,
  newString: input.new_string,
  structuredPatch: [
    {
      oldStart: 9,
      oldLines: 3,
      newStart: 9,
      newLines: 4,
      lines: [
        '   const match = /total:\\s*(\\d+)/.exec(text);',
        '-  return { total };',
        '+  const currency = /currency:\\s*(\\w+)/.exec(text)?.[1] ?? null;',
        '+  return { total, currency };',
        ' }',
      ],
    },
  ],
});

/** One tool round trip: a response saying what it will do, the tool call, and the call's result. */
function toolRoundTrip(log, cwd, model) {
  const msg = `msg_01${hex(22)}`;
  const req = `req_011${hex(21)}`;
  const usage = stepUsage(log);
  log.t += 2000 + Math.floor(rand() * 9000);
  const tool = pick(['Read', 'Edit', 'Bash', 'Grep', 'Read', 'Edit']);
  const toolId = `toolu_01${hex(22)}`;
  const input = toolInput(tool, cwd);
  // Claude Code writes one record per content block, all with the response's id and usage.
  log.push(
    assistant(req, model, msg, {
      content: [
        {
          type: 'text',
          text: pick([
            'Let me look at the parser first.',
            'I will run the tests to see where we are.',
            'The total is read but the currency is dropped; fixing that.',
          ]),
        },
      ],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    }),
  );
  log.t += 400;
  log.push(
    assistant(req, model, msg, {
      content: [{ type: 'tool_use', id: toolId, name: tool, input }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage,
    }),
  );
  log.t += 1000 + Math.floor(rand() * 20_000);
  const failed = tool === 'Bash' && rand() < 0.25;
  const content = toolOutput(tool, cwd, failed);
  const rec = {
    type: 'user',
    message: {
      role: 'user',
      content: [{ tool_use_id: toolId, type: 'tool_result', content, ...(failed ? { is_error: true } : {}) }],
    },
  };
  if (tool === 'Edit') rec.toolUseResult = editResult(input);
  log.push(rec);
}

/** The last turn of a session waiting on the user: a question, unanswered. */
function askQuestion(log, model, msg) {
  log.push(
    assistant(`req_011${hex(21)}`, model, msg, {
      content: [
        {
          type: 'tool_use',
          id: `toolu_01${hex(22)}`,
          name: 'AskUserQuestion',
          input: {
            questions: [
              {
                question: 'Should totals without a currency default to EUR or stay empty?',
                header: 'Currency',
                options: [{ label: 'EUR' }, { label: 'Leave empty' }],
                multiSelect: false,
              },
            ],
          },
        },
      ],
      stop_reason: 'tool_use',
      usage: {
        input_tokens: 4,
        cache_creation_input_tokens: 300,
        cache_read_input_tokens: log.ctx,
        output_tokens: 120,
      },
    }),
  );
}

/** The last turn of a session the API refused: an overloaded error, still retrying. */
function apiError(log) {
  log.push({
    type: 'system',
    subtype: 'api_error',
    level: 'error',
    error: { status: 529, message: 'Overloaded' },
    retryInMs: 8000,
    retryAttempt: 3,
    maxRetries: 10,
  });
}

/** A turn that finished: the answer and, outside a subagent, how long the turn took. */
function answer(log, model, msg, sidechain) {
  log.push(
    assistant(`req_011${hex(21)}`, model, msg, {
      content: [{ type: 'text', text: 'Done: the parser now reads the currency and the tests pass.' }],
      stop_reason: 'end_turn',
      usage: {
        input_tokens: 4,
        cache_creation_input_tokens: 200,
        cache_read_input_tokens: log.ctx,
        output_tokens: 80 + Math.floor(rand() * 300),
      },
    }),
  );
  log.t += 500;
  if (!sidechain)
    log.push({
      type: 'system',
      subtype: 'turn_duration',
      durationMs: 60_000 + Math.floor(rand() * 200_000),
      isMeta: false,
    });
}

/** How a turn ends: `ask` and `error` only ever end the session's last turn. */
function endTurn(log, model, ending, sidechain) {
  const msg = `msg_01${hex(22)}`;
  log.t += 3000;
  switch (ending) {
    case 'ask':
      return askQuestion(log, model, msg);
    case 'error':
      return apiError(log);
    case 'answer':
      return answer(log, model, msg, sidechain);
  }
}

/** One Claude Code session: a chain of turns, each a prompt, a few tool round trips, an answer. */
function claudeSession({
  slug,
  cwd,
  branch,
  model,
  turns,
  start,
  prompts,
  ask = false,
  error = false,
  compactAt = -1,
  title = null,
  sidechainFor = null,
}) {
  const id = sidechainFor ? sidechainFor.id : uuid();
  const env = {
    isSidechain: !!sidechainFor,
    userType: 'external',
    cwd,
    sessionId: id,
    version: '2.1.80',
    gitBranch: branch,
  };
  if (sidechainFor) env.agentId = sidechainFor.agent;
  const log = claudeLog(env, start);
  log.ctx = 14_000 + Math.floor(rand() * 6000);
  if (title) log.lines.push({ type: 'custom-title', customTitle: title, sessionId: id });
  for (let turn = 0; turn < turns; turn++) {
    if (turn === compactAt) compaction(log);
    log.t += 30_000 + Math.floor(rand() * 120_000);
    log.push({
      type: 'user',
      message: { role: 'user', content: prompts[turn % prompts.length] },
      permissionMode: 'acceptEdits',
    });
    const steps = 2 + Math.floor(rand() * 5);
    for (let s = 0; s < steps; s++) toolRoundTrip(log, cwd, model);
    const last = turn === turns - 1;
    const ending = last && ask ? 'ask' : last && error ? 'error' : 'answer';
    endTurn(log, model, ending, !!sidechainFor);
  }
  const rel = sidechainFor
    ? `.claude/projects/${slug}/${sidechainFor.id}/subagents/agent-${sidechainFor.agent}.jsonl`
    : `.claude/projects/${slug}/${id}.jsonl`;
  write(rel, log.lines);
  return { id, end: log.t };
}

/** A Codex rollout being written: its records so far and the clock that stamps them. */
function codexLog(start) {
  const log = { lines: [], t: start };
  log.rec = (type, payload) => log.lines.push({ timestamp: iso(log.t), type, payload });
  return log;
}

/** One shell command: the reasoning before it, the call, its output and the token count after. */
function codexStep(log, { cwd, turn, fail, usage }) {
  log.t += 3000 + Math.floor(rand() * 15_000);
  const call = `call_${hex(24)}`;
  const cmd = pick(['rg -n "retry" src', 'cargo test -q', 'sed -n 1,80p src/client.rs', 'git diff --stat']);
  log.rec('response_item', {
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: '**Checking the retry loop**' }],
    content: null,
    encrypted_content: 'gAAAAA' + hex(40),
  });
  log.rec('response_item', {
    type: 'function_call',
    name: 'shell',
    arguments: JSON.stringify({ command: ['bash', '-lc', cmd], workdir: cwd }),
    call_id: call,
  });
  log.rec('response_item', {
    type: 'function_call_output',
    call_id: call,
    output: JSON.stringify({
      output: fail ? 'error[E0308]: mismatched types\n --> src/client.rs:42:17' : 'ok',
      metadata: { exit_code: fail ? 101 : 0, duration_seconds: 1.2 },
    }),
  });
  tokenCount(log, turn, usage);
}

/** The request's usage, added to the session's running total, as Codex reports it. */
function tokenCount(log, turn, usage) {
  const grow = 800 + Math.floor(rand() * 3000);
  usage.ctx += grow;
  const last = {
    input_tokens: usage.ctx,
    cached_input_tokens: usage.ctx - grow,
    output_tokens: 100 + Math.floor(rand() * 700),
    reasoning_output_tokens: 64 * Math.floor(rand() * 6),
    total_tokens: 0,
  };
  last.total_tokens = last.input_tokens + last.output_tokens;
  for (const k of Object.keys(usage.total)) usage.total[k] += last[k];
  log.rec('event_msg', {
    type: 'token_count',
    info: { total_token_usage: { ...usage.total }, last_token_usage: last, model_context_window: 272_000 },
    rate_limits: {
      primary: { used_percent: 12 + turn * 3, window_minutes: 300, resets_in_seconds: 7200 },
      secondary: { used_percent: 31, window_minutes: 10080, resets_in_seconds: 300_000 },
    },
  });
}

/** A turn's close: the answer as a response item and as events, then the task's end. */
function codexAnswer(log) {
  const text = 'The retry loop now backs off exponentially; tests pass.';
  log.t += 2000;
  log.rec('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
  log.rec('event_msg', { type: 'agent_message', message: text });
  log.rec('event_msg', { type: 'task_complete', last_agent_message: text });
}

/** Where Codex keeps a rollout: a folder per day, the start time and the id in the name. */
function rolloutPath(start, id) {
  const d = new Date(start);
  const day = `${d.getUTCFullYear()}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${String(d.getUTCDate()).padStart(2, '0')}`;
  return `.codex/sessions/${day}/rollout-${iso(start).slice(0, 19).replace(/:/g, '-')}-${id}.jsonl`;
}

/** One Codex session in the rollout format. */
function codexSession({ cwd, model, effort, turns, start, prompts, failLast = false }) {
  const id = `019a${hex(4)}-${hex(4)}-7${hex(3)}-8${hex(3)}-${hex(12)}`;
  const log = codexLog(start);
  log.rec('session_meta', {
    id,
    timestamp: iso(log.t),
    cwd,
    originator: 'codex_cli_rs',
    cli_version: '0.58.0',
    git: { branch: 'main', commit_hash: hex(40) },
  });
  const total = {
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    reasoning_output_tokens: 0,
    total_tokens: 0,
  };
  const usage = { total, ctx: 9_000 };
  for (let turn = 0; turn < turns; turn++) {
    log.t += 60_000 + Math.floor(rand() * 300_000);
    log.rec('turn_context', {
      cwd,
      approval_policy: 'on-request',
      sandbox_policy: { mode: 'workspace-write' },
      model,
      effort,
      summary: 'auto',
    });
    log.rec('event_msg', { type: 'task_started', model_context_window: 272_000 });
    log.rec('event_msg', { type: 'user_message', message: prompts[turn % prompts.length] });
    const steps = 3 + Math.floor(rand() * 6);
    for (let s = 0; s < steps; s++)
      codexStep(log, { cwd, turn, fail: failLast && turn === turns - 1 && s === steps - 1, usage });
    codexAnswer(log);
  }
  write(rolloutPath(start, id), log.lines);
  return { id, end: log.t };
}

rmSync(out, { recursive: true, force: true });
const H = 3_600_000;
const invoice = [
  'The invoice parser drops the currency. Fix it and add a test.',
  'Also handle totals with decimals like 42.50.',
  'Run the whole test suite and fix anything that broke.',
  'Clean up the parser: one regex per field, named groups.',
];
const web = [
  'The signup form double-submits on slow networks. Find out why.',
  'Disable the button while the request is in flight and add a test.',
  'Now do the same for the login form.',
];
const docs = [
  'Write a README section on configuration, with every environment variable.',
  'Add a table of defaults.',
];
const rust = [
  'The HTTP client retries forever on 503. Add exponential backoff with a cap.',
  'Make the cap configurable and document it.',
  'Add a test for the jitter.',
];

claudeSession({
  slug: '-home-sam-src-billing',
  cwd: '/home/sam/src/billing',
  branch: 'fix/currency',
  model: 'claude-sonnet-4-5-20250929',
  turns: 4,
  start: DEMO_NOW - 40 * 60_000,
  prompts: invoice,
  ask: true,
});
const big = claudeSession({
  slug: '-home-sam-src-billing',
  cwd: '/home/sam/src/billing',
  branch: 'main',
  model: 'claude-opus-4-5-20251101',
  turns: 14,
  start: DEMO_NOW - 6 * H,
  prompts: invoice,
  compactAt: 9,
  title: 'Invoice parser rewrite',
});
claudeSession({
  slug: '-home-sam-src-billing',
  cwd: '/home/sam/src/billing',
  branch: 'main',
  model: 'claude-haiku-4-5-20251001',
  turns: 3,
  start: DEMO_NOW - 5 * H,
  prompts: ['Find every caller of parseInvoice and list them.'],
  sidechainFor: { id: big.id, agent: `a${hex(16)}` },
});
claudeSession({
  slug: '-home-sam-src-webapp',
  cwd: '/home/sam/src/webapp',
  branch: 'signup-double-submit',
  model: 'claude-sonnet-4-5-20250929',
  turns: 3,
  start: DEMO_NOW - 25 * 60_000,
  prompts: web,
  error: true,
});
claudeSession({
  slug: '-home-sam-src-webapp',
  cwd: '/home/sam/src/webapp',
  branch: 'main',
  model: 'claude-sonnet-4-5-20250929',
  turns: 5,
  start: DEMO_NOW - 26 * H,
  prompts: web,
});
claudeSession({
  slug: '-home-sam-src-docs',
  cwd: '/home/sam/src/docs',
  branch: 'main',
  model: 'claude-haiku-4-5-20251001',
  turns: 2,
  start: DEMO_NOW - 3 * 24 * H,
  prompts: docs,
});
codexSession({
  cwd: '/home/sam/src/httpc',
  model: 'gpt-5-codex',
  effort: 'high',
  turns: 3,
  start: DEMO_NOW - 50 * 60_000,
  prompts: rust,
  failLast: true,
});
codexSession({
  cwd: '/home/sam/src/httpc',
  model: 'gpt-5.1-codex',
  effort: 'medium',
  turns: 5,
  start: DEMO_NOW - 30 * H,
  prompts: rust,
});
codexSession({
  cwd: '/home/sam/src/webapp',
  model: 'gpt-5',
  effort: 'low',
  turns: 2,
  start: DEMO_NOW - 9 * 24 * H,
  prompts: web,
});
console.log(`demo history written under ${out}`);
