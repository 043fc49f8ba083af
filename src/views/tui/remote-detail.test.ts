/**
 * The panels of another machine's row (`--host`): what the open panel needs is fetched over ssh
 * (here a stand-in ssh that answers as the remote cctop would), once, with "fetching from H…" until
 * it lands, the fix when it fails, and nothing fetched for the panels that need only the row.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { remoteSession } from '../../hosts/remote-doc.js';
import type { SessionDoc } from '../../model/document.js';
import { totalsOf } from '../../model/totals.js';
import { tempDir } from '../../test-support/corpus.js';
import { remoteChat, standInSsh } from '../../test-support/stand-in-ssh.js';
import { PLAIN } from '../cli/color.js';
import { panelLines } from './panels.js';
import { RemoteDetails } from './remote-detail.js';
import { initialView, keyOf, type Panel, type ViewState } from './state.js';

const HOST = { name: 'devbox', cctop: '/opt/cctop' };
const NOW = Date.parse('2026-12-01T12:00:00Z');

/** `chat --json` and `report --json` as cctop 0.1.0 prints them for this session (trimmed). */
const CHAT = remoteChat('make the tests pass', 4);
const REPORT = {
  version: 1,
  session: { provider: 'claude', id: 's1', state: 'idle' },
  cost: { byModel: [], byDay: [], byHour: [] },
  context: {
    used: 1000,
    window: 200000,
    compactAt: 167000,
    compactions: [],
    series: [],
    breakdown: {
      window: 1000,
      startup: 400,
      toolOutput: 300,
      toolInput: 100,
      attachments: 0,
      user: 100,
      assistant: 50,
      unaccounted: 50,
    },
  },
  tools: {
    calls: 12,
    failed: 3,
    byTool: [{ name: 'Bash', calls: 9, failed: 3 }],
    failures: [
      { tool: 'Bash', detail: 'npm test', argument: 'npm test', count: 3, lastAt: null, samples: [] },
    ],
    slowest: [],
    heaviest: [],
    dropped: 0,
  },
  files: [],
  subagents: [],
  problems: [],
};

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('cctop-remote-detail-'));
});
afterEach(() => cleanup());

/**
 * A stand-in ssh: notes each run in `runs`, waits for `go` to exist (so a test sees the fetch in
 * flight), then answers `report` or `chat` as the remote cctop would, or fails as `fail` says.
 */
function reach(fail?: { code: number; stderr: string }): RemoteDetails {
  writeFileSync(join(dir, 'chat'), JSON.stringify(CHAT));
  writeFileSync(join(dir, 'report'), JSON.stringify(REPORT));
  const env = standInSsh(dir, [
    `echo "$@" >> '${dir}/runs'`,
    `while [ ! -e '${dir}/go' ]; do sleep 0.05; done`,
    fail
      ? `echo '${fail.stderr}' >&2; exit ${fail.code}`
      : `case "$*" in *' report '*) cat '${dir}/report' ;; *) cat '${dir}/chat' ;; esac`,
  ]);
  return new RemoteDetails({
    env,
    spec: (name) => (name === HOST.name ? HOST : null),
    args: ['--plan', 'retail'],
  });
}

/** The command lines of live processes holding `needle` (Linux /proc). */
function processesWith(needle: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      if (cmd.includes(needle)) found.push(cmd);
    } catch {
      // Gone since the listing.
    }
  }
  return found;
}

/** Wait until `ok`, failing with `what` if it never comes (the machine may be slow: a generous bound). */
async function until(what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`never saw ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const runs = (): string[] =>
  existsSync(join(dir, 'runs')) ? readFileSync(join(dir, 'runs'), 'utf8').trim().split('\n') : [];

function remoteRow(id = 's1'): SessionDoc {
  return {
    ...remoteSession({ provider: 'claude', id, state: 'idle', title: `task ${id}` })!,
    host: HOST.name,
  };
}

function view(rows: SessionDoc[], panel: Panel): ViewState {
  const v = initialView(new Set());
  v.doc = {
    version: 1,
    generatedAt: new Date(NOW).toISOString(),
    plan: 'retail',
    timeZone: 'UTC',
    sessions: rows,
    problems: [],
    totals: totalsOf(rows),
  };
  v.selected = keyOf(rows[0]!);
  v.panel = panel;
  return v;
}

/** Load the detail of the selected row as the table does on each draw; resolves when a part lands. */
function open(r: RemoteDetails, v: ViewState): Promise<void> {
  const s = v.doc!.sessions.find((x) => keyOf(x) === v.selected)!;
  return new Promise((landed) => r.load(v, s, s.host!, landed));
}

const panel = (v: ViewState) => panelLines(v, v.doc!.sessions[0]!, PLAIN, 120, NOW).join('\n');

describe('the panels of another machine’s session', () => {
  it('the Chat panel says it is fetching, then shows the conversation from that machine', async () => {
    const r = reach();
    const v = view([remoteRow()], 'chat');
    const landed = open(r, v);
    expect(panel(v)).toBe('  fetching from devbox…');
    // Redrawn while it is on its way: still one run.
    void open(r, v);
    writeFileSync(join(dir, 'go'), '');
    await landed;
    expect(panel(v)).toContain('#4 you make the tests pass');
    expect(runs()).toEqual([
      expect.stringMatching(/env CCTOP_HOSTS= \/opt\/cctop chat --json --plan retail -- s1$/),
    ]);
  });

  it('the Tools and Context panels draw the report fetched from that machine', async () => {
    const r = reach();
    writeFileSync(join(dir, 'go'), '');
    const v = view([remoteRow()], 'tools');
    await open(r, v);
    expect(panel(v)).toContain('12 calls, 3 failed; fetched from devbox');
    expect(panel(v)).toMatch(/✗ 3× Bash npm test/);
    v.panel = 'context';
    // The report is fetched once for both panels.
    void open(r, v);
    expect(panel(v)).toMatch(/startup\s+400\s+measured/);
    expect(runs()).toHaveLength(1);
  });

  it('fetches nothing for the panels that need only the row', () => {
    const r = reach();
    for (const p of ['info', 'cost', 'collisions'] as const) void open(r, view([remoteRow()], p));
    expect(runs()).toEqual([]);
  });

  it('a fetch that fails shows the fix in the panel, and is not asked again until the row moves', async () => {
    const r = reach({ code: 255, stderr: 'me@devbox: Permission denied (publickey).' });
    writeFileSync(join(dir, 'go'), '');
    const v = view([remoteRow()], 'chat');
    await open(r, v);
    expect(panel(v)).toContain('ssh could not log in to devbox with a key');
    void open(r, v);
    expect(runs()).toHaveLength(1);
  });

  it('moving to another row stops the fetch of the one left and drops its answer', async () => {
    const r = reach();
    const v = view([remoteRow('s1'), remoteRow('s2')], 'chat');
    const first = () => processesWith(`${dir}/ssh`).some((c) => c.endsWith(' -- s1'));
    void open(r, v);
    await until('the first fetch to start', first);
    v.selected = keyOf(v.doc!.sessions[1]!);
    const second = open(r, v);
    // Its stand-in ssh would wait for `go` for ever: only being stopped ends it.
    await until('the first fetch to be stopped', () => !first());
    writeFileSync(join(dir, 'go'), '');
    await second;
    expect(v.detail).toMatchObject({
      kind: 'remote',
      key: keyOf(v.doc!.sessions[1]!),
      conversation: { kind: 'read' },
    });
    expect(runs().at(-1)).toMatch(/ -- s2$/);
  });
});
