import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test-support/corpus.js';
import { configCommand } from './config.js';
import type { Io } from './main.js';
import { UsageError } from './options.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A home with `config` (when given) as its config file, and an Io that keeps what is written. */
function setup(config: string | null) {
  const t = tempDir('cctop-config-');
  cleanups.push(t.cleanup);
  const path = join(t.dir, 'config.toml');
  if (config !== null) writeFileSync(path, config);
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    out: (s) => out.push(String(s)),
    err: (s) => err.push(s),
    isTty: false,
    columns: 100,
    env: { HOME: t.dir, CCTOP_CONFIG: path },
  };
  return { io, out, err, path };
}

const TWO = `
[[budget]]
name = "daily"
period = "day"
usd = 50

[[budget]]
period = "month"
usd = 400
harness = "claude"
`;

describe('cctop config', () => {
  function config(text: string | null, args: string[]) {
    const s = setup(text);
    return { ...s, code: configCommand(s.io, args) };
  }

  it('path prints where the file is, whether or not it exists', () => {
    const { out, code, path } = config(null, ['path']);
    expect([code, out]).toEqual([0, [path]]);
  });

  it('check on a good file says ok and what applies', () => {
    const { out, code } = config(TWO, ['check']);
    expect(code).toBe(0);
    expect(out).toEqual([
      '~/config.toml: ok',
      'budgets: 2',
      '  daily         day     $50.00  every session',
      '  month claude  month  $400.00  claude',
      'alerts: error loop after 5 failures · stall after 10 min · burn rate off · quota past 90%',
      'reports: days in the system zone · weeks start monday',
    ]);
  });

  it('check lists each warning and exits 0: cctop runs with them', () => {
    const { out, code } = config('[alerts]\nstall_minutes = 30\n', ['check']);
    expect(code).toBe(0);
    expect(out[0]).toBe('~/config.toml: 1 warning');
    expect(out[1]).toMatch(/^warning: .*config\.toml line 2: alerts\.stall_minutes = 30: /);
  });

  it('check on a malformed file prints the error with its line and exits 1', () => {
    const { out, code } = config('[[budget]]\nperiod = day\n', ['check']);
    expect(code).toBe(1);
    expect(out).toEqual([expect.stringMatching(/^error: .*config\.toml line 2, column \d+: /)]);
  });

  it('check with no file says the defaults hold, and exits 0', () => {
    const { out, code } = config(null, ['check']);
    expect(code).toBe(0);
    expect(out[0]).toMatch(/^No config file at ~\/config\.toml: cctop runs on its defaults/);
  });

  it('anything but path or check is a usage error', () => {
    expect(() => config(null, [])).toThrow(UsageError);
    expect(() => config(null, ['edit'])).toThrow(/usage: cctop config path \| cctop config check/);
    expect(() => config(null, ['path', 'x'])).toThrow(UsageError);
  });
});
