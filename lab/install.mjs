#!/usr/bin/env node
// Installs the pinned agent CLIs the conformance lab runs (lab/agents.json) from the npm registry
// into a cache outside the repository, one folder per package and version, reused when present:
//
//   $CCTOP_AGENTS_DIR, else $XDG_CACHE_HOME/cctop-agents, else ~/.cache/cctop-agents
//     └─ <package>@<version>/node_modules/.bin/<bin>
//
//   npm run agents            install every pinned agent that is missing, print where each is
//   npm run agents -- codex   only the named ones
//   npm run agents -- --newest  the drift run: install each agent's newest published version beside
//                             the pinned one, run the lab against those (CCTOP_LAB_AGENTS=newest, which
//                             the recipes read through lab/newest.json in the cache), and print what
//                             changed: the versions, and the lab tests that fail on the newest but not
//                             on the pins. A report, not a gate: it exits 0 whatever it finds.
//
// It does not touch the agents' own homes (~/.claude, ~/.codex, …): the lab runs every agent with a
// HOME of its own. npm 11 skips install scripts by default, so a package whose binary appears only
// after its install script (Claude Code's install.cjs) has that script run here by hand.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pins = JSON.parse(readFileSync(join(here, 'agents.json'), 'utf8'));

export function agentsDir(env = process.env) {
  if (env.CCTOP_AGENTS_DIR) return env.CCTOP_AGENTS_DIR;
  const cache = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'cctop-agents');
}

/** Packages whose binary is put in place by their own install script, which npm 11 skips. */
const INSTALL_SCRIPTS = { '@anthropic-ai/claude-code': 'install.cjs' };

function install(name, pin) {
  const folder = join(agentsDir(), `${pin.package.replace('/', '+')}@${pin.version}`);
  const bin = join(folder, 'node_modules', '.bin', pin.bin);
  const done = join(folder, '.installed');
  if (existsSync(done) && existsSync(bin)) return bin;
  // Installed into a scratch folder and renamed into place, so a run killed half-way never leaves a
  // folder that looks installed.
  const scratch = `${folder}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  writeFileSync(join(scratch, 'package.json'), '{"private":true}\n');
  execFileSync(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--loglevel=error',
      `${pin.package}@${pin.version}`,
    ],
    { cwd: scratch, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const script = INSTALL_SCRIPTS[pin.package];
  if (script) {
    const pkgDir = join(scratch, 'node_modules', ...pin.package.split('/'));
    execFileSync(process.execPath, [script], { cwd: pkgDir, stdio: ['ignore', 'inherit', 'inherit'] });
  }
  writeFileSync(join(scratch, '.installed'), `${pin.package}@${pin.version}\n`);
  rmSync(folder, { recursive: true, force: true });
  renameSync(scratch, folder);
  if (!existsSync(bin))
    throw new Error(`${name}: ${pin.package}@${pin.version} installed but ${bin} is missing`);
  return bin;
}

/** The version npm calls latest for a package: one registry lookup per agent the lab runs. */
function newestVersion(pkg) {
  return execFileSync('npm', ['view', pkg, 'version', '--loglevel=error'], { encoding: 'utf8' }).trim();
}

/** How long the lab may run in the drift run: every test has its own budget; this bounds the whole. */
const DRIFT_LAB_TIMEOUT_MS = 30 * 60_000;

/** The lab's failing tests, by full name, as vitest's JSON report gives them (null: it did not run). */
function labFailures(env, report) {
  rmSync(report, { force: true });
  spawnSync('npx', ['vitest', 'run', 'test/lab', '--reporter=json', `--outputFile=${report}`], {
    cwd: join(here, '..'),
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: DRIFT_LAB_TIMEOUT_MS,
  });
  if (!existsSync(report)) return null;
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const failed = [];
  for (const file of r.testResults ?? [])
    for (const t of file.assertionResults ?? []) if (t.status === 'failed') failed.push(t.fullName);
  return failed;
}

function driftRun() {
  const newest = {};
  for (const name of Object.keys(pins).filter((n) => !n.startsWith('$'))) {
    const pin = pins[name];
    try {
      const version = newestVersion(pin.package);
      const bin = install(name, { ...pin, version });
      newest[name] = { ...pin, version };
      const said = version === pin.version ? 'same as the pin' : `pinned ${pin.version}`;
      console.log(`${name.padEnd(9)} ${pin.package}@${version}  (${said})  ${bin}`);
    } catch (err) {
      console.log(`${name.padEnd(9)} could not install the newest ${pin.package}: ${err.message}`);
    }
  }
  mkdirSync(agentsDir(), { recursive: true });
  writeFileSync(join(agentsDir(), 'newest.json'), `${JSON.stringify(newest, null, 2)}\n`);
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: join(here, '..'), stdio: 'inherit' });
  const report = (which) => join(agentsDir(), `lab-${which}.json`);
  const pinned = labFailures({ ...process.env, CCTOP_LAB_AGENTS: 'pinned' }, report('pinned'));
  const latest = labFailures({ ...process.env, CCTOP_LAB_AGENTS: 'newest' }, report('newest'));
  console.log('');
  if (pinned === null || latest === null) {
    console.log('The lab did not run to a report (see the errors above).');
    return;
  }
  const changed = latest.filter((t) => !pinned.includes(t));
  console.log(
    changed.length === 0
      ? 'The lab passes on the newest versions as it does on the pins.'
      : `Lab tests that fail on the newest versions only (${changed.length}):`,
  );
  for (const t of changed) console.log(`  ${t}`);
  console.log(
    'Record types and fields cctop does not read: cctop doctor, over a home the newest agents wrote.',
  );
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain && process.argv.includes('--newest')) {
  try {
    driftRun();
  } catch (err) {
    console.log(`The drift run stopped: ${err.message}`);
  }
  process.exit(0);
} else if (isMain) {
  const wanted = process.argv.slice(2);
  const names = Object.keys(pins).filter(
    (n) => !n.startsWith('$') && (wanted.length === 0 || wanted.includes(n)),
  );
  let failed = 0;
  for (const name of names) {
    const pin = pins[name];
    try {
      const bin = install(name, pin);
      console.log(`${name.padEnd(9)} ${pin.package}@${pin.version}  ${bin}`);
    } catch (err) {
      failed++;
      console.error(`${name}: could not install ${pin.package}@${pin.version}: ${err.message}`);
    }
  }
  process.exit(failed ? 1 : 0);
}
