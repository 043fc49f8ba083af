import { spawn } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/corpus.js';
import { type AgentProcess, agentOf, matchSessions, ProcessTable, sessionArg } from './processes.js';

const agent = (over: Partial<AgentProcess>): AgentProcess => ({
  provider: 'claude',
  pid: 100,
  tree: [100],
  startMs: Date.parse('2026-11-29T10:00:00Z'),
  cwd: '/w/app',
  argv: ['claude'],
  sessionArg: null,
  cpu: 0,
  rssBytes: 0,
  ...over,
});
const at = (iso: string) => Date.parse(iso);

describe('recognising agent processes', () => {
  it('knows Claude Code and Codex however they were launched, and nothing else', () => {
    expect(agentOf(['claude', '--resume', 'x'])).toBe('claude');
    expect(agentOf(['/home/u/.local/share/claude/versions/2.1.80'])).toBe('claude');
    expect(agentOf(['node', '/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js'])).toBe('claude');
    expect(agentOf(['/usr/local/bin/codex', 'resume', 'x'])).toBe('codex');
    expect(agentOf(['node', '/opt/bin/codex'])).toBe('codex');
    expect(agentOf(['codex-linux-sandbox'])).toBeNull();
    expect(agentOf(['vim', 'claude.md'])).toBeNull();
  });

  it('reads a session id off the command line, in every spelling', () => {
    const id = '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f';
    expect(sessionArg('claude', ['claude', '--resume', id])).toBe(id);
    expect(sessionArg('claude', ['claude', `--resume=${id}`])).toBe(id);
    expect(sessionArg('claude', ['claude', '-r', id])).toBe(id);
    expect(sessionArg('codex', ['codex', 'resume', id])).toBe(id);
    expect(sessionArg('claude', ['claude', '--resume', 'not-an-id'])).toBeNull();
  });
});

describe('pairing processes with sessions', () => {
  it('the exact id on the command line wins, when that session is still being written', () => {
    const m = matchSessions(
      [agent({ sessionArg: 's1', pid: 7 })],
      [
        { provider: 'claude', id: 's1', project: '/elsewhere', lastActiveMs: at('2026-11-29T10:05:00Z') },
        { provider: 'claude', id: 's2', project: '/w/app', lastActiveMs: at('2026-11-29T10:06:00Z') },
      ],
    );
    expect(m.get('claude\u0000s1')?.pid).toBe(7);
    expect(m.has('claude\u0000s2')).toBe(false);
  });

  it('by directory, the newest sessions go with the newest processes, and a session older than the process is not its', () => {
    const m = matchSessions(
      [
        agent({ pid: 1, startMs: at('2026-11-29T09:00:00Z') }),
        agent({ pid: 2, startMs: at('2026-11-29T10:00:00Z') }),
      ],
      [
        { provider: 'claude', id: 'old', project: '/w/app', lastActiveMs: at('2026-11-28T10:00:00Z') },
        { provider: 'claude', id: 'a', project: '/w/app', lastActiveMs: at('2026-11-29T10:30:00Z') },
        { provider: 'claude', id: 'b', project: '/w/app', lastActiveMs: at('2026-11-29T09:30:00Z') },
      ],
    );
    expect(m.get('claude\u0000a')?.pid).toBe(2);
    expect(m.get('claude\u0000b')?.pid).toBe(1);
    expect(m.has('claude\u0000old')).toBe(false);
  });

  it('a process of one harness never runs a session of another', () => {
    const m = matchSessions(
      [agent({ provider: 'codex' })],
      [{ provider: 'claude', id: 'a', project: '/w/app', lastActiveMs: at('2026-11-29T10:30:00Z') }],
    );
    expect(m.size).toBe(0);
  });
});

/** How long the stand-in agent may take to start its child on a loaded machine. */
const START_BUDGET_MS = 20_000;

describe.skipIf(process.platform !== 'linux')(
  `a real process on this machine${process.platform !== 'linux' ? ' (skipped: /proc is Linux only)' : ''}`,
  () => {
    it('a running `claude` is found with its cwd, its session argument and its process tree', async () => {
      const t = tempDir();
      try {
        const bin = join(t.dir, 'claude');
        // A stand-in agent: it starts a child (as a real agent starts shells) and waits.
        writeFileSync(
          bin,
          `#!${process.execPath}\nrequire('child_process').spawn(process.execPath, ['-e', 'setTimeout(()=>{}, 60000)'], { stdio: 'ignore' });\nsetTimeout(() => {}, 60000);\n`,
        );
        chmodSync(bin, 0o755);
        const id = '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f';
        const child = spawn(bin, ['--resume', id], { cwd: t.dir, stdio: 'ignore', detached: true });
        try {
          // Wait for the stand-in to have started its own child (a loaded machine takes its time),
          // then look once more with a table of our own.
          const deadline = Date.now() + START_BUDGET_MS;
          const started = () =>
            (new ProcessTable().agents()?.find((a) => a.pid === child.pid)?.tree.length ?? 0) >= 2;
          while (!started() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
          const table = new ProcessTable();
          const found = table.agents()!.find((a) => a.pid === child.pid);
          expect(found).toBeDefined();
          expect(found).toMatchObject({ provider: 'claude', cwd: t.dir, sessionArg: id });
          expect(found!.tree.length).toBeGreaterThanOrEqual(2);
          expect(found!.rssBytes).toBeGreaterThan(0);
          await new Promise((r) => setTimeout(r, 200));
          expect(table.agents()!.find((a) => a.pid === child.pid)!.cpu).not.toBeNull();
        } finally {
          process.kill(-child.pid!, 'SIGKILL');
        }
      } finally {
        t.cleanup();
      }
    });
  },
);
