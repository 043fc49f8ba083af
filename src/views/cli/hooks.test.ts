import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendJournal } from '../../hooks/journal.js';
import { HOOK_EVENT_VERSION } from '../../hooks/types.js';
import { runtimeDir } from '../../runtime/dir.js';
import { FakeHome } from '../../test-support/corpus.js';
import { paint } from './color.js';
import { hookDoctorLines } from './hooks.js';
import { type Io, main } from './main.js';

let home: FakeHome;
let out: string[];
let err: string[];
let io: Io;
beforeEach(() => {
  home = new FakeHome();
  out = [];
  err = [];
  io = {
    out: (s) => out.push(String(s)),
    err: (s) => err.push(s),
    isTty: false,
    columns: undefined,
    env: { ...home.env, NO_COLOR: '1', CCTOP_RUNTIME_DIR: join(home.dir, 'run') },
  };
});
afterEach(() => home.cleanup());

/** Claude Code's settings as a user has them, and a Codex home with its config. */
const CLAUDE = '{\n  "model": "opus",\n  "permissions": {\n    "allow": ["Bash(npm test:*)"]\n  }\n}\n';
const CODEX = 'model = "gpt-5.5"\nnotify = ["notify-send", "Codex"]\n';

function agentsInUse() {
  mkdirSync(join(home.dir, '.claude'), { recursive: true });
  writeFileSync(join(home.dir, '.claude', 'settings.json'), CLAUDE);
  mkdirSync(join(home.dir, '.codex'), { recursive: true });
  writeFileSync(join(home.dir, '.codex', 'config.toml'), CODEX);
}

describe('cctop hooks', () => {
  it('installs into the agents used here, says which it skipped, and remove leaves their files as they were', async () => {
    agentsInUse();
    expect(await main(['hooks', 'install'], io)).toBe(0);
    const said = out.join('\n');
    expect(said).toMatch(/Claude Code\n {2}~\/\.claude\/settings\.json: added 17 hooks/);
    expect(said).toMatch(/~\/\.codex\/config\.toml: added 1 hook \(notify\)/);
    expect(said).toMatch(/trust them/);
    expect(said).toMatch(/Skipped: Gemini CLI \(no ~\/\.gemini\)/);
    expect(existsSync(join(home.dir, '.gemini'))).toBe(false);

    out = [];
    expect(await main(['hooks', 'remove'], io)).toBe(0);
    expect(readFileSync(join(home.dir, '.claude', 'settings.json'), 'utf8')).toBe(CLAUDE);
    expect(readFileSync(join(home.dir, '.codex', 'config.toml'), 'utf8')).toBe(CODEX);
    expect(existsSync(join(home.dir, '.codex', 'hooks.json'))).toBe(false);
  });

  it('--approvals makes Claude Code’s permission hook hold (its timeout above the hold); a plain install makes it watch again', async () => {
    agentsInUse();
    const permissionHook = () =>
      (
        JSON.parse(readFileSync(join(home.dir, '.claude', 'settings.json'), 'utf8')) as {
          hooks: { PermissionRequest: { hooks: { command: string; timeout: number }[] }[] };
        }
      ).hooks.PermissionRequest.map((g) =>
        g.hooks.map((h) => [h.command.slice(h.command.indexOf(' hook ') + 1), h.timeout]),
      );
    expect(await main(['hooks', 'install', '--agent', 'claude,codex', '--approvals'], io)).toBe(0);
    expect(permissionHook()).toEqual([[['hook claude PermissionRequest --hold 600', 630]]]);
    expect(out.join('\n')).toContain(
      '  permission requests wait up to 600 s for an answer from cctop (cctop approve, the table, the dashboard); its own dialog answers too',
    );
    expect(out.join('\n')).toContain(
      '  its hooks cannot answer a permission request from cctop: they only watch (docs/act.md says why)',
    );
    out = [];
    expect(await main(['hooks', 'status', '--agent', 'claude'], io)).toBe(0);
    expect(out[0]).toMatch(/^Claude Code: installed/);
    expect(out).toContain(
      '    PermissionRequest holds each request up to 600 s for an answer from cctop (docs/act.md)',
    );
    expect(await main(['hooks', 'install', '--agent', 'claude'], io)).toBe(0);
    expect(permissionHook()).toEqual([[['hook claude PermissionRequest', 10]]]);
    expect(await main(['hooks', 'remove', '--agent', 'claude'], io)).toBe(0);
    expect(readFileSync(join(home.dir, '.claude', 'settings.json'), 'utf8')).toBe(CLAUDE);
  });

  it('reports what is installed and the last event each agent sent', async () => {
    agentsInUse();
    await main(['hooks', 'install', '--agent', 'claude'], io);
    const dir = runtimeDir(io.env);
    if (dir.kind !== 'ok') throw new Error(dir.why);
    appendJournal(dir.path, {
      v: HOOK_EVENT_VERSION,
      at: Date.now() - 120_000,
      agent: 'claude',
      event: 'Stop',
      session: '5d1c9a0e-2f5b-4c34-9d0b-7a4c1f2e8b11',
      cwd: '/home/me/app',
      notification: null,
      tool: null,
      permissionMode: null,
      transcript: null,
      input: null,
      ppid: null,
    });
    out = [];
    expect(await main(['hooks', 'status'], io)).toBe(0);
    const said = out.join('\n');
    expect(said).toMatch(/Claude Code: installed; last event Stop 2m ago, session 5d1c9a0e/);
    expect(said).toMatch(/Codex: not installed .*no event has arrived yet/);

    out = [];
    expect(await main(['hooks', 'status', '--json', '--agent', 'claude'], io)).toBe(0);
    const doc = JSON.parse(out.join(''));
    expect(doc.agents[0]).toMatchObject({
      agent: 'claude',
      state: 'installed',
      lastEvent: { event: 'Stop' },
    });
    expect(doc.agents[0].parts[0].current).toHaveLength(17);
  });

  it('reports a file it cannot read and carries on with the other agents (exit 1)', async () => {
    agentsInUse();
    writeFileSync(join(home.dir, '.claude', 'settings.json'), '{"model": "opus",,}');
    expect(await main(['hooks', 'install'], io)).toBe(1);
    expect(err.join('\n')).toMatch(/settings\.json:1:\d+: not valid JSON/);
    expect(out.join('\n')).toMatch(/config\.toml: added 1 hook/);
  });

  it('says which agents have no project settings for --scope project', async () => {
    expect(await main(['hooks', 'status', '--scope', 'project', '--agent', 'claude,gemini'], io)).toBe(0);
    expect(out.join('\n')).toMatch(
      /Skipped: Gemini CLI \(cctop installs Gemini CLI's hooks for the user only/,
    );
  });

  it('refuses an agent it does not know, suggesting the nearest', async () => {
    expect(await main(['hooks', 'install', '--agent', 'cladue'], io)).toBe(2);
    expect(err.join('\n')).toMatch(/--agent cladue: .*did you mean claude\?/);
    expect(await main(['hooks', 'instal'], io)).toBe(2);
  });

  it('gives doctor one line per agent used here: installed or not, and the last event', async () => {
    agentsInUse();
    await main(['hooks', 'install', '--agent', 'claude'], io);
    const lines = hookDoctorLines(io.env, paint(false, io.env));
    expect(lines[0]).toBe('Hooks');
    expect(lines.join('\n')).toMatch(
      /Claude Code: installed; no event has arrived yet \(~\/\.claude\/settings\.json\)/,
    );
    expect(lines.join('\n')).toMatch(/Codex: not installed \(cctop hooks install\)/);
    expect(lines.join('\n')).not.toMatch(/Gemini/);
  });
});
