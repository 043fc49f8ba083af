import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statuslineEntry } from '../statusline/install.js';
import { installEntry, removeEntry, type Target } from './apply.js';

const COMMAND = '/opt/cctop/node_modules/cctop/dist/cli.js statusline';

let dir: string;
let target: Target;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cctop-made-file-'));
  target = { path: join(dir, '.claude', 'settings.json'), syntax: 'jsonc', label: 'Claude Code settings' };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const files = () => (existsSync(join(dir, '.claude')) ? readdirSync(join(dir, '.claude')).sort() : []);

describe('a settings file cctop made for its entry', () => {
  it('statusline remove after an install where no file existed leaves no file, no {} and no backup', () => {
    installEntry(target, statuslineEntry(COMMAND), { replace: false });
    expect(files()).toEqual(['settings.json', 'settings.json.cctop.json']);
    const done = removeEntry(target, statuslineEntry(COMMAND));
    expect(done.outcome).toEqual({ kind: 'removed', restored: null });
    expect(files()).toEqual([]);
  });

  it('a file cctop made that the user has since added to stays, holding what the user added', () => {
    installEntry(target, statuslineEntry(COMMAND), { replace: false });
    writeFileSync(
      target.path,
      JSON.stringify({ model: 'opus', statusLine: { type: 'command', command: COMMAND, padding: 0 } }),
    );
    removeEntry(target, statuslineEntry(COMMAND));
    expect(JSON.parse(readFileSync(target.path, 'utf8'))).toEqual({ model: 'opus' });
  });
});
