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
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InstallError } from '../../install/settings-file.js';
import { codexNotifyStatus, installCodexNotify, removeCodexNotify } from './codex-notify.js';

const PROGRAM = ['/usr/bin/node', '/usr/lib/node_modules/cctop/dist/cli.js'];
const MOVED = ['/usr/local/bin/cctop'];
const OURS = [...PROGRAM, 'hook', 'codex', 'notify'];

/**
 * A config.toml as Codex 0.169.0 leaves it after a few sessions (it writes the `[projects]` trust
 * tables itself), with the user's own comments, a notifier over several lines, and CRLF line ends.
 */
const USER_CONFIG = [
  '# Codex settings (mine)',
  'model = "gpt-5.5"',
  'model_reasoning_effort = "high"  # worth it',
  'notify = [',
  '  "terminal-notifier",',
  '  \'-title\', "Codex",  # shown on the banner',
  ']',
  '',
  '[projects."/home/me/src/app"]',
  'trust_level = "trusted"',
  '',
  '[mcp_servers.docs]',
  'command = "npx"',
  'args = ["-y", "docs-mcp"]',
  '',
].join('\r\n');

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cctop-codex-'));
  path = join(dir, 'config.toml');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const text = () => readFileSync(path, 'utf8');
const notify = () => parse(text()).notify;

describe("Codex's notify", () => {
  it('chains to the notifier the user had, and remove gives it back exactly as written', () => {
    writeFileSync(path, USER_CONFIG);
    const done = installCodexNotify(path, PROGRAM);
    expect(done.added).toEqual(['notify']);
    expect(notify()).toEqual([...OURS, '--then', 'terminal-notifier', '-title', 'Codex']);
    // Every other line, comment and table stays where it was.
    expect(text().replace(/notify = \[.*\]/, '')).toBe(USER_CONFIG.replace(/notify = \[[\s\S]*?\r\n\]/, ''));
    expect(codexNotifyStatus(path, PROGRAM)).toMatchObject({ current: ['notify'], missing: [] });
    removeCodexNotify(path, PROGRAM);
    expect(text()).toBe(USER_CONFIG);
  });

  it('adds a notify line after the last top-level key, before the first table, and takes it out again', () => {
    const original = '# mine\nmodel = "o3"\n\n[projects."/w"]\ntrust_level = "trusted"\n';
    writeFileSync(path, original);
    installCodexNotify(path, PROGRAM);
    expect(text()).toBe(
      `# mine\nmodel = "o3"\nnotify = ${JSON.stringify(OURS).replace(/","/g, '", "')}\n\n[projects."/w"]\ntrust_level = "trusted"\n`,
    );
    expect(parse(text()).projects).toEqual({ '/w': { trust_level: 'trusted' } });
    removeCodexNotify(path, PROGRAM);
    expect(text()).toBe(original);
  });

  it('keeps a file without a final newline without one', () => {
    const original = 'model = "o3"';
    writeFileSync(path, original);
    installCodexNotify(path, PROGRAM);
    expect(notify()).toEqual(OURS);
    removeCodexNotify(path, PROGRAM);
    expect(text()).toBe(original);
  });

  it('puts its line at the top of a file of tables only', () => {
    const original = '[tui]\nnotifications = true\n';
    writeFileSync(path, original);
    installCodexNotify(path, PROGRAM);
    expect(parse(text())).toEqual({ notify: OURS, tui: { notifications: true } });
    removeCodexNotify(path, PROGRAM);
    expect(text()).toBe(original);
  });

  it('makes config.toml when there is none, and remove leaves none', () => {
    installCodexNotify(path, PROGRAM);
    expect(parse(text())).toEqual({ notify: OURS });
    removeCodexNotify(path, PROGRAM);
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('writes nothing on a second install', () => {
    writeFileSync(path, USER_CONFIG);
    installCodexNotify(path, PROGRAM);
    const once = text();
    expect(installCodexNotify(path, PROGRAM)).toMatchObject({ wrote: false, added: [], repointed: [] });
    expect(text()).toBe(once);
  });

  it('repoints its entry when cctop moved, keeping the chained notifier', () => {
    writeFileSync(path, USER_CONFIG);
    installCodexNotify(path, MOVED);
    expect(codexNotifyStatus(path, PROGRAM)).toMatchObject({
      stale: ['notify'],
      gone: ['/usr/local/bin/cctop'],
    });
    expect(installCodexNotify(path, PROGRAM).repointed).toEqual(['notify']);
    expect(notify()).toEqual([...OURS, '--then', 'terminal-notifier', '-title', 'Codex']);
    removeCodexNotify(path, PROGRAM);
    expect(text()).toBe(USER_CONFIG);
  });

  it('gives back the notifier it displaced even when its own entry was taken out by hand', () => {
    writeFileSync(path, USER_CONFIG);
    installCodexNotify(path, PROGRAM);
    writeFileSync(path, text().replace(/notify = \[.*\]\r\n/, ''));
    removeCodexNotify(path, PROGRAM);
    expect(notify()).toEqual(['terminal-notifier', '-title', 'Codex']);
  });

  it('refuses a config.toml that does not parse, naming the line, and writes nothing', () => {
    const broken = 'model = "o3"\nnotify = ["a",\n[x]\n';
    writeFileSync(path, broken);
    expect(() => installCodexNotify(path, PROGRAM)).toThrow(InstallError);
    expect(() => installCodexNotify(path, PROGRAM)).toThrow(/config\.toml:\d+:\d+: not valid TOML/);
    expect(text()).toBe(broken);
    expect(readdirSync(dir)).toEqual(['config.toml']);
  });

  it('refuses a notify that is not a list of strings', () => {
    writeFileSync(path, 'notify = "say done"\n');
    expect(() => installCodexNotify(path, PROGRAM)).toThrow(/not a list of strings/);
  });

  it('reads multi-line strings and arrays before notify without mistaking them for tables', () => {
    const original = [
      'instructions = """',
      '[not a table]',
      'notify = ["nor", "this"]',
      '"""',
      'list = [',
      '  "[x]", # [y]',
      ']',
      "notify = ['say', 'done']",
      '[real]',
      'a = 1',
      '',
    ].join('\n');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, original);
    installCodexNotify(path, PROGRAM);
    expect(notify()).toEqual([...OURS, '--then', 'say', 'done']);
    removeCodexNotify(path, PROGRAM);
    expect(text()).toBe(original);
  });
});
