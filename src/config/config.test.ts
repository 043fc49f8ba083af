import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/corpus.js';
import { loadConfig, MAX_CONFIG_BYTES, parseConfig, zoneFor } from './config.js';
import { configPath } from './path.js';
import { MAX_BUDGETS } from './read.js';
import { defaultConfig } from './types.js';

const HOME = '/home/me';
const ENV = { HOME };
const parsed = (text: string) => parseConfig(text, '/cfg/config.toml', ENV);

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function dir(): string {
  const t = tempDir('cctop-config-');
  cleanups.push(t.cleanup);
  return t.dir;
}

describe('where the config file is', () => {
  it('CCTOP_CONFIG wins over XDG_CONFIG_HOME, which wins over ~/.config', () => {
    expect(configPath({ HOME, CCTOP_CONFIG: '/etc/cc.toml', XDG_CONFIG_HOME: '/x' })).toBe('/etc/cc.toml');
    expect(configPath({ HOME, XDG_CONFIG_HOME: '/x' })).toBe('/x/cctop/config.toml');
    expect(configPath({ HOME })).toBe('/home/me/.config/cctop/config.toml');
  });

  it('a relative XDG_CONFIG_HOME is ignored, as the XDG spec says', () => {
    expect(configPath({ HOME, XDG_CONFIG_HOME: 'conf' })).toBe('/home/me/.config/cctop/config.toml');
  });
});

describe('loading the config file', () => {
  it('a missing file is the defaults, with no error and no warning', () => {
    const loaded = loadConfig({ HOME: dir() });
    expect(loaded).toMatchObject({ found: false, config: defaultConfig(), warnings: [], error: null });
  });

  it('reads the file CCTOP_CONFIG names', () => {
    const path = join(dir(), 'c.toml');
    writeFileSync(path, '[[budget]]\nperiod = "day"\nusd = 50\n');
    const loaded = loadConfig({ HOME, CCTOP_CONFIG: path });
    expect(loaded.error).toBeNull();
    expect(loaded.config.budgets.map((b) => [b.name, b.usd])).toEqual([['day', 50]]);
  });

  it('a malformed file names the file and the line, and cctop runs on the defaults', () => {
    const loaded = parsed('[[budget]]\nperiod = "day"\nusd = 50\n[alerts\nerror_loop = 3\n');
    expect(loaded.error).toMatch(/^\/cfg\/config\.toml line 4, column \d+: /);
    expect(loaded.error).toContain('cctop config check');
    expect(loaded.config).toEqual(defaultConfig());
  });

  it('a parse error does not quote the lines around the mistake', () => {
    const loaded = parsed('a = 1\na = 2\n');
    expect(loaded.error).toMatch(/line 2, column 1: trying to redefine/);
    expect(loaded.error).not.toContain('\n');
  });

  it('a file larger than the bound is an error, not read as a config', () => {
    const path = join(dir(), 'c.toml');
    writeFileSync(path, `# ${'x'.repeat(MAX_CONFIG_BYTES)}\n`);
    const loaded = loadConfig({ HOME, CCTOP_CONFIG: path });
    expect(loaded.error).toMatch(/larger than 1 MiB/);
    expect(loaded.config).toEqual(defaultConfig());
  });

  it('a directory where the file should be is an error naming it', () => {
    const path = join(dir(), 'c.toml');
    mkdirSync(path);
    expect(loadConfig({ HOME, CCTOP_CONFIG: path }).error).toContain(`${path} is a directory`);
  });

  it('a file that is not UTF-8 is an error', () => {
    const path = join(dir(), 'c.toml');
    writeFileSync(path, Buffer.from([0x61, 0x3d, 0x22, 0xff, 0x22, 0x0a]));
    expect(loadConfig({ HOME, CCTOP_CONFIG: path }).error).toContain('not UTF-8');
  });
});

describe('checking the settings', () => {
  it('the documented example reads without a warning', () => {
    const loaded = parsed(`
hosts = ["build-box"]

[[budget]]
name = "daily"
period = "day"
usd = 50
project = "~/src/app"
harness = "claude"

[alerts]
error_loop = 5
stall_minutes = 10
burn_usd_per_hour = 30
quota_percent = 85

[reports]
timezone = "Europe/Paris"
start_of_week = "sunday"

[store]
url = "https://example.test/store"
`);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.config.budgets).toEqual([
      {
        key: JSON.stringify(['day', 'claude', '/home/me/src/app', 'daily']),
        name: 'daily',
        period: 'day',
        usd: 50,
        project: '/home/me/src/app',
        harness: 'claude',
      },
    ]);
    expect(loaded.config.alerts).toEqual({
      errorLoop: 5,
      stallMinutes: 10,
      burnUsdPerHour: 30,
      quotaPercent: 85,
      secrets: true,
    });
    expect(loaded.config.reports).toEqual({ timeZone: 'Europe/Paris', startOfWeek: 'sunday' });
    expect(loaded.config.hosts).toEqual(['build-box']);
    expect(loaded.config.store).toEqual({ url: 'https://example.test/store' });
  });

  it('an unknown key warns with its key path and line, and the rest applies', () => {
    const loaded = parsed('colour = "red"\n\n[alerts]\nstall_minutes = 5\nerror_lop = 3\n');
    expect(loaded.warnings).toEqual([
      '/cfg/config.toml line 1: key "colour" is not a cctop setting',
      '/cfg/config.toml line 5: key "alerts.error_lop" is not a cctop setting',
    ]);
    expect(loaded.config.alerts.stallMinutes).toBe(5);
    expect(loaded.error).toBeNull();
  });

  it('an unknown key in the second budget is found on its own line', () => {
    const loaded = parsed(
      '[[budget]]\nperiod = "day"\nusd = 5\n\n[[budget]]\nperiod = "week"\nusd = 20\nhraness = "codex"\n',
    );
    expect(loaded.warnings).toEqual(['/cfg/config.toml line 8: key "budget.hraness" is not a cctop setting']);
    expect(loaded.config.budgets).toHaveLength(2);
  });

  it('a budget with a wrong value is left out with a warning on its line; the others stay', () => {
    const loaded = parsed(`
[[budget]]
period = "year"
usd = 50

[[budget]]
period = "month"
usd = -3

[[budget]]
period = "week"
usd = 100
harness = "vim"

[[budget]]
usd = 10

[[budget]]
period = "month"
usd = 400
`);
    expect(loaded.warnings).toEqual([
      '/cfg/config.toml line 3: budget 1: period = "year": expected day, week or month; this budget is left out',
      '/cfg/config.toml line 8: budget 2: usd = -3: expected an amount in dollars above 0; this budget is left out',
      expect.stringMatching(
        /^\/cfg\/config\.toml line 13: budget 3: harness = "vim": expected one of claude, codex/,
      ),
      '/cfg/config.toml line 15: budget 4: period is missing (day, week or month); this budget is left out',
    ]);
    expect(loaded.config.budgets.map((b) => b.name)).toEqual(['month']);
  });

  it('a budget project must be a directory: absolute or under ~', () => {
    const loaded = parsed('[[budget]]\nperiod = "day"\nusd = 5\nproject = "src/app"\n');
    expect(loaded.warnings[0]).toMatch(/line 4: budget 1: project = "src\/app": expected a directory/);
    expect(loaded.config.budgets).toEqual([]);
  });

  it('a budget project is normalised, so /a/b/ and /a/b are the same budget', () => {
    const loaded = parsed('[[budget]]\nperiod = "day"\nusd = 5\nproject = "/a/b/"\nname = "x"\n');
    expect(loaded.config.budgets[0]!.project).toBe('/a/b');
  });

  it('the default name says what a budget selects, its project as written', () => {
    const loaded = parsed(
      '[[budget]]\nperiod = "month"\nusd = 5\nharness = "claude"\n[[budget]]\nperiod = "week"\nusd = 5\nproject = "~/src/app"\n',
    );
    expect(loaded.config.budgets.map((b) => b.name)).toEqual(['month claude', 'week ~/src/app']);
  });

  it('the crossing key does not move with the limit, so raising it keeps what was notified', () => {
    const at50 = parsed('[[budget]]\nperiod = "day"\nusd = 50\n').config.budgets[0]!;
    const at80 = parsed('[[budget]]\nperiod = "day"\nusd = 80\n').config.budgets[0]!;
    const renamed = parsed('[[budget]]\nname = "d"\nperiod = "day"\nusd = 50\n').config.budgets[0]!;
    expect(at80.key).toBe(at50.key);
    expect(renamed.key).not.toBe(at50.key);
  });

  it('a repeated budget is left out, so two never share a crossing memory', () => {
    const loaded = parsed('[[budget]]\nperiod = "day"\nusd = 5\n[[budget]]\nperiod = "day"\nusd = 9\n');
    expect(loaded.config.budgets.map((b) => b.usd)).toEqual([5]);
    expect(loaded.warnings[0]).toMatch(/line 4: budget 2 repeats "day"/);
  });

  it(`more than ${MAX_BUDGETS} budgets: the rest are left out with one warning`, () => {
    const text = Array.from(
      { length: MAX_BUDGETS + 3 },
      (_, i) => `[[budget]]\nname = "b${i}"\nperiod = "day"\nusd = 1\n`,
    );
    const loaded = parsed(text.join(''));
    expect(loaded.config.budgets).toHaveLength(MAX_BUDGETS);
    expect(loaded.warnings).toHaveLength(1);
  });

  it('[budget] written as a single table warns that budgets are [[budget]] entries', () => {
    const loaded = parsed('[budget]\nperiod = "day"\nusd = 5\n');
    expect(loaded.warnings).toEqual([
      '/cfg/config.toml line 1: budget must be written as [[budget]] entries (one per budget); no budget is set',
    ]);
  });

  it('a wrong alert threshold keeps its default, and says so', () => {
    const loaded = parsed('[alerts]\nerror_loop = 1\nstall_minutes = 20\nburn_usd_per_hour = "lots"\n');
    expect(loaded.config.alerts).toEqual(defaultConfig().alerts);
    expect(loaded.warnings).toEqual([
      expect.stringMatching(/line 2: alerts\.error_loop = 1: .*; the default 5 holds$/),
      expect.stringMatching(/line 3: alerts\.stall_minutes = 20: .*under 15 .*; the default 10 holds$/),
      expect.stringMatching(/line 4: alerts\.burn_usd_per_hour = "lots": .*; it stays off$/),
    ]);
  });

  it('0 turns an alert off, and false the secret alert', () => {
    const loaded = parsed(
      '[alerts]\nerror_loop = 0\nstall_minutes = 0\nburn_usd_per_hour = 0\nquota_percent = 0\nsecrets = false\n',
    );
    expect(loaded.config.alerts).toEqual({
      errorLoop: null,
      stallMinutes: null,
      burnUsdPerHour: null,
      quotaPercent: null,
      secrets: false,
    });
    expect(loaded.warnings).toEqual([]);
  });

  it('an unknown time zone or week start warns and the default is used', () => {
    const loaded = parsed('[reports]\ntimezone = "Mars/Olympus"\nstart_of_week = "friday"\n');
    expect(loaded.config.reports).toEqual(defaultConfig().reports);
    expect(loaded.warnings).toEqual([
      expect.stringMatching(/line 2: reports\.timezone = "Mars\/Olympus": expected a zone name/),
      expect.stringMatching(/line 3: reports\.start_of_week = "friday": expected monday or sunday/),
    ]);
  });

  it('a warning quotes a long value only in part', () => {
    const loaded = parsed(`[[budget]]\nperiod = "${'y'.repeat(500)}"\nusd = 1\n`);
    expect(loaded.warnings[0]!.length).toBeLessThan(200);
  });

  it('a top-level setting written under a table says where it belongs', () => {
    const loaded = parsed('[reports]\nstart_of_week = "monday"\nhosts = ["a"]\n');
    expect(loaded.warnings).toEqual([
      '/cfg/config.toml line 3: key "reports.hosts" is not a cctop setting (a top-level hosts goes above the first [table] header)',
    ]);
  });

  it('a key inside a multi-line string is not mistaken for a setting line', () => {
    const loaded = parsed('[store]\nurl = """\ncolour = 1\n"""\ncolour = 2\n');
    expect(loaded.warnings).toEqual(['/cfg/config.toml line 5: key "store.colour" is not a cctop setting']);
  });

  it('a key the line scan cannot place still names its key', () => {
    const loaded = parsed('alerts = { "odd key" = 1 }\n');
    expect(loaded.warnings).toEqual(['/cfg/config.toml line 1: key "alerts.odd key" is not a cctop setting']);
  });
});

describe('the zone days are counted in', () => {
  it('is --timezone when given, else the config file’s, else the system’s', () => {
    const t = tempDir('cctop-zone-');
    cleanups.push(t.cleanup);
    const path = join(t.dir, 'config.toml');
    const env = { HOME: t.dir, CCTOP_CONFIG: path };
    expect(zoneFor(env, undefined)).toBeUndefined();
    writeFileSync(path, '[reports]\ntimezone = "Asia/Tokyo"\n');
    expect(zoneFor(env, undefined)).toBe('Asia/Tokyo');
    expect(zoneFor(env, 'UTC')).toBe('UTC');
  });
});

describe('[approvals]', () => {
  it('hold is how long a deciding hook holds a request; a wrong value warns and keeps 600', () => {
    expect(parsed('[approvals]\nhold = 120\n').config.approvals).toEqual({ holdSeconds: 120 });
    expect(defaultConfig().approvals).toEqual({ holdSeconds: 600 });
    const wrong = parsed('[approvals]\nhold = 7200\n');
    expect(wrong.config.approvals).toEqual({ holdSeconds: 600 });
    expect(wrong.warnings).toEqual([
      '/cfg/config.toml line 2: approvals.hold = 7200: expected whole seconds from 1 to 3600; 600 holds',
    ]);
  });
});
