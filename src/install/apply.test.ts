import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statuslineEntry } from '../statusline/install.js';
import { entryStatus, installEntry, removeEntry, type Target } from './apply.js';
import type { Entry } from './entry.js';
import { BACKUP_SUFFIX, InstallError } from './settings-file.js';
import { SIDECAR_SUFFIX } from './sidecar.js';
import { claudeSettings } from './targets.js';

const NEW = `/opt/new/node_modules/cctop/dist/cli.js statusline`;
const OLD = `/usr/lib/node_modules/cctop/dist/cli.js statusline`;
const CCUSAGE = { type: 'command', command: 'bun x ccusage statusline', padding: 0 };

/** A settings file as Claude Code 2.1 writes it (two-space indent, no final newline), trimmed. */
const CLAUDE_WROTE = `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": [
      "Bash(npm test:*)"
    ]
  },
  "model": "opus",
  "alwaysThinkingEnabled": true
}`;

let dir: string;
let target: Target;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cctop-install-'));
  target = { path: join(dir, 'settings.json'), syntax: 'json', label: 'Claude Code settings' };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const text = () => readFileSync(target.path, 'utf8');
const json = () => JSON.parse(text()) as Record<string, unknown>;
const write = (s: string) => writeFileSync(target.path, s);

describe('installing an entry', () => {
  it('adds the status line after every key it does not own, each kept in its place', () => {
    write(CLAUDE_WROTE);
    const done = installEntry(target, statuslineEntry(NEW), { replace: false });
    expect(done.outcome).toEqual({ kind: 'added' });
    expect(Object.keys(json())).toEqual([
      '$schema',
      'permissions',
      'model',
      'alwaysThinkingEnabled',
      'statusLine',
    ]);
    expect(json().statusLine).toEqual({ type: 'command', command: NEW, padding: 0 });
    // Laid out as the file was: two spaces, no final newline.
    expect(text().startsWith('{\n  "$schema"')).toBe(true);
    expect(text().endsWith('}')).toBe(true);
  });

  it('creates the settings file (and its directory) when there is none', () => {
    const t = { ...target, path: join(dir, 'fresh', 'settings.json') };
    expect(installEntry(t, statuslineEntry(NEW), { replace: false }).backup).toBeNull();
    expect(JSON.parse(readFileSync(t.path, 'utf8'))).toEqual({
      statusLine: { type: 'command', command: NEW, padding: 0 },
    });
  });

  it('keeps the file as it was before the write beside it, and keeps the file mode', () => {
    write(CLAUDE_WROTE);
    chmodSync(target.path, 0o600);
    const done = installEntry(target, statuslineEntry(NEW), { replace: false });
    expect(done.backup).toBe(`${target.path}${BACKUP_SUFFIX}`);
    expect(readFileSync(done.backup!, 'utf8')).toBe(CLAUDE_WROTE);
    expect(statSync(target.path).mode & 0o777).toBe(0o600);
    // The temporary file was renamed into place, not left beside it.
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('writes a linked settings file through its link, leaving the link in place', () => {
    const real = join(dir, 'dotfiles-settings.json');
    writeFileSync(real, CLAUDE_WROTE);
    symlinkSync(real, target.path);
    installEntry(target, statuslineEntry(NEW), { replace: false });
    expect(statSync(target.path).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(real, 'utf8')).statusLine.command).toBe(NEW);
    expect(readdirSync(dir).sort()).toEqual(
      [
        'dotfiles-settings.json',
        `dotfiles-settings.json${BACKUP_SUFFIX}`,
        `dotfiles-settings.json${SIDECAR_SUFFIX}`,
        'settings.json',
      ].sort(),
    );
  });

  it('does not write again an entry that is already as wanted', () => {
    write(CLAUDE_WROTE);
    installEntry(target, statuslineEntry(NEW), { replace: false });
    const before = text();
    rmSync(`${target.path}${BACKUP_SUFFIX}`);
    const again = installEntry(target, statuslineEntry(NEW), { replace: false });
    expect(again).toEqual({ outcome: { kind: 'unchanged' }, wrote: null, backup: null });
    expect(text()).toBe(before);
    expect(existsSync(`${target.path}${BACKUP_SUFFIX}`)).toBe(false);
  });

  it('repoints its own status line when cctop moved, keeping the padding the user set', () => {
    write(
      JSON.stringify({ model: 'opus', statusLine: { type: 'command', command: OLD, padding: 2 } }, null, 2),
    );
    const done = installEntry(target, statuslineEntry(NEW), { replace: false });
    expect(done.outcome.kind).toBe('repointed');
    expect(json()).toEqual({ model: 'opus', statusLine: { type: 'command', command: NEW, padding: 2 } });
  });

  it('knows the entry it recorded writing even when the path names no cctop (a checkout)', () => {
    write('{}');
    const checkout = '/home/dev/src/main/dist/cli.js statusline';
    installEntry(target, statuslineEntry(checkout), { replace: false });
    const done = installEntry(target, statuslineEntry(NEW), { replace: false });
    expect(done.outcome).toEqual({
      kind: 'repointed',
      from: { type: 'command', command: checkout, padding: 0 },
    });
  });

  it('refuses to replace a foreign status line without --replace, writing nothing', () => {
    const original = JSON.stringify({ statusLine: CCUSAGE }, null, 2);
    write(original);
    const done = installEntry(target, statuslineEntry(NEW), { replace: false });
    expect(done).toEqual({ outcome: { kind: 'foreign', found: CCUSAGE }, wrote: null, backup: null });
    expect(text()).toBe(original);
    expect(readdirSync(dir)).toEqual(['settings.json']);
  });

  it('replaces a foreign status line with --replace, and remove puts it back byte for byte', () => {
    const original = `${JSON.stringify({ model: 'opus', statusLine: CCUSAGE, theme: 'dark' }, null, 2)}\n`;
    write(original);
    const done = installEntry(target, statuslineEntry(NEW), { replace: true });
    expect(done.outcome).toEqual({ kind: 'replaced', displaced: CCUSAGE });
    expect(Object.keys(json())).toEqual(['model', 'statusLine', 'theme']);
    expect(entryStatus(target, statuslineEntry(NEW))).toMatchObject({
      kind: 'ours',
      current: true,
      displaced: CCUSAGE,
    });
    const removed = removeEntry(target, statuslineEntry(NEW));
    expect(removed.outcome).toEqual({ kind: 'removed', restored: CCUSAGE });
    expect(text()).toBe(original);
    expect(existsSync(`${target.path}${SIDECAR_SUFFIX}`)).toBe(false);
  });

  it('puts back a displaced status line even when its own was already taken out by hand', () => {
    write(JSON.stringify({ statusLine: CCUSAGE }));
    installEntry(target, statuslineEntry(NEW), { replace: true });
    write('{\n  "model": "opus"\n}\n');
    expect(removeEntry(target, statuslineEntry(NEW)).outcome).toEqual({
      kind: 'restored',
      restored: CCUSAGE,
    });
    expect(json()).toEqual({ model: 'opus', statusLine: CCUSAGE });
  });
});

describe('a file the installer cannot read', () => {
  it('is refused with its name and line, and left untouched byte for byte', () => {
    const broken = '{\n  "model": "opus",\n  "theme": "dark",,\n  "x": 1\n}\n';
    write(broken);
    let err: unknown = null;
    try {
      installEntry(target, statuslineEntry(NEW), { replace: false });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InstallError);
    expect((err as Error).message).toMatch(
      new RegExp(`^${target.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:\\d+: not valid JSON`),
    );
    expect((err as Error).message).toContain('nothing was changed');
    expect(text()).toBe(broken);
    expect(readdirSync(dir)).toEqual(['settings.json']);
  });

  it('is refused when it holds something other than an object', () => {
    write('[1, 2]');
    expect(() => installEntry(target, statuslineEntry(NEW), { replace: false })).toThrow(
      /does not hold a JSON object/,
    );
    expect(() => removeEntry(target, statuslineEntry(NEW))).toThrow(InstallError);
    expect(text()).toBe('[1, 2]');
  });

  it('refuses comments in plain JSON but reads them where the agent allows them', () => {
    const commented = '{\n  // mine\n  "model": "opus", /* kept in the backup */\n}\n';
    write(commented);
    expect(() => installEntry(target, statuslineEntry(NEW), { replace: false })).toThrow(
      /:2:3: not valid JSON/,
    );
    const jsonc: Target = { ...target, syntax: 'jsonc' };
    installEntry(jsonc, statuslineEntry(NEW), { replace: false });
    expect(json()).toEqual({ model: 'opus', statusLine: { type: 'command', command: NEW, padding: 0 } });
    // Comments do not survive a rewrite, but remove gives back the very file, comments and all.
    removeEntry(jsonc, statuslineEntry(NEW));
    expect(text()).toBe(commented);
  });
});

describe('removing an entry', () => {
  it('leaves exactly the original file after an install, whatever its layout', () => {
    const odd = '{\r\n    "n": 1.0,\r\n    "s": "caf\\u00e9"\r\n}';
    write(odd);
    installEntry(target, statuslineEntry(NEW), { replace: false });
    expect(text()).toContain('\r\n    "statusLine": {');
    removeEntry(target, statuslineEntry(NEW));
    expect(text()).toBe(odd);
  });

  it('keeps what the user changed since, taking out only its entry', () => {
    write(CLAUDE_WROTE);
    installEntry(target, statuslineEntry(NEW), { replace: false });
    write(text().replace('"model": "opus"', '"model": "sonnet"'));
    expect(removeEntry(target, statuslineEntry(NEW)).outcome).toEqual({ kind: 'removed', restored: null });
    expect(text()).toBe(CLAUDE_WROTE.replace('"model": "opus"', '"model": "sonnet"'));
  });

  it('leaves a foreign status line alone', () => {
    const original = JSON.stringify({ statusLine: CCUSAGE });
    write(original);
    expect(removeEntry(target, statuslineEntry(NEW)).outcome).toEqual({ kind: 'foreign', found: CCUSAGE });
    expect(text()).toBe(original);
  });

  it('writes nothing when there is nothing of its own', () => {
    write(CLAUDE_WROTE);
    expect(removeEntry(target, statuslineEntry(NEW))).toEqual({
      outcome: { kind: 'absent' },
      wrote: null,
      backup: null,
    });
    expect(readdirSync(dir)).toEqual(['settings.json']);
  });

  it('takes away the objects it made on the way to a nested entry, and only those', () => {
    const server: Entry = {
      path: ['mcpServers', 'cctop'],
      want: { command: 'cctop', args: ['mcp'] },
      isOurs: (v) => JSON.stringify(v).includes('"cctop"'),
      repoint: () => ({ command: 'cctop', args: ['mcp'] }),
      label: 'MCP server',
    };
    write('{"a":1}');
    installEntry(target, server, { replace: false });
    expect(json()).toEqual({ a: 1, mcpServers: { cctop: { command: 'cctop', args: ['mcp'] } } });
    write(JSON.stringify({ a: 2, mcpServers: { cctop: { command: 'cctop', args: ['mcp'] } } }));
    removeEntry(target, server);
    expect(json()).toEqual({ a: 2 });
    installEntry(target, server, { replace: false });
    const withOther = json();
    (withOther.mcpServers as Record<string, unknown>).other = { command: 'x' };
    write(JSON.stringify(withOther));
    removeEntry(target, server);
    expect(json()).toEqual({ a: 2, mcpServers: { other: { command: 'x' } } });
  });
});

describe("Claude Code's settings file", () => {
  it('is under $CLAUDE_CONFIG_DIR when set, else ~/.claude of the HOME given', () => {
    expect(claudeSettings({ HOME: '/home/u' }).path).toBe('/home/u/.claude/settings.json');
    expect(claudeSettings({ HOME: '/home/u', CLAUDE_CONFIG_DIR: '/cfg/claude' }).path).toBe(
      '/cfg/claude/settings.json',
    );
  });

  it('is read as plain JSON', () => {
    mkdirSync(join(dir, '.claude'));
    writeFileSync(join(dir, '.claude', 'settings.json'), '{ // no\n}');
    expect(() => entryStatus(claudeSettings({ HOME: dir }), statuslineEntry(NEW))).toThrow(
      /settings\.json:1:3/,
    );
  });
});
