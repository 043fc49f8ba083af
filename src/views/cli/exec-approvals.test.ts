import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ScriptedRun } from '../../drive/test-support/scripted-run.js';
import { PLAIN } from './color.js';
import { TerminalApprover, terminalApprover } from './exec-approvals.js';

describe('--approvals ask', () => {
  it('asks one question at a time, showing the tool and its input safely; y allows, anything else denies', async () => {
    const input = new PassThrough();
    const shown: string[] = [];
    const approver = new TerminalApprover(input, (t) => shown.push(t), PLAIN);
    const run = new ScriptedRun();
    run.emit({
      kind: 'approval_request',
      id: 'a',
      tool: 'Bash',
      input: { command: 'rm -rf build\u001b]0;pwned\u0007' },
    });
    run.emit({ kind: 'approval_request', id: 'b', tool: 'Write', input: { file_path: '/etc/hosts' } });
    approver.onApproval(
      {
        kind: 'approval_request',
        id: 'a',
        tool: 'Bash',
        input: { command: 'rm -rf build\u001b]0;pwned\u0007' },
      },
      run,
      null,
    );
    approver.onApproval(
      { kind: 'approval_request', id: 'b', tool: 'Write', input: { file_path: '/etc/hosts' } },
      run,
      null,
    );
    await expect.poll(() => shown.join('')).toContain('Allow? [y/N]');
    // The second question waits for the first answer.
    expect(shown.join('')).not.toContain('/etc/hosts');
    expect(shown.join('')).toContain('rm -rf build');
    expect(shown.join('')).not.toMatch(/[\u001b\u0007]/);
    input.write('y\n');
    await expect.poll(() => shown.join('')).toContain('/etc/hosts');
    input.write('sure\n');
    await expect.poll(() => run.answers.length).toBe(2);
    expect(run.answers.map(([id, d]) => [id, d.behavior])).toEqual([
      ['a', 'allow'],
      ['b', 'deny'],
    ]);
    approver.close();
  });

  it('several agents at once (--all): each question is labelled with its agent, and each answer goes to its own run', async () => {
    const input = new PassThrough();
    const shown: string[] = [];
    const approver = new TerminalApprover(input, (t) => shown.push(t), PLAIN);
    const claude = new ScriptedRun();
    const codex = new ScriptedRun();
    claude.emit({ kind: 'approval_request', id: 'c1', tool: 'Bash', input: { command: 'ls' } });
    codex.emit({ kind: 'approval_request', id: 'x1', tool: 'exec_command', input: { command: 'make' } });
    approver.onApproval(
      { kind: 'approval_request', id: 'c1', tool: 'Bash', input: { command: 'ls' } },
      claude,
      'claude',
    );
    approver.onApproval(
      { kind: 'approval_request', id: 'x1', tool: 'exec_command', input: { command: 'make' } },
      codex,
      'codex',
    );
    await expect
      .poll(() => shown.join(''))
      .toContain('[claude] Bash asks to run:\n  {"command":"ls"}\nAllow? [y/N] ');
    expect(shown.join('')).not.toContain('[codex]');
    input.write('n\n');
    await expect
      .poll(() => shown.join(''))
      .toContain('[codex] exec_command asks to run:\n  {"command":"make"}\nAllow? [y/N] ');
    input.write('y\n');
    await expect.poll(() => codex.answers.length).toBe(1);
    expect(claude.answers.map(([id, d]) => [id, d.behavior])).toEqual([['c1', 'deny']]);
    expect(codex.answers.map(([id, d]) => [id, d.behavior])).toEqual([['x1', 'allow']]);
    approver.close();
  });

  it('an answer to a question the run no longer asks is said, not thrown', async () => {
    const input = new PassThrough();
    const shown: string[] = [];
    const approver = new TerminalApprover(input, (t) => shown.push(t), PLAIN);
    approver.onApproval(
      { kind: 'approval_request', id: 'gone', tool: 'Bash', input: {} },
      new ScriptedRun(),
      null,
    );
    input.write('y\n');
    await expect.poll(() => shown.join('')).toContain('not answered: no approval gone is waiting');
    approver.close();
  });

  it('with no terminal to ask on, says so and what to use instead', () => {
    const r = terminalApprover(PLAIN, '/nonexistent/tty');
    expect(typeof r).toBe('string');
    expect(r).toContain('--approvals remote');
  });
});
