import { describe, expect, it } from 'vitest';
import { MAX_PENDING_TOOLS, PendingCalls } from './pending.js';

// Call ids as Codex 0.169 and Claude Code write them (`call_…`, `toolu_…`).
const CODEX_CALL = 'call_08WM3dtbQ64fM79is9zwlCcd';
const OTHER_CALL = 'call_0AWd4vyQsP7rkaPTaADbazfZ';

describe('the calls still waiting for their result', () => {
  it('a result is charged to the tool of the call it answers, once', () => {
    const p = new PendingCalls<string>();
    p.open(CODEX_CALL, 'shell');
    expect(p.settle(CODEX_CALL)).toBe('shell');
    expect(p.settle(CODEX_CALL)).toBeUndefined();
    expect(p.size).toBe(0);
  });

  it('a result for a call never seen answers nothing', () => {
    expect(new PendingCalls<string>().settle('toolu_0113w4vPLDAwuPfhk3okTafz')).toBeUndefined();
  });

  it('the newest open call is what a working session waits on', () => {
    const p = new PendingCalls<string>();
    expect(p.newest()).toBeNull();
    p.open(CODEX_CALL, 'shell');
    p.open(OTHER_CALL, 'apply_patch');
    expect(p.newest()).toBe('apply_patch');
    p.settle(OTHER_CALL);
    expect(p.newest()).toBe('shell');
  });

  it('a call named again keeps its place: only its tool name changes', () => {
    const p = new PendingCalls<string>();
    p.open(CODEX_CALL, 'shell');
    p.open(OTHER_CALL, 'apply_patch');
    p.open(CODEX_CALL, 'exec_command');
    expect(p.carry()).toEqual([
      [CODEX_CALL, 'exec_command'],
      [OTHER_CALL, 'apply_patch'],
    ]);
  });

  it('calls that never get a result are forgotten oldest first past the bound', () => {
    const p = new PendingCalls<number>();
    for (let i = 0; i < MAX_PENDING_TOOLS + 10; i++) p.open(i, 'Bash');
    expect(p.size).toBe(MAX_PENDING_TOOLS);
    expect(p.has(9)).toBe(false);
    expect(p.has(10)).toBe(true);
    expect(p.settle(5)).toBeUndefined();
  });

  it('what is carried to the next pass opens the same calls, in the same order', () => {
    const p = new PendingCalls<string>();
    p.open(CODEX_CALL, 'shell');
    p.open(OTHER_CALL, 'apply_patch');
    const next = new PendingCalls<string>(JSON.parse(JSON.stringify(p.carry())));
    expect(next.carry()).toEqual(p.carry());
    expect(next.settle(CODEX_CALL)).toBe('shell');
  });
});
