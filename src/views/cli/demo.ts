/**
 * `--demo`: the sample history that ships with cctop (`demo/home`, written by `demo/generate.mjs`),
 * copied to a temporary directory with every timestamp shifted so that its newest record is a couple
 * of minutes old. A newcomer on a machine with no agent history sees what cctop shows, live-looking.
 *
 * The shipped files are never modified; the copy is removed when cctop exits.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { packageRoot } from '../../paths.js';
import type { Env } from '../../providers/types.js';

const ISO = /"(20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)"/g;

/** How old the newest demo record looks. */
const NEWEST_AGE_MS = 2 * 60_000;

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

let prepared: string | null = null;

/** Copy the demo history with shifted times (once per process) and return its home directory. */
export function prepareDemo(nowMs = Date.now()): string {
  if (prepared) return prepared;
  const source = join(packageRoot(), 'demo', 'home');
  const all = files(source);
  let newest = 0;
  const texts = all.map((f) => {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(ISO)) newest = Math.max(newest, Date.parse(m[1]!));
    return text;
  });
  const shift = nowMs - NEWEST_AGE_MS - newest;
  const home = mkdtempSync(join(tmpdir(), 'cctop-demo-'));
  process.once('exit', () => rmSync(home, { recursive: true, force: true }));
  all.forEach((f, i) => {
    let last = 0;
    const shifted = texts[i]!.replace(ISO, (_, ts: string) => {
      const ms = Date.parse(ts) + shift;
      last = Math.max(last, ms);
      return `"${new Date(ms).toISOString()}"`;
    });
    const to = join(home, relative(source, f));
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, shifted);
    const mtime = (last || statSync(f).mtimeMs) / 1000;
    utimesSync(to, mtime, mtime);
  });
  prepared = home;
  return home;
}

export function demoEnv(env: Env): Env {
  const home = prepareDemo();
  return {
    ...env,
    HOME: home,
    // The demo's own index, thrown away with it: temporary paths never reach the user's.
    CCTOP_CACHE_DIR: join(home, '.cache', 'cctop'),
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    CODEX_HOME: join(home, '.codex'),
  };
}
