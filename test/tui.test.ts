/**
 * The live table as a user meets it: the built `cctop` running in a real terminal (tmux), driven
 * by keystrokes and read back from the screen. The history is the demo's sessions and one the real
 * Claude Code wrote in the lab. Skipped, saying why, when tmux is missing.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeHome, jsonl, REPO } from '../src/test-support/corpus.js';
import {
  addClaude,
  addCodex,
  DEMO_CODEX,
  DEMO_HOME,
  DEMO_WITH_SUBAGENT,
  labTranscript,
} from '../src/test-support/owned.js';
import { unless, WHY } from '../src/test-support/skips.js';

const CLI = join(REPO, 'dist', 'cli.js');
const HAVE_TMUX = spawnSync('tmux', ['-V']).status === 0;

const SOCKET = `cctop-test-${process.pid}`;
const WIDTH = 160;
const HEIGHT = 40;
/** How long a screen may take to show what a step expects (a cold scan on a busy 2-core machine). */
const PATIENCE_MS = 30_000;

const tmux = (...args: string[]) =>
  spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8', timeout: 10_000 });
const screen = (): string[] => tmux('capture-pane', '-p', '-t', 'tui').stdout.split('\n');
const keys = (...k: string[]) => tmux('send-keys', '-t', 'tui', ...k);
const typed = (text: string) => tmux('send-keys', '-t', 'tui', '-l', text);

/** Wait until the screen satisfies `ok`; fail with the screen as it last was. */
async function until(what: string, ok: (lines: string[]) => boolean): Promise<string[]> {
  const deadline = Date.now() + PATIENCE_MS;
  let lines = screen();
  while (!ok(lines)) {
    if (Date.now() > deadline) throw new Error(`the screen never showed ${what}:\n${lines.join('\n')}`);
    await new Promise((r) => setTimeout(r, 150));
    lines = screen();
  }
  return lines;
}

/** The table's rows: the lines between the header and the panel tabs. */
function tableRows(lines: string[]): string[] {
  const header = lines.findIndex((l) => l.includes('PROJECT · TITLE'));
  const tabs = lines.findIndex((l) => l.startsWith('─ '));
  return lines.slice(header + 1, tabs < 0 ? undefined : tabs).filter((l) => l.trim().length > 0);
}

const DEMO_CLAUDE_DIR = join(DEMO_HOME, '.claude', 'projects');
/** The session the tests append to (the demo's docs session), under the id its records carry. */
const HEY_ID = 'f98c2860-e7f8-42c8-aee1-25d2bb382356';
/** What every record of that session carries, as the demo wrote it (Claude Code 2.1's shape). */
const HEY_RECORD = {
  cwd: '/home/sam/src/docs',
  sessionId: HEY_ID,
  version: '2.1.80',
  gitBranch: 'main',
  isSidechain: false,
  userType: 'external',
};
/** The lab's Claude Code run that called one tool (Bash), the session the filter finds. */
const LAB_CALL = labTranscript('claude', 'call');
/** How each session's row reads at this width (the project, then the start of the title). */
const TITLES = {
  hey: 'docs · Write a README section',
  button: 'webapp · The signup form double',
  auth: 'billing · Invoice parser rewrite',
  task: 'work · [lab:call] Follow the lab',
  codex: 'httpc · The HTTP client retries',
};

describe.skipIf(!HAVE_TMUX)(`cctop in a terminal${unless(HAVE_TMUX, WHY.tmux)}`, () => {
  let home: FakeHome;
  let hey: string;
  let agent: ChildProcess;

  beforeAll(() => {
    home = new FakeHome();
    hey = addClaude(home.dir, join(DEMO_CLAUDE_DIR, '-home-sam-src-docs', `${HEY_ID}.jsonl`));
    // A stand-in for the agent that resumed this session: a process named `claude` with the session
    // id on its command line, which is how cctop tells which process runs which session.
    mkdirSync(join(home.dir, 'bin'));
    const fake = join(home.dir, 'bin', 'claude');
    writeFileSync(fake, 'setInterval(() => {}, 60_000);\n');
    agent = spawn(process.execPath, [fake, '--resume', HEY_ID], { stdio: 'ignore' });
    addClaude(
      home.dir,
      join(DEMO_CLAUDE_DIR, '-home-sam-src-webapp', 'c2e6f295-9659-488f-a728-481824e8b02c.jsonl'),
    );
    addClaude(home.dir, DEMO_WITH_SUBAGENT);
    addClaude(home.dir, LAB_CALL, '-work-lab');
    addCodex(home.dir, DEMO_CODEX.find((f) => f.includes('019ac7fd-d1f6-74ea-81a6-b0113778a839'))!);
    // A budget of one cent a day: nothing is spent today until a test appends a request.
    const config = join(home.dir, 'config.toml');
    writeFileSync(config, '[[budget]]\nname = "tui-test"\nperiod = "day"\nusd = 0.01\n');
    // A shell that records the terminal's settings before and after, so the test can tell
    // whether cctop put the terminal back the way it found it.
    const env = Object.entries({
      ...home.env,
      CCTOP_CONFIG: config,
      // Its own runtime directory: runs other tests drive meanwhile must not show in this table.
      CCTOP_RUNTIME_DIR: join(home.dir, 'run'),
      PATH: process.env.PATH ?? '',
      TERM: 'xterm-256color',
    })
      .map(([k, v]) => `${k}='${v}'`)
      .join(' ');
    const script = join(home.dir, 'run.sh');
    writeFileSync(
      script,
      [
        `stty -g > '${home.dir}/stty.before'`,
        `env -i ${env} '${process.execPath}' '${CLI}'`,
        `echo "cctop exited with $?"`,
        `stty -g > '${home.dir}/stty.after'`,
        'exec sleep 600',
      ].join('\n'),
    );
    tmux('new-session', '-d', '-s', 'tui', '-x', String(WIDTH), '-y', String(HEIGHT), `sh '${script}'`);
  });

  afterAll(() => {
    agent?.kill();
    tmux('kill-server');
    home?.cleanup();
  });

  it('draws one row per session from real transcripts, all read as stopped', async () => {
    const lines = await until('the five sessions', (l) => tableRows(l).length >= 5);
    const rows = tableRows(lines);
    expect(rows).toHaveLength(5);
    for (const title of Object.values(TITLES)) expect(rows.join('\n')).toContain(title);
    // Nothing runs these sessions (the stand-in agent started long after the one it resumes was
    // last written), so every mark is the idle dot.
    expect(rows.every((r) => r.startsWith('·'))).toBe(true);
    expect(lines[0]).toMatch(/^cctop {2}hour \$/);
    expect(lines.every((l) => l.length <= WIDTH)).toBe(true);
    // The config's budget, with nothing spent today.
    await until('the budget in the header', (l) => l[0]?.includes('tui-test $0.00/$0.01 0%') === true);
  });

  it('narrows the rows to those matching a filter, and Esc brings them back', async () => {
    keys('/');
    typed('lab:call');
    keys('Enter');
    const narrowed = tableRows(await until('only the lab row', (l) => tableRows(l).length === 1));
    expect(narrowed[0]).toContain(TITLES.task);
    keys('Escape');
    await until('all rows again', (l) => tableRows(l).length === 5);
  });

  it('opens the panels for the selected row: the info and its tool activity', async () => {
    // Select the lab session with the filter, then keep it selected once the filter is cleared.
    keys('/');
    typed('lab:call');
    keys('Enter');
    await until('the lab session selected', (l) => l.some((x) => x.includes(basename(LAB_CALL))));
    keys('Right');
    // It ran one command, `echo lab-call-ok`, which succeeded.
    const tools = await until(
      'the tool activity panel',
      (l) => l.some((x) => x.includes('[Tool activity]')) && l.some((x) => /[✓✗] Bash\b/.test(x)),
    );
    expect(tools.some((l) => /✓ Bash/.test(l))).toBe(true);
    keys('Left');
    keys('Escape');
    await until('all rows again', (l) => tableRows(l).length === 5);
  });

  it('selects the row a mouse click lands on', async () => {
    const lines = screen();
    const y = lines.findIndex((l) => l.includes(TITLES.codex));
    // An SGR mouse press at column 5 of that screen line (1-based).
    typed(`\u001b[<0;5;${y + 1}M\u001b[<0;5;${y + 1}m`);
    await until('the codex session in the info panel', (l) => l.some((x) => x.includes('session    Codex ')));
  });

  it('moves a session that gets new activity to the top, as working', async () => {
    const before = tableRows(screen());
    expect(before.findIndex((r) => r.includes(TITLES.hey))).toBeGreaterThan(0);
    const now = new Date().toISOString();
    appendFileSync(
      hey,
      jsonl(
        {
          ...HEY_RECORD,
          parentUuid: null,
          type: 'user',
          message: { role: 'user', content: 'Run the tests again please' },
          uuid: '5a0d3a55-0000-4000-8000-000000000001',
          timestamp: now,
        },
        {
          ...HEY_RECORD,
          parentUuid: '5a0d3a55-0000-4000-8000-000000000001',
          type: 'assistant',
          requestId: 'req_cctop_tui_test',
          message: {
            model: 'claude-sonnet-4-5-20250929',
            id: 'msg_cctop_tui_test',
            type: 'message',
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'toolu_cctop_tui_test', name: 'Bash', input: { command: 'npm test' } },
            ],
            stop_reason: 'tool_use',
            usage: {
              input_tokens: 3,
              cache_creation_input_tokens: 10,
              cache_read_input_tokens: 40000,
              output_tokens: 20,
            },
          },
          uuid: '5a0d3a55-0000-4000-8000-000000000002',
          timestamp: now,
        },
      ),
    );
    const after = await until(
      'the appended session at the top',
      (l) => tableRows(l)[0]?.includes(TITLES.hey) === true,
    );
    // Working, now run by the stand-in agent (a filled mark), and its last activity is now.
    expect(tableRows(after)[0]).toMatch(/^● +\d+s /);
    keys('f');
    await until('the info panel on it', (l) => l.some((x) => x.includes(`${HEY_ID}.jsonl`)));
    const info = await until('its process', (l) => l.some((x) => x.includes(`pids ${agent.pid}`)));
    expect(info.join('\n')).toMatch(/state +working {2}pending Bash/);
  });

  it('shows in the header a budget that the new activity put over its limit', async () => {
    // The request appended above costs about a cent and a quarter at retail: past the one-cent budget.
    const lines = await until('the budget over its limit', (l) =>
      /tui-test \$0\.0\d\/\$0\.01 1\d\d%/.test(l[0] ?? ''),
    );
    // After the budgets, the Codex account's quota: its rollouts' windows have long since reset.
    expect(lines[0]).toMatch(
      /^cctop {2}hour \$.* {3}tui-test \$0\.0\d\/\$0\.01 1\d\d% {3}codex quota 5h stale · 7d stale {3}● /,
    );
  });

  it('marks a session that starts waiting on its user, and counts it in the overview', async () => {
    const now = new Date().toISOString();
    appendFileSync(
      hey,
      jsonl(
        {
          ...HEY_RECORD,
          parentUuid: '5a0d3a55-0000-4000-8000-000000000002',
          type: 'user',
          message: {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_cctop_tui_test', content: 'all 12 tests pass' },
            ],
          },
          uuid: '5a0d3a55-0000-4000-8000-000000000003',
          timestamp: now,
        },
        {
          ...HEY_RECORD,
          parentUuid: '5a0d3a55-0000-4000-8000-000000000003',
          type: 'assistant',
          requestId: 'req_cctop_tui_test_2',
          message: {
            model: 'claude-sonnet-4-5-20250929',
            id: 'msg_cctop_tui_test_2',
            type: 'message',
            role: 'assistant',
            content: [
              {
                type: 'tool_use',
                id: 'toolu_cctop_tui_test_2',
                name: 'AskUserQuestion',
                input: {
                  questions: [{ question: 'Ship it?', options: [{ label: 'yes' }, { label: 'no' }] }],
                },
              },
            ],
            stop_reason: 'tool_use',
            usage: {
              input_tokens: 3,
              cache_creation_input_tokens: 10,
              cache_read_input_tokens: 40100,
              output_tokens: 30,
            },
          },
          uuid: '5a0d3a55-0000-4000-8000-000000000004',
          timestamp: now,
        },
      ),
    );
    const lines = await until('the waiting mark', (l) => tableRows(l)[0]?.startsWith('◉') === true);
    expect(tableRows(lines)[0]).toContain(TITLES.hey);
    expect(lines[0]).toContain('▲ 1 waiting');
  });

  it('quits on q and gives the terminal back as it found it', async () => {
    keys('q');
    const lines = await until('the shell again', (l) => l.some((x) => x.includes('cctop exited with 0')));
    expect(lines.some((l) => l.includes('PROJECT · TITLE'))).toBe(false);
    await until('the settings written', () => {
      try {
        return readFileSync(join(home.dir, 'stty.after'), 'utf8').length > 0;
      } catch {
        return false;
      }
    });
    expect(readFileSync(join(home.dir, 'stty.after'), 'utf8')).toBe(
      readFileSync(join(home.dir, 'stty.before'), 'utf8'),
    );
  });
});
