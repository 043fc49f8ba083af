import { describe, expect, it } from 'vitest';
import type { SessionLiveFields } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import { processAnnotator, withoutProcesses } from './annotate.js';
import { type ProcessInfo, ProcessTable } from './processes.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const ID = '8a2518dd-ff41-4d5f-83a1-407b03598cc6';

/** A session whose files say it waits on its user, last written `ago` before now. */
function asking(provider: ProviderId, ago: number): SessionLiveFields {
  return {
    provider,
    id: ID,
    file: `/home/u/.claude/projects/-work-app/${ID}.jsonl`,
    project: '/work/app',
    lastActiveAt: new Date(NOW - ago).toISOString(),
    deleted: false,
    state: 'waiting',
    stateDetail: 'AskUserQuestion',
    stateSource: 'inferred',
    pendingTool: null,
    running: null,
    inferred: null,
    process: null,
  };
}

/** `claude --resume ID`, started just before the session was last written. */
const claudeFor = (s: SessionLiveFields): ProcessInfo => ({
  pid: 4242,
  ppid: 1,
  startMs: Date.parse(s.lastActiveAt!) - MINUTE,
  argv: ['claude', '--resume', ID],
  cwd: '/work/app',
  cpuSeconds: 0,
  rssBytes: 1 << 20,
});

const annotate = (sample: () => ProcessInfo[] | null) =>
  processAnnotator(new ProcessTable(sample), () => NOW);

describe('the process annotator settles who is waiting', () => {
  it('a Claude question 70 days old with no process running reads as idle', () => {
    const s = asking('claude', 70 * DAY);
    annotate(() => [])({ sessions: [s] });
    expect([s.running, s.state]).toEqual([false, 'idle']);
  });

  it('a Claude question whose process still runs stays waiting two days on', () => {
    const s = asking('claude', 2 * DAY);
    annotate(() => [claudeFor(s)])({ sessions: [s] });
    expect([s.running, s.state]).toEqual([true, 'waiting']);
  });

  it('a Claude question with no process keeps its grace of the working lapse', () => {
    const s = asking('claude', 5 * MINUTE);
    annotate(() => [])({ sessions: [s] });
    expect(s.state).toBe('waiting');
  });

  it('a harness cctop does not match to processes keeps its question a day, then lets it go', () => {
    const fresh = asking('amp', 2 * 60 * MINUTE);
    const old = asking('amp', 3 * DAY);
    annotate(() => [])({ sessions: [fresh, old] });
    expect([fresh.running, fresh.state, old.running, old.state]).toEqual([null, 'waiting', null, 'idle']);
  });

  it('a question that lapsed while its process was out of sight reopens when the process is seen', () => {
    const s = asking('claude', 2 * DAY);
    let seen: ProcessInfo[] = [];
    const a = annotate(() => seen);
    expect(a({ sessions: [s] })).toBe(true);
    expect(s.state).toBe('idle');
    seen = [claudeFor(s)];
    expect(a({ sessions: [s] })).toBe(true);
    expect(s.state).toBe('waiting');
  });

  it('a process table that cannot be read lets questions lapse by the day', () => {
    const s = asking('claude', 3 * DAY);
    annotate(() => null)({ sessions: [s] });
    expect([s.running, s.state]).toEqual([null, 'idle']);
  });

  it('the demo, which looks at no process, settles states by the same rule', () => {
    const fresh = asking('claude', 5 * MINUTE);
    const old = asking('claude', 70 * DAY);
    withoutProcesses(() => NOW)({ sessions: [fresh, old] });
    expect([fresh.state, old.state]).toEqual(['waiting', 'idle']);
  });
});
