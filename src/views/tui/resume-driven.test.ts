import { describe, expect, it } from 'vitest';
import { withDriven } from '../../live/driven-doc.js';
import type { SessionDocument } from '../../model/document.js';
import type { RunSnapshot } from '../../model/driven-run.js';
import { resumeCommand } from './panels.js';

const empty = { sessions: [], problems: [] } as unknown as SessionDocument;

const run = (session: string | null): RunSnapshot => ({
  id: 'r1',
  agent: 'claude',
  harness: 'claude',
  program: 'bot',
  pid: 1,
  cwd: '/w',
  model: null,
  session,
  startedAtMs: 0,
  phase: 'working',
  tool: null,
  toolCalls: 0,
  toolFailures: 0,
  tokens: null,
  costUsd: null,
  pending: [],
  answered: null,
  remote: false,
  end: null,
});

describe('the resume line of a driven run', () => {
  it('a run that has not named its session offers no resume command, never `claude --resume driven:<id>`', () => {
    const [row] = withDriven(empty, [run(null)]).sessions;
    expect(row!.id).toBe('driven:r1');
    expect(resumeCommand(row!)).toBeNull();
  });

  it('a run that named its session resumes that session', () => {
    const [row] = withDriven(empty, [run('s1')]).sessions;
    expect(resumeCommand(row!)).toBe('cd /w && claude --resume s1');
  });
});
