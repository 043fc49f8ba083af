import { describe, expect, it } from 'vitest';
import { missingPrograms, ourCommand, runsCctopStatusline, shellWords } from './install.js';

describe("recognising cctop's status line command", () => {
  it('knows cctop by its link or its package script, wherever either lies', () => {
    for (const cmd of [
      '/usr/local/bin/cctop statusline',
      'cctop statusline --format model,today',
      'npx cctop statusline',
      "'/Users/me/Library/Application Support/fnm/node' /opt/homebrew/lib/node_modules/cctop/dist/cli.js statusline",
      '/usr/bin/node /usr/lib/node_modules/cctop/dist/cctop.cjs statusline',
      '"C:\\\\Program Files\\\\nodejs\\\\node.exe" C:\\\\Users\\\\me\\\\AppData\\\\Roaming\\\\npm\\\\node_modules\\\\cctop\\\\dist\\\\cli.js statusline',
    ])
      expect(runsCctopStatusline(cmd), cmd).toBe(true);
  });

  it("does not take another tool's status line for cctop's", () => {
    for (const cmd of [
      'bun x ccusage statusline',
      'node /usr/lib/node_modules/ccusage/dist/cli.js statusline',
      'bash ~/.claude/statusline.sh',
      'cctop --list',
      'echo cctop statusline-ish',
    ])
      expect(runsCctopStatusline(cmd), cmd).toBe(false);
  });

  it('reads quoted words as a shell would', () => {
    expect(shellWords(`'/a b/node' "/c \\"d\\"/cli.js" plain\\ word statusline`)).toEqual([
      '/a b/node',
      '/c "d"/cli.js',
      'plain word',
      'statusline',
    ]);
  });

  it('installs the cctop link that was run, else node and the package script, quoted for a shell', () => {
    expect(ourCommand('/usr/local/bin/cctop', '/usr/bin/node')).toBe('/usr/local/bin/cctop statusline');
    const viaNode = ourCommand('/home/me/my dir/dist/cli.js', '/opt/node 20/bin/node');
    expect(viaNode).toMatch(/^'\/opt\/node 20\/bin\/node' .*dist\/cctop\.cjs statusline$/);
    expect(shellWords(viaNode)[0]).toBe('/opt/node 20/bin/node');
  });

  it('names the programs a command runs that are gone', () => {
    expect(missingPrograms(`${process.execPath} /nowhere/cctop/dist/cli.js statusline`)).toEqual([
      '/nowhere/cctop/dist/cli.js',
    ]);
  });
});
