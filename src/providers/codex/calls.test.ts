/**
 * Which call grew the context of a Codex session, over rollouts trimmed from what Codex wrote: 0.169
 * (token_count after the response's calls) and 0.40 (token_count before them).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonl, tempDir } from '../../test-support/corpus.js';
import { codex } from './index.js';

let cleanup: (() => void) | null = null;
afterEach(() => {
  cleanup?.();
  cleanup = null;
});

function rollout(...records: unknown[]): string {
  const t = tempDir();
  cleanup = t.cleanup;
  const path = join(t.dir, 'rollout-2026-03-02T10-00-00-019cb0aa-0000-7000-8000-000000000001.jsonl');
  writeFileSync(path, jsonl(...records));
  return path;
}

let clock = 0;
const at = () => new Date(Date.parse('2026-03-02T10:00:00Z') + 1000 * clock++).toISOString();
const item = (payload: object) => ({ timestamp: at(), type: 'response_item', payload });
const event = (payload: object) => ({ timestamp: at(), type: 'event_msg', payload });
const usage = (input: number, total: number) => ({
  input_tokens: input,
  cached_input_tokens: Math.floor(input * 0.8),
  output_tokens: 100,
  reasoning_output_tokens: 40,
  total_tokens: total,
});
/** A token_count as Codex 0.169 writes it: this request's usage and the running total. */
const tokens = (input: number, total: number) =>
  event({
    type: 'token_count',
    info: {
      last_token_usage: usage(input, input + 100),
      total_token_usage: usage(total, total + 100),
      model_context_window: 258400,
    },
  });
const exec = (id: string, cmd: string) =>
  item({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd }), call_id: id });
const output = (id: string, code: number, text: string) =>
  item({
    type: 'function_call_output',
    call_id: id,
    output: `Chunk ID: 4f1c\nWall time: 0.0520 seconds\nProcess exited with code ${code}\nOutput:\n${text}`,
  });
const prompt = (words: string) => [
  item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: words }] }),
  event({ type: 'user_message', message: words, images: [] }),
];
const meta = (version: string) => ({
  timestamp: at(),
  type: 'session_meta',
  payload: {
    id: '019cb0aa-0000-7000-8000-000000000001',
    cwd: '/w/app',
    originator: 'codex_exec',
    cli_version: version,
  },
});
const context = () => ({
  timestamp: at(),
  type: 'turn_context',
  payload: { cwd: '/w/app', model: 'gpt-5.5', effort: 'medium' },
});

describe('Codex calls: context growth', () => {
  it('a call is charged from the request that made it to the one after its output, with token_count after the calls (0.169)', () => {
    const path = rollout(
      meta('0.169.0'),
      context(),
      ...prompt('read the parser and fix the bug'),
      event({ type: 'task_started', model_context_window: 258400 }),
      item({ type: 'reasoning', summary: [], encrypted_content: 'x' }),
      exec('call_a', 'cat src/parser.ts'),
      tokens(10_000, 10_000),
      output('call_a', 0, 'export function parse() {}'),
      exec('call_b', 'npm test'),
      tokens(18_000, 28_000),
      // Codex repeats a token_count whose total has not moved: the same request, not another.
      tokens(18_000, 28_000),
      output('call_b', 1, 'FAIL parser.test.ts'),
      item({
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'The test fails.' }],
      }),
      tokens(18_500, 46_500),
      event({ type: 'task_complete', last_agent_message: 'The test fails.' }),
    );
    const log = codex.calls!(path);
    expect(log.requests.map((r) => r.prompt)).toEqual([10_000, 18_000, 18_500]);
    expect(log.calls.map((c) => [c.detail, c.growth, c.shared])).toEqual([
      ['cat src/parser.ts', 8_000, false],
      ['npm test', 500, false],
    ]);
    expect(log.calls[0]).toMatchObject({
      name: 'exec_command',
      result: expect.stringContaining('export function parse'),
    });
    expect(log.calls[1]!.endMs! - log.calls[1]!.startMs!).toBe(3000);
  });

  it('the calls of one response share its growth, also when their outputs come before its token_count', () => {
    const path = rollout(
      meta('0.169.0'),
      context(),
      ...prompt('look around'),
      exec('call_a', 'ls'),
      exec('call_b', 'git status'),
      output('call_a', 0, 'src'),
      output('call_b', 0, 'clean'),
      tokens(10_000, 10_000),
      item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'All clean.' }] }),
      tokens(10_600, 20_600),
    );
    const log = codex.calls!(path);
    expect(log.calls.map((c) => [c.detail, c.growth, c.shared])).toEqual([
      ['ls', 600, true],
      ['git status', 600, true],
    ]);
  });

  it('a call in the last response before the person speaks again grows nothing measurable in that turn', () => {
    const path = rollout(
      meta('0.169.0'),
      context(),
      ...prompt('run the tests'),
      exec('call_a', 'npm test'),
      tokens(10_000, 10_000),
      output('call_a', 0, 'ok'),
      event({ type: 'turn_aborted', reason: 'interrupted' }),
      // Resumed later: a new turn, whose first prompt holds everything since.
      context(),
      ...prompt('now commit it'),
      exec('call_b', 'git commit -am fix'),
      tokens(31_000, 41_000),
      output('call_b', 0, '[main 1a2b3c] fix'),
      item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Committed.' }] }),
      tokens(31_200, 72_200),
    );
    const log = codex.calls!(path);
    expect(log.calls.map((c) => [c.detail, c.growth])).toEqual([
      ['npm test', null],
      ['git commit -am fix', 200],
    ]);
  });

  it('0.40 wrote token_count before the items it measures: the same rule charges the same calls', () => {
    const shell = (id: string, command: string) =>
      item({
        type: 'function_call',
        name: 'shell',
        arguments: JSON.stringify({ command: ['bash', '-lc', command], workdir: '/w/app' }),
        call_id: id,
      });
    const envelope = (id: string, code: number, text: string) =>
      item({
        type: 'function_call_output',
        call_id: id,
        output: JSON.stringify({ output: text, metadata: { exit_code: code, duration_seconds: 0.0 } }),
      });
    const path = rollout(
      meta('0.40.0'),
      ...prompt('why does the build fail?'),
      context(),
      event({ type: 'agent_reasoning', text: '**Looking at the build**' }),
      tokens(3_587, 3_587),
      item({ type: 'reasoning', summary: [{ type: 'summary_text', text: '**Looking at the build**' }] }),
      shell('call_a', "sed -n '1,200p' src/(app)/page.ts"),
      envelope('call_a', 2, "bash: -c: line 0: syntax error near unexpected token `('"),
      context(),
      tokens(3_984, 7_571),
      shell('call_b', "sed -n '1,200p' 'src/(app)/page.ts'"),
      envelope('call_b', 0, 'export default function Page() {}'),
      context(),
      event({ type: 'agent_message', message: 'Found it.' }),
      tokens(4_213, 11_784),
      item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Found it.' }] }),
    );
    const log = codex.calls!(path);
    expect(log.requests.map((r) => r.prompt)).toEqual([3_587, 3_984, 4_213]);
    expect(log.calls.map((c) => [c.growth, c.failed, c.result])).toEqual([
      [397, true, "bash: -c: line 0: syntax error near unexpected token `('"],
      [229, false, 'export default function Page() {}'],
    ]);
  });

  it('an apply_patch names every file it changes, with the lines each gained and lost', () => {
    const patch = [
      '*** Begin Patch',
      '*** Update File: src/a.ts',
      '@@',
      '-old',
      '+new',
      '+more',
      '*** Add File: src/b.ts',
      '+created',
      '*** End Patch',
    ].join('\n');
    const path = rollout(
      meta('0.169.0'),
      ...prompt('patch it'),
      item({
        type: 'custom_tool_call',
        status: 'completed',
        call_id: 'call_p',
        name: 'apply_patch',
        input: patch,
      }),
      tokens(5_000, 5_000),
      item({
        type: 'custom_tool_call_output',
        call_id: 'call_p',
        output: 'Success. Updated the following files:\nM src/a.ts\nA src/b.ts',
      }),
    );
    const [call] = codex.calls!(path).calls;
    expect(call).toMatchObject({ detail: 'src/a.ts (+1 more)', added: 3, removed: 1, failed: false });
    expect(call!.files).toEqual([
      { path: 'src/a.ts', write: true, added: 2, removed: 1 },
      { path: 'src/b.ts', write: true, added: 1, removed: 0 },
    ]);
  });

  it('a patch that moves a file writes the file under its new name as well', () => {
    const patch = [
      '*** Begin Patch',
      '*** Update File: src/old.ts',
      '*** Move to: src/new.ts',
      '@@',
      '-a',
      '+b',
      '*** Delete File: src/gone.ts',
      '*** End Patch',
    ].join('\n');
    const path = rollout(
      meta('0.169.0'),
      ...prompt('move it'),
      item({
        type: 'custom_tool_call',
        status: 'completed',
        call_id: 'call_m',
        name: 'apply_patch',
        input: patch,
      }),
    );
    const [call] = codex.calls!(path).calls;
    expect(call!.files.map((f) => [f.path, f.write])).toEqual([
      ['src/old.ts', true],
      ['src/new.ts', true],
      ['src/gone.ts', true],
    ]);
  });

  it('a patch sent through the shell (a command list, as 0.40 did) names every file it changes', () => {
    const patch =
      '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** Add File: src/c.ts\n+c\n*** End Patch';
    const path = rollout(
      meta('0.40.0'),
      ...prompt('patch it'),
      item({
        type: 'function_call',
        name: 'shell',
        arguments: JSON.stringify({ command: ['apply_patch', patch], workdir: '/w/app' }),
        call_id: 'call_s',
      }),
    );
    const [call] = codex.calls!(path).calls;
    expect(call!.files.map((f) => f.path)).toEqual(['src/a.ts', 'src/c.ts']);
    expect(call!.files.every((f) => f.write)).toBe(true);
  });

  it('a patch in a heredoc of exec_command names every file it changes; another command names none', () => {
    const cmd =
      "apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: web/app.js\n@@\n-a\n+b\n*** Update File: web/dom.js\n@@\n+c\n*** End Patch\nPATCH";
    const path = rollout(
      meta('0.169.0'),
      ...prompt('patch it'),
      item({
        type: 'function_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd }),
        call_id: 'call_h',
      }),
      exec('call_e', "grep -n '*** Begin Patch' notes.txt"),
    );
    const [patched, grep] = codex.calls!(path).calls;
    expect(patched!.files.map((f) => f.path)).toEqual(['web/app.js', 'web/dom.js']);
    expect(grep!.files).toEqual([]);
  });
});
