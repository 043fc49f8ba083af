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
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InstallError } from '../../install/settings-file.js';
import { CODEX_HOOK_FILE_EVENTS } from '../../providers/codex/hooks.js';
import { agentHooks } from '../agents.js';
import type { HookAgent } from '../types.js';
import { type AgentSetup, agentSetup, type HookPart } from './agents.js';
import { hookCommand } from './command.js';

/** cctop installed by npm, and the same cctop from where it was before it moved. */
const PROGRAM = ['/usr/bin/node', '/usr/lib/node_modules/cctop/dist/cli.js'];
const MOVED = ['/usr/bin/node', '/opt/old-prefix/lib/node_modules/cctop/dist/cli.js'];

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cctop-hooks-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const env = () => ({ HOME: home });

/** The one JSON part of an agent (Codex: its hooks file, after `notify`). */
function jsonPart(agent: HookAgent): { part: HookPart; path: string; setup: AgentSetup } {
  const s = agentSetup(agent, env(), 'user', home);
  if (s.kind !== 'ok') throw new Error(s.why);
  const part = s.setup.parts.at(-1)!;
  return { part, path: part.status(PROGRAM).file, setup: s.setup };
}

/** The events an agent's JSON part holds (Codex's hooks file: all but `notify`). */
const eventsOf = (agent: HookAgent): readonly string[] =>
  agent === 'codex' ? CODEX_HOOK_FILE_EVENTS : agentHooks(agent).events;

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const read = (path: string) => readFileSync(path, 'utf8');

/**
 * Settings as each agent's own writer leaves them (trimmed), then by hand: comments where the agent
 * reads them, an odd indent, CRLF line ends, no final newline, and a hook of the user's on an event
 * cctop also uses.
 */
const USER_FILES: Record<Exclude<HookAgent, 'opencode'>, { version: string; text: string }> = {
  // Claude Code 2.1.328 writes two-space JSON; the user added a Stop hook of their own, and left no final newline.
  claude: {
    version: 'Claude Code 2.1.328',
    text: [
      '{',
      '   "$schema": "https://json.schemastore.org/claude-code-settings.json",',
      '   "permissions": { "allow": ["Bash(npm test:*)"], "deny": [] },',
      '   "hooks": {',
      '      "Stop": [',
      '         {"hooks": [{"type": "command", "command": "afplay /System/Library/Sounds/Glass.aiff"}]}',
      '      ],',
      '      "PreToolUse": []',
      '   },',
      '   "model": "opus"',
      '}',
    ].join('\r\n'),
  },
  codex: {
    version: 'Codex 0.169.0 (hooks.json as its docs show it)',
    text: [
      '{',
      '\t"hooks": {',
      '\t\t"PreToolUse": [',
      '\t\t\t{ "matcher": "^Bash$", "hooks": [ { "type": "command", "command": "/Users/me/bin/guard.sh", "timeout": 30 } ] }',
      '\t\t]',
      '\t}',
      '}',
      '',
    ].join('\n'),
  },
  gemini: {
    version: 'Gemini CLI 0.61.0',
    text: [
      '// my Gemini settings',
      '{',
      '    "security": { "auth": { "selectedType": "oauth-personal" } },',
      '    /* hooks I wrote */',
      '    "hooks": {',
      '        "AfterAgent": [',
      '            { "hooks": [ { "type": "command", "command": "notify-send done" } ] }, // ding',
      '        ],',
      '    },',
      '    "ui": { "theme": "GitHub" },',
      '}',
    ].join('\r\n'),
  },
  qwen: {
    version: 'Qwen Code 0.24.4',
    text: [
      '{',
      '  "$version": 4,',
      '  // the model I use',
      '  "model": { "name": "qwen3-coder-plus" },',
      '  "hooks": {',
      '    "PreToolUse": [',
      '      { "matcher": "run_shell_command", "hooks": [ { "type": "command", "command": "~/.qwen/guard.sh" } ] }',
      '    ]',
      '  },',
      '  "hooksConfig": { "notifications": true }',
      '}',
      '',
    ].join('\n'),
  },
  cursor: {
    version: 'Cursor (hooks.json, version 1)',
    text: '{"version": 1, "hooks": {"stop": [{"command": "./hooks/audit.sh"}]}}',
  },
};

const JSON_AGENTS = Object.keys(USER_FILES) as (keyof typeof USER_FILES)[];

describe.each(JSON_AGENTS)('%s: hooks in its JSON settings', (agent) => {
  it('installs every event into a file that was not there, and remove leaves no file', () => {
    const { part, path } = jsonPart(agent);
    const done = part.install(PROGRAM);
    expect(done.added).toEqual(eventsOf(agent));
    expect(part.status(PROGRAM).current).toEqual(done.added);
    const doc = JSON.parse(read(path));
    for (const event of done.added)
      expect(JSON.stringify(doc.hooks[event])).toContain(JSON.stringify(hookCommand(PROGRAM, agent, event)));
    expect(part.remove(PROGRAM).removed.sort()).toEqual([...done.added].sort());
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dirname(path))).toEqual([]);
  });

  it(`round-trips the user's own file byte for byte (${USER_FILES[agent].version}, edited by hand)`, () => {
    const { part, path } = jsonPart(agent);
    const original = USER_FILES[agent].text;
    write(path, original);
    const done = part.install(PROGRAM);
    expect(done.wrote).toBe(true);
    const after = read(path);
    // Nothing of the user's moved: the file before cctop's first addition is untouched.
    expect(
      after.startsWith(
        original.slice(0, original.indexOf('"hooks"') === -1 ? 1 : original.indexOf('"hooks"')),
      ),
    ).toBe(true);
    expect(after.includes('\r\n')).toBe(original.includes('\r\n'));
    expect(part.status(PROGRAM)).toMatchObject({ missing: [], stale: [], extra: [] });
    part.remove(PROGRAM);
    expect(read(path)).toBe(original);
  });

  it('keeps a hook of the user on the same event, and their hooks run first', () => {
    const { part, path } = jsonPart(agent);
    write(path, USER_FILES[agent].text);
    const userEvent =
      agent === 'cursor'
        ? 'stop'
        : agent === 'gemini'
          ? 'AfterAgent'
          : agent === 'claude'
            ? 'Stop'
            : 'PreToolUse';
    part.install(PROGRAM);
    const list = readList(path, agent, userEvent);
    expect(list).toHaveLength(2);
    expect(JSON.stringify(list[0])).not.toContain('cctop');
    expect(JSON.stringify(list[1])).toContain(JSON.stringify(hookCommand(PROGRAM, agent, userEvent)));
  });

  it('writes nothing on a second install', () => {
    const { part, path } = jsonPart(agent);
    write(path, USER_FILES[agent].text);
    part.install(PROGRAM);
    const once = read(path);
    rmSync(`${path}.cctop.bak`);
    const again = part.install(PROGRAM);
    expect(again).toMatchObject({ wrote: false, added: [], repointed: [], removed: [] });
    expect(read(path)).toBe(once);
    expect(existsSync(`${path}.cctop.bak`)).toBe(false);
  });

  it('repoints its hooks when cctop moved, touching only the commands', () => {
    const { part, path } = jsonPart(agent);
    write(path, USER_FILES[agent].text);
    part.install(MOVED);
    const moved = read(path);
    expect(part.status(PROGRAM)).toMatchObject({ current: [], stale: eventsOf(agent), gone: [MOVED[1]] });
    const done = part.install(PROGRAM);
    expect(done.repointed).toEqual(eventsOf(agent));
    expect(read(path)).toBe(moved.split(MOVED[1]!).join(PROGRAM[1]!));
    part.remove(PROGRAM);
    expect(read(path)).toBe(USER_FILES[agent].text);
  });

  it('refuses a file it cannot read, naming the line, and writes nothing', () => {
    const { part, path } = jsonPart(agent);
    const broken = '{\n  "model": "opus",\n  "theme": "dark" "hooks": {}\n}\n';
    write(path, broken);
    expect(() => part.install(PROGRAM)).toThrow(InstallError);
    expect(() => part.install(PROGRAM)).toThrow(/:3:\d+: not valid JSON/);
    expect(read(path)).toBe(broken);
    expect(readdirSync(dirname(path))).toEqual([path.split('/').at(-1)]);
    expect(part.status(PROGRAM).error).toMatch(/not valid JSON/);
  });

  it('refuses a hooks setting that is not what the agent reads, writing nothing', () => {
    const { part, path } = jsonPart(agent);
    const odd = '{\n  "hooks": ["not", "an", "object"]\n}\n';
    write(path, odd);
    expect(() => part.install(PROGRAM)).toThrow(/"hooks" is not an object/);
    expect(read(path)).toBe(odd);
  });
});

/** An event's list as the agent reads it. */
function readList(path: string, agent: HookAgent, event: string): unknown[] {
  const text = read(path);
  const body =
    agent === 'gemini' || agent === 'qwen'
      ? text.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, '').replace(/,(\s*[}\]])/g, '$1')
      : text;
  return JSON.parse(body).hooks[event];
}

describe('Claude Code hooks', () => {
  it('takes out only the lists and objects it made, leaving an empty list the user had', () => {
    const { part, path } = jsonPart('claude');
    const original = '{\n  "hooks": {\n    "Notification": [ ]\n  }\n}\n';
    write(path, original);
    part.install(PROGRAM);
    const doc = JSON.parse(read(path));
    expect(doc.hooks.Notification).toHaveLength(1);
    part.remove(PROGRAM);
    expect(read(path)).toBe(original);
  });

  it('keeps a file written on one line on one line, and a byte-order mark, both ways', () => {
    const { part, path } = jsonPart('claude');
    for (const original of ['{"model":"opus","hooks":{"Stop":[]}}', '\ufeff{\n  "model": "opus"\n}\n']) {
      write(path, original);
      part.install(PROGRAM);
      if (!original.includes('\n')) expect(read(path)).not.toContain('\n');
      expect(read(path).startsWith(original.slice(0, 10))).toBe(true);
      expect(part.status(PROGRAM).missing).toEqual([]);
      part.remove(PROGRAM);
      expect(read(path)).toBe(original);
    }
  });

  it('opens an empty hooks object of the user and gives it back as it was', () => {
    const { part, path } = jsonPart('claude');
    const original = '{\n  "hooks": { },\n  "model": "opus"\n}\n';
    write(path, original);
    part.install(PROGRAM);
    expect(Object.keys(JSON.parse(read(path)).hooks)).toEqual(agentHooks('claude').events);
    part.remove(PROGRAM);
    expect(read(path)).toBe(original);
  });

  it('removes its hooks by their command when the record beside the file is gone, keeping the lists', () => {
    const { part, path } = jsonPart('claude');
    write(path, '{"model": "opus"}');
    part.install(PROGRAM);
    rmSync(`${path}.cctop.json`);
    part.remove(PROGRAM);
    // Without the record, nothing says cctop made the lists: they stay, empty.
    const doc = JSON.parse(read(path));
    expect(doc.model).toBe('opus');
    expect(Object.values(doc.hooks).every((list) => Array.isArray(list) && list.length === 0)).toBe(true);
  });

  it('keeps what the user added since, when removing', () => {
    const { part, path } = jsonPart('claude');
    write(path, '{\n  "model": "opus"\n}\n');
    part.install(PROGRAM);
    const doc = JSON.parse(read(path));
    doc.hooks.Stop.push({ hooks: [{ type: 'command', command: 'say done' }] });
    doc.theme = 'dark';
    write(path, `${JSON.stringify(doc, null, 2)}\n`);
    part.remove(PROGRAM);
    expect(JSON.parse(read(path))).toEqual({
      model: 'opus',
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] },
      theme: 'dark',
    });
  });

  it("installs into a project's settings with --scope project", () => {
    const project = join(home, 'work', 'app');
    mkdirSync(project, { recursive: true });
    const s = agentSetup('claude', env(), 'project', project);
    expect(s.kind).toBe('ok');
    if (s.kind !== 'ok') return;
    s.setup.parts[0]!.install(PROGRAM);
    expect(Object.keys(JSON.parse(read(join(project, '.claude', 'settings.json'))).hooks)).toEqual(
      agentHooks('claude').events,
    );
  });

  it('says that Claude Code runs no hook when disableAllHooks is on', () => {
    const { part, path } = jsonPart('claude');
    write(path, '{"disableAllHooks": true}');
    part.install(PROGRAM);
    expect(part.status(PROGRAM).notes.join(' ')).toMatch(/disableAllHooks/);
  });
});

describe('agents without project settings here', () => {
  it('says so for --scope project', () => {
    const s = agentSetup('gemini', env(), 'project', home);
    expect(s).toMatchObject({ kind: 'unsupported', why: expect.stringMatching(/--scope user/) });
  });
});
