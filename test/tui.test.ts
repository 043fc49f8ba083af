/**
 * The live table as a user meets it: the built `cctop` running in a real terminal (tmux), driven
 * by keystrokes and read back from the screen. The history is made of real transcripts from the
 * shared corpus. Skipped, with the reason printed, when tmux or the corpus is missing.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeHome, HAVE_CORPUS, jsonl, NO_CORPUS_REASON, REPO } from '../src/test-support/corpus.js';

const CLI = join(REPO, 'dist', 'cli.js');
const HAVE_TMUX = spawnSync('tmux', ['-V']).status === 0;
const NO_TMUX_REASON = 'tmux is not installed (apt-get install tmux); the live-table tests are skipped';
if (!HAVE_TMUX) console.warn(NO_TMUX_REASON);

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

const ready = HAVE_TMUX && HAVE_CORPUS;
/** The session the tests append to, under the id its records carry. */
const HEY_ID = 'cfa1e878-62b5-4e40-b281-bbf9b250d766';
/** What every record of that session carries, as Claude Code 2.0.14 wrote it. */
const HEY_RECORD = {
  cwd: '/Users/jnarowski/Dev/sourceborn/src/agent-workflows-monorepo-v2',
  sessionId: HEY_ID,
  version: '2.0.14',
  gitBranch: 'main',
  isSidechain: false,
  userType: 'external',
};
if (!HAVE_CORPUS) console.warn(NO_CORPUS_REASON);
/** How each session's row reads at this width (the project, then the start of the title). */
const TITLES = {
  hey: 'agent-workflows-monorepo-v2 · Hey',
  button: 'agent-workflows-monorepo-v2 · please',
  auth: 'agent-workflows-monorepo-v2 · Can you',
  task: 'happy-cli · Task Tool Web Search',
  codex: 'spectora-labs-monorepo-v2 · Quality',
};

describe.skipIf(!ready)('cctop in a terminal', () => {
  let home: FakeHome;
  let hey: string;
  let agent: ChildProcess;

  beforeAll(() => {
    home = new FakeHome();
    hey = home.claudeFromCorpus('agentcmd__full-session-three.jsonl', '-work-demo', HEY_ID);
    // A stand-in for the agent that resumed this session: a process named `claude` with the session
    // id on its command line, which is how cctop tells which process runs which session.
    mkdirSync(join(home.dir, 'bin'));
    const fake = join(home.dir, 'bin', 'claude');
    writeFileSync(fake, 'setInterval(() => {}, 60_000);\n');
    agent = spawn(process.execPath, [fake, '--resume', HEY_ID], { stdio: 'ignore' });
    home.claudeFromCorpus('agentcmd__full-session-two.jsonl');
    home.claudeFromCorpus('agent-workflows-v2__8f079ffe-995f-42ba-b089-84de56817b6f.jsonl');
    home.claudeFromCorpus('happy-cli__task_sdk.jsonl', '-work-happy');
    home.codexFromCorpus('agentcmd__rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl');
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
    typed('happy');
    keys('Enter');
    const narrowed = tableRows(await until('only the happy-cli row', (l) => tableRows(l).length === 1));
    expect(narrowed[0]).toContain(TITLES.task);
    keys('Escape');
    await until('all rows again', (l) => tableRows(l).length === 5);
  });

  it('opens the panels for the selected row: the info and its tool activity', async () => {
    // Select the happy-cli session with the filter, then keep it selected once the filter is cleared.
    keys('/');
    typed('happy');
    keys('Enter');
    await until('the happy-cli session selected', (l) =>
      l.some((x) => x.includes('happy-cli__task_sdk.jsonl')),
    );
    keys('Right');
    const tools = await until(
      'the tool activity panel',
      (l) => l.some((x) => x.includes('[Tool activity]') && true) && l.some((x) => /[✓✗] Task\b/.test(x)),
    );
    expect(tools.some((l) => /✓ WebSearch|✓ Task/.test(l))).toBe(true);
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
    expect(lines[0]).toMatch(/^cctop {2}hour \$.* {3}tui-test \$0\.0\d\/\$0\.01 1\d\d% {3}● /);
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
