import { describe, expect, it } from 'vitest';
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import { PLAIN } from '../cli/color.js';
import { onKey } from './input.js';
import { initialView, keyOf, render } from './view.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

/** Enough of a session for the table to draw it and `O` to find it. */
function session(provider: 'claude' | 'codex', id: string): SessionDoc {
  return {
    provider,
    id,
    file: `/h/${id}.jsonl`,
    deleted: false,
    subagentFiles: 0,
    project: '/w/app',
    title: 'fix the tests',
    branch: null,
    model: null,
    models: [],
    reasoningEffort: null,
    permissionMode: null,
    permission: null,
    startedAt: '2026-11-29T11:00:00Z',
    lastActiveAt: '2026-11-29T11:59:00Z',
    state: 'idle',
    stateDetail: null,
    stateSource: 'inferred',
    running: false,
    process: null,
    pendingTool: null,
    inferred: null,
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: null, reasoning: null },
    requests: 0,
    cost: { usd: null, source: null, included: false, unpriced: [], byModel: [], byHour: null, byDay: null },
    context: { used: null, window: null, compactAt: null },
    tools: { calls: 0, failed: null, byTool: {} },
    lines: { added: null, removed: null },
    compactions: null,
    aborts: 0,
    rateLimits: null,
  } as SessionDoc;
}

function table(s: SessionDoc) {
  const v = initialView(new Set());
  v.doc = { sessions: [s], problems: [] } as unknown as SessionDocument;
  v.selected = keyOf(s);
  v.follow = false;
  v.loading = null;
  const said: string[] = [];
  const signals: string[] = [];
  const keys = {
    tableRows: () => [],
    tableStart: () => 2,
    screenRows: () => 30,
    quit: () => {},
    say: (t: string) => said.push(t),
    repaint: () => {},
    signal: (x: string) => signals.push(x),
    answer: null,
  };
  return { v, said, signals, keys };
}

const copied = (signal: string) =>
  Buffer.from(/^\u001b\]52;c;([A-Za-z0-9+/=]*)\u0007$/.exec(signal)![1]!, 'base64').toString('utf8');

describe('O hands the selected session to another harness', () => {
  it('asks which harness, and Enter copies the handoff line for the default (Codex, for a Claude session)', () => {
    const { v, said, signals, keys } = table(session('claude', 'c1a2'));
    onKey(v, { kind: 'char', ch: 'O' }, keys);
    expect(render(v, PLAIN, 200, 30, NOW).lines.at(-1)).toMatch(
      /^Hand off to: 1 claude {2}2 codex .* Enter: codex/,
    );
    onKey(v, { kind: 'enter' }, keys);
    expect(signals.map(copied)).toEqual(['cctop handoff c1a2 --to codex --run']);
    expect(said).toEqual(['copied: cctop handoff c1a2 --to codex --run']);
    expect(v.handoff).toBeNull();
  });

  it('a digit picks the harness', () => {
    const { v, signals, keys } = table(session('codex', 'x9'));
    onKey(v, { kind: 'char', ch: 'O' }, keys);
    onKey(v, { kind: 'char', ch: '3' }, keys);
    expect(signals.map(copied)).toEqual(['cctop handoff x9 --to gemini --run']);
  });

  it('any other key hands nothing over', () => {
    const { v, said, signals, keys } = table(session('codex', 'x9'));
    onKey(v, { kind: 'char', ch: 'O' }, keys);
    onKey(v, { kind: 'char', ch: 'q' }, keys);
    expect(signals).toEqual([]);
    expect(said).toEqual(['not handed off']);
  });

  it('a session whose id reads as an option gets no line', () => {
    const { v, said, signals, keys } = table(session('codex', '--evil'));
    onKey(v, { kind: 'char', ch: 'O' }, keys);
    onKey(v, { kind: 'enter' }, keys);
    expect(signals).toEqual([]);
    expect(said).toEqual(['no handoff command for this session']);
  });
});
