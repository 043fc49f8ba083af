import { describe, expect, it } from 'vitest';
import { processRow } from '../test-support/processes.js';
import { ancestors, paneOf } from './pane.js';
import { checkText, MAX_SEND_CHARS } from './typing.js';

describe('what cctop send may type', () => {
  it('a line of plain text, key names and leading dashes included, is typed as it is', () => {
    expect(checkText('-- Enter C-c $(rm -rf ~) é 日本')).toEqual({
      kind: 'ok',
      text: '-- Enter C-c $(rm -rf ~) é 日本',
    });
  });

  it('a newline, an escape or a C1 control is refused, naming where it is', () => {
    expect(checkText('a\tb')).toEqual({
      kind: 'refused',
      why: 'the text holds a control character (U+0009 at character 2); cctop types one line of plain text',
    });
    expect(checkText('x\u001b[2J').kind).toBe('refused');
    expect(checkText('x\u009b31m').kind).toBe('refused');
  });

  it('text past the bound is refused, not cut', () => {
    expect(checkText('a'.repeat(MAX_SEND_CHARS)).kind).toBe('ok');
    expect(checkText('a'.repeat(MAX_SEND_CHARS + 1))).toEqual({
      kind: 'refused',
      why: `the text is ${MAX_SEND_CHARS + 1} characters; cctop types at most ${MAX_SEND_CHARS} (write it to a file and ask the agent to read it)`,
    });
  });
});

describe('the pane that holds an agent', () => {
  // This test's own process stands for the agent: it is this user's, and /proc knows it.
  const me = process.pid;
  const table = [
    processRow(900, 1, ['tmux', 'new-session']),
    processRow(901, 900, ['-bash']),
    processRow(me, 901, ['claude']),
    processRow(902, 900, ['-bash']),
  ];
  const rows = [
    { serverPid: 900, panePid: 902, paneId: '%1' },
    { serverPid: 900, panePid: 901, paneId: '%2' },
  ];

  it('is the pane whose first process is on the agent’s line of ancestors, on the server that is its ancestor', () => {
    expect(ancestors(me, new Map(table.map((p) => [p.pid, p])))).toEqual([me, 901, 900]);
    const found = paneOf('claude', me, table, {}, ['/s/other', '/s/mine'], (s) =>
      s === '/s/mine' ? rows : [{ serverPid: 777, panePid: 901, paneId: '%9' }],
    );
    expect(found).toEqual({
      kind: 'pane',
      pane: { socket: '/s/mine', serverPid: 900, panePid: 901, paneId: '%2' },
    });
  });

  it('a server whose pane ids match but whose pid is another is never taken', () => {
    const found = paneOf('claude', me, table, {}, ['/s/other'], () => [
      { serverPid: 777, panePid: 901, paneId: '%9' },
    ]);
    expect(found.kind).toBe('refused');
  });

  it('a process that is not the session’s harness is refused', () => {
    expect(paneOf('codex', me, table, {}, ['/s/mine'], () => rows)).toEqual({
      kind: 'refused',
      why: `process ${me} no longer runs this session's agent`,
      fix: 'look again with cctop --list: the session may have ended',
    });
  });
});
