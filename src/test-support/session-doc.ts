/**
 * A session's document as a live view holds it, with every field filled as a busy Claude Code session
 * has it, for tests of what reads documents (the alerts) that change one or two fields at a time.
 *
 * Not here: documents built from real transcripts (the index's own tests).
 */
import type { SessionDoc, SessionDocument } from '../model/document.js';
import { totalsOf } from '../model/totals.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
/** 10:30 UTC, half an hour into the current clock hour. */
export const T0 = Date.parse('2026-03-10T10:30:00Z');

export function sessionDoc(id: string, over: Partial<SessionDoc> = {}): SessionDoc {
  return {
    provider: 'claude',
    id,
    file: `/home/u/.claude/projects/-w/${id}.jsonl`,
    deleted: false,
    subagentFiles: 0,
    project: '/home/u/src/app',
    title: `the ${id} task`,
    branch: 'main',
    model: 'claude-sonnet-4-5-20250929',
    models: ['claude-sonnet-4-5-20250929'],
    reasoningEffort: null,
    permissionMode: 'default',
    permission: 'ask',
    startedAt: new Date(T0 - HOUR).toISOString(),
    lastActiveAt: new Date(T0 - MINUTE).toISOString(),
    state: 'working',
    stateDetail: null,
    stateSource: 'inferred',
    running: true,
    process: null,
    pendingTool: null,
    inferred: null,
    tokens: { input: 10, output: 2000, cacheRead: 300_000, cacheWrite: 20_000, reasoning: null },
    requests: 12,
    cost: {
      usd: 1.25,
      source: 'estimated',
      included: false,
      unpriced: [],
      byModel: [],
      byHour: null,
      byDay: null,
    },
    context: { used: 80_000, window: 200_000, compactAt: 167_000 },
    tools: { calls: 9, failed: 0, byTool: {} },
    lines: { added: null, removed: null },
    compactions: 0,
    aborts: 0,
    rateLimits: null,
    ...over,
  };
}

export const docAt = (sessions: SessionDoc[], atMs: number): SessionDocument => ({
  version: 1,
  generatedAt: new Date(atMs).toISOString(),
  plan: 'retail',
  timeZone: 'UTC',
  sessions,
  problems: [],
  totals: totalsOf(sessions),
});
