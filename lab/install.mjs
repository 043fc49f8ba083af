#!/usr/bin/env node
// Installs the pinned agent CLIs the conformance lab runs (lab/agents.json) from the npm registry
// into a cache outside the repository, one folder per package and version, reused when present:
//
//   $CCTOP_AGENTS_DIR, else $XDG_CACHE_HOME/cctop-agents, else ~/.cache/cctop-agents
//     └─ <package>@<version>/node_modules/.bin/<bin>
//
//   npm run agents            install every pinned agent that is missing, print where each is
//   npm run agents -- codex   only the named ones
//
// It does not touch the agents' own homes (~/.claude, ~/.codex, …): the lab runs every agent with a
// HOME of its own. npm 11 skips install scripts by default, so a package whose binary appears only
// after its install script (Claude Code's install.cjs) has that script run here by hand.
import { execFileSync } from 'node:child_process';
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

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
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
