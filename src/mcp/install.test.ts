import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chooseMcpAgents,
  installServer,
  type McpAgent,
  mcpSetup,
  removeServer,
  runsCctopServer,
  serverStatus,
} from './install.js';

/** cctop installed by npm, and the same cctop from where it was before it moved. */
const PROGRAM = ['/usr/bin/node', '/usr/lib/node_modules/cctop/dist/cli.js'];
const MOVED = ['/usr/bin/node', '/opt/old-prefix/lib/node_modules/cctop/dist/cli.js'];

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cctop-mcp-install-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const env = () => ({ HOME: home });
const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const read = (path: string) => readFileSync(path, 'utf8');
const setup = (agent: McpAgent, program = PROGRAM, e: Record<string, string> = env()) =>
  mcpSetup(agent, e, program);

function done<T>(a: { kind: 'done'; result: T } | { kind: 'refused'; why: string }): T {
  if (a.kind === 'refused') throw new Error(a.why);
  return a.result;
}

/**
 * Each agent's file as its own writer leaves it (trimmed), then by hand: Claude Code 2.1.328's
 * `~/.claude.json` with a server of the user's, Codex 0.169.0's config.toml with comments, a profile
 * table and no final newline, Gemini CLI 0.61.0's settings.json with comments and CRLF line ends.
 */
const USER_FILES: Record<McpAgent, string> = {
  claude: `${JSON.stringify(
    {
      firstStartTime: '2026-12-02T08:03:29.522Z',
      numStartups: 12,
      mcpServers: { github: { type: 'stdio', command: 'gh-mcp', args: [], env: { TOKEN: 'x' } } },
      projects: { '/work/app': { allowedTools: [], hasTrustDialogAccepted: true } },
    },
    null,
    2,
  )}\n`,
  codex: [
    '# my codex',
    'model = "o3"  # the default',
    '',
    '[profiles.fast]',
    'model = "o4-mini"',
    '',
    '[mcp_servers.docs]',
    'command = "docs-mcp"',
    "args = ['--port', '0']",
  ].join('\n'),
  gemini: [
    '{',
    '  // the theme I like',
    '  "ui": { "theme": "GitHub" },',
    '  "mcpServers": {',
    '    "fs": { "command": "fs-mcp", "args": [] }, // local files',
    '  },',
    '}',
  ].join('\r\n'),
};

const pathOf = (agent: McpAgent): string => setup(agent).target.path;

describe('cctop mcp install and remove', () => {
  for (const agent of ['claude', 'codex', 'gemini'] as const)
    it(`${agent}: install adds the server beside the user's, and remove gives the file back byte for byte`, () => {
      const path = pathOf(agent);
      write(path, USER_FILES[agent]);
      const s = setup(agent);
      const added = done(installServer(s));
      expect(added.outcome).toEqual({ kind: 'added' });
      expect(added.backup).toBe(`${path}.cctop.bak`);
      expect(read(added.backup!)).toBe(USER_FILES[agent]);
      const text = read(path);
      expect(text.startsWith(agent === 'codex' ? USER_FILES.codex : '')).toBe(true);
      const doc = agent === 'codex' ? parse(text) : null;
      if (agent === 'codex') {
        expect((doc as { mcp_servers: Record<string, unknown> }).mcp_servers.cctop).toEqual({
          command: '/usr/bin/node',
          args: ['/usr/lib/node_modules/cctop/dist/cli.js', 'mcp'],
        });
        expect(text).toContain(
          "args = ['--port', '0']\n\n[mcp_servers.cctop]\ncommand = \"/usr/bin/node\"\n",
        );
      } else expect(text).toContain('"cctop": {');
      expect(serverStatus(s)).toEqual({
        kind: 'done',
        result: { kind: 'ours', found: expect.anything(), current: true, displaced: null },
      });

      // A second install finds it as wanted and writes nothing.
      expect(done(installServer(s))).toEqual({ outcome: { kind: 'unchanged' }, wrote: null, backup: null });

      const removed = done(removeServer(s));
      expect(removed.outcome).toEqual({ kind: 'removed', restored: null });
      expect(read(path)).toBe(USER_FILES[agent]);
      expect(existsSync(`${path}.cctop.json`)).toBe(false);
      expect(done(removeServer(s)).outcome).toEqual({ kind: 'absent' });
    });

  it("claude: the entry is what Claude Code 2.1.328's own `claude mcp add --scope user` writes", () => {
    const s = setup('claude');
    done(installServer(s));
    const doc = JSON.parse(read(join(home, '.claude.json')));
    expect(doc).toEqual({
      mcpServers: {
        cctop: {
          type: 'stdio',
          command: '/usr/bin/node',
          args: ['/usr/lib/node_modules/cctop/dist/cli.js', 'mcp'],
          env: {},
        },
      },
    });
    // A file cctop made goes again, with nothing left beside it.
    done(removeServer(s));
    expect(readdirSync(home)).toEqual([]);
  });

  it('claude: with CLAUDE_CONFIG_DIR the server goes into .claude.json there', () => {
    const dir = join(home, 'cfg');
    const s = setup('claude', PROGRAM, { HOME: home, CLAUDE_CONFIG_DIR: dir });
    expect(s.target.path).toBe(join(dir, '.claude.json'));
    expect(s.home).toBe(dir);
  });

  it('gemini: an empty mcpServers object gets its inside back on remove', () => {
    const path = pathOf('gemini');
    const text = '{\n  "mcpServers": { }\n}\n';
    write(path, text);
    const s = setup('gemini');
    done(installServer(s));
    expect(JSON.parse(read(path)).mcpServers.cctop.command).toBe('/usr/bin/node');
    done(removeServer(s));
    expect(read(path)).toBe(text);
  });

  it('codex: a file without one makes a file that remove deletes again', () => {
    const s = setup('codex');
    done(installServer(s));
    expect(read(pathOf('codex'))).toBe(
      '[mcp_servers.cctop]\ncommand = "/usr/bin/node"\nargs = ["/usr/lib/node_modules/cctop/dist/cli.js", "mcp"]\n',
    );
    done(removeServer(s));
    expect(existsSync(pathOf('codex'))).toBe(false);
  });

  it("codex: remove takes the table's subtables too, and leaves the comments of what follows", () => {
    const path = pathOf('codex');
    write(path, 'model = "o3"\n');
    const s = setup('codex');
    done(installServer(s));
    write(path, `${read(path)}\n[mcp_servers.cctop.env]\nX = "1"\n\n# mine\n[other]\na = 1\n`);
    done(removeServer(s));
    expect(read(path)).toBe('model = "o3"\n\n# mine\n[other]\na = 1\n');
  });

  for (const agent of ['claude', 'codex', 'gemini'] as const)
    it(`${agent}: an entry of a cctop that moved is repointed, keeping what the user added beside it`, () => {
      const old = setup(agent, MOVED);
      done(installServer(old));
      const path = old.target.path;
      if (agent === 'codex') write(path, read(path).replace('\nargs', '\ntool_timeout_sec = 120\nargs'));
      else {
        const doc = JSON.parse(read(path));
        doc.mcpServers.cctop.timeout = 120000;
        write(path, `${JSON.stringify(doc, null, 2)}\n`);
      }
      const s = setup(agent);
      expect(serverStatus(s)).toMatchObject({ kind: 'done', result: { kind: 'ours', current: false } });
      const r = done(installServer(s));
      expect(r.outcome.kind).toBe('repointed');
      const now = agent === 'codex' ? parse(read(path)).mcp_servers : JSON.parse(read(path)).mcpServers;
      const entry = (now as Record<string, Record<string, unknown>>).cctop!;
      expect(entry.args).toEqual(['/usr/lib/node_modules/cctop/dist/cli.js', 'mcp']);
      expect(entry[agent === 'codex' ? 'tool_timeout_sec' : 'timeout']).toBe(
        agent === 'codex' ? 120 : 120000,
      );
      expect(done(removeServer(s)).outcome.kind).toBe('removed');
    });

  for (const agent of ['claude', 'codex', 'gemini'] as const)
    it(`${agent}: a server of someone else's named cctop is left alone, by install and by remove`, () => {
      const path = pathOf(agent);
      const text =
        agent === 'codex'
          ? '[mcp_servers.cctop]\ncommand = "npx"\nargs = ["other-cctop-mcp"]\n'
          : '{"mcpServers": {"cctop": {"command": "npx", "args": ["other-cctop-mcp"]}}}';
      write(path, text);
      const s = setup(agent);
      expect(done(installServer(s)).outcome).toEqual({
        kind: 'foreign',
        found: { command: 'npx', args: ['other-cctop-mcp'] },
      });
      expect(done(removeServer(s)).outcome.kind).toBe('foreign');
      expect(read(path)).toBe(text);
      expect(existsSync(`${path}.cctop.bak`)).toBe(false);
    });

  it('a file that does not read is refused with its place, and left as it is', () => {
    write(pathOf('claude'), '{"mcpServers": {');
    write(pathOf('codex'), 'model = \n');
    for (const agent of ['claude', 'codex'] as const) {
      const r = installServer(setup(agent));
      expect(r.kind).toBe('refused');
      if (r.kind === 'refused') expect(r.why).toContain(pathOf(agent));
      expect(existsSync(`${pathOf(agent)}.cctop.bak`)).toBe(false);
    }
    expect(read(pathOf('codex'))).toBe('model = \n');
  });

  it('mcpServers that is not an object is refused, not replaced', () => {
    write(pathOf('gemini'), '{"mcpServers": []}');
    const r = installServer(setup('gemini'));
    expect(r).toMatchObject({ kind: 'refused', why: expect.stringContaining('mcpServers is not an object') });
  });

  it('codex: a server written inline is found, but not rewritten by hand-made text edits', () => {
    write(
      pathOf('codex'),
      `mcp_servers = { cctop = { command = "${MOVED[0]}", args = ["${MOVED[1]}", "mcp"] } }\n`,
    );
    const r = installServer(setup('codex'));
    expect(r).toMatchObject({
      kind: 'refused',
      why: expect.stringContaining('not written as a [mcp_servers.cctop] table'),
    });
  });
});

describe('which agents and which entries', () => {
  it('without --agent, only the agents whose directory is there', () => {
    mkdirSync(join(home, '.codex'));
    const { setups, skipped } = chooseMcpAgents(env(), PROGRAM, null);
    expect(setups.map((s) => s.agent)).toEqual(['codex']);
    expect(skipped.map((s) => s.agent)).toEqual(['claude', 'gemini']);
  });

  it("a server is cctop's by its program, whichever install place, and only when it runs `mcp`", () => {
    expect(runsCctopServer({ command: '/usr/local/bin/cctop', args: ['mcp'] }, PROGRAM)).toBe(true);
    expect(runsCctopServer({ command: MOVED[0], args: [MOVED[1], 'mcp'] }, PROGRAM)).toBe(true);
    expect(runsCctopServer({ command: '/usr/local/bin/cctop', args: ['serve'] }, PROGRAM)).toBe(false);
    expect(runsCctopServer({ command: 'npx', args: ['mcp'] }, PROGRAM)).toBe(false);
    expect(
      runsCctopServer({ command: '/home/me/src/app/dist/cli.js', args: ['mcp'] }, [
        '/home/me/src/app/dist/cli.js',
      ]),
    ).toBe(true);
  });
});
