/**
 * The `cctop` command: reads the arguments, runs one command, returns its exit code.
 *
 * Exit codes: 0 ok, 1 a real fault (nothing could be read, a network update failed), 2 a bad argument.
 */

import { join } from 'node:path';
import type { Snapshot } from '../../index/snapshot.js';
import { keepZoneNameIn } from '../../model/zone.js';
import { cacheDir } from '../../paths.js';
import { home } from '../../providers/fsutil.js';
import type { Env } from '../../providers/types.js';
import { paint } from './color.js';
import { demoEnv } from './demo.js';
import { tildify } from './format.js';
import { COMMON_FLAGS, type CommonOptions, commonOptions, parse, UsageError } from './options.js';

/** Where the system time zone's name is kept between runs (see `model/zone.ts`). */
const ZONE_FILE = 'zone.json';

export interface Io {
  /** A line of output; bytes are written as they are (`--json`). */
  out(s: string | Uint8Array): void;
  err(s: string): void;
  isTty: boolean;
  columns: number | undefined;
  env: Env;
}

const HELP = `cctop: an htop for AI coding agents

Usage:
  cctop                 the live table on a terminal (a list otherwise); ? shows its keys
  cctop --list          every session as a table, grouped by harness
  cctop --json          the session document (docs/session-document.md)
  cctop chat [ID]       one session's conversation (--before SEQ, --agent ID, --json, --markdown)
  cctop report [ID]     one session in depth: cost over time, context, failures, files (--json)
  cctop serve           the dashboard in a browser (--bind, --port; see docs/serve.md)
  cctop exec AGENT ...  run claude, codex or copilot headlessly as one event stream (docs/drive.md)
  cctop doctor          where cctop looked, what it found, what it could not read
  cctop pricing update  refresh the price catalogue (the only command that uses the network)

Options:
  -p, --plan retail|max|included   how to show cost: retail prices, Claude bundled, or all bundled
  --provider claude,codex          only these harnesses
  --since DATE, --until DATE       only activity on these local days (2026-11-29)
  --timezone ZONE                  days and hours in this zone (default: the system's)
  --demo                           read the sample history that ships with cctop
  --no-cache                       read every transcript again, without the index
  --threads N                      parse with N worker threads (default: one per core)
  -d, --delay SECONDS              refresh interval of the live table (default 2)
  -h, --help, -v, --version
`;

/** `fromKept: false` for what needs every parsed file (doctor, a report the index cannot serve). */
async function snapshot(o: CommonOptions, env: Env, fromKept = true): Promise<Snapshot> {
  const { takeSnapshot } = await import('../../index/snapshot.js');
  const s = await takeSnapshot({
    env: o.demo ? demoEnv(env) : env,
    plan: o.plan,
    providers: o.providers,
    timeZone: o.timeZone,
    sinceMs: o.sinceMs,
    untilMs: o.untilMs,
    useIndex: o.useIndex,
    threads: o.threads,
    fromKept,
    annotate: o.demo ? undefined : (await import('../../live/annotate.js')).processAnnotator(),
  });
  if (s.notice) process.stderr.write(`cctop: ${s.notice}\n`);
  return s;
}

function nothingFound(s: Snapshot, env: Env): string {
  const h = home(env);
  const where = s.discovery.roots.map((r) => tildify(r.path, h)).join(', ');
  return `No agent sessions found. Looked in ${where}. Run \`cctop --demo\` to see what cctop shows, or \`cctop doctor\` for details.`;
}

async function listCommand(io: Io, o: CommonOptions): Promise<number> {
  const s = await snapshot(o, io.env);
  if (s.document.sessions.length === 0) {
    io.out(nothingFound(s, io.env));
    return 0;
  }
  const { renderList } = await import('./list.js');
  const columns = io.isTty ? (io.columns ?? 80) : Number(io.env.COLUMNS) || 80;
  for (const line of renderList(s.document, columns, paint(io.isTty, io.env), Date.now())) io.out(line);
  return 0;
}

async function jsonCommand(io: Io, o: CommonOptions): Promise<number> {
  const s = await snapshot(o, io.env);
  io.out(s.json());
  return 0;
}

/** `cctop` on a terminal: the live table. */
async function tuiCommand(io: Io, o: CommonOptions, values: Record<string, unknown>): Promise<number> {
  const delay = values.delay === undefined ? 2 : Number(values.delay);
  if (!Number.isFinite(delay) || delay < 0.5 || delay > 3600)
    throw new UsageError(`--delay ${String(values.delay)}: expected seconds, at least 0.5`);
  const { runTui } = await import('../tui/app.js');
  let env = io.env;
  let replay: {
    annotate: (d: import('../../model/document.js').SessionDocument) => boolean;
    stop: () => void;
  } | null = null;
  if (o.demo) {
    env = demoEnv(io.env);
    const { startReplay } = await import('../tui/demo-replay.js');
    replay = startReplay(env.HOME!);
  }
  try {
    return await runTui({
      live: {
        env,
        plan: o.plan,
        providers: o.providers,
        timeZone: o.timeZone,
        threads: o.threads,
        useIndex: o.useIndex && !o.demo,
        delayMs: delay * 1000,
      },
      out: process.stdout,
      input: process.stdin,
      ...(replay ? { annotate: replay.annotate } : {}),
    });
  } finally {
    replay?.stop();
  }
}

export async function main(argv: string[], io: Io): Promise<number> {
  keepZoneNameIn(join(cacheDir(io.env), ZONE_FILE));
  // These two have flags of their own (`exec -m`, `serve --port`), so they parse their arguments.
  if (argv[0] === 'serve') {
    const { serveCommand } = await import('../serve/command.js');
    return serveCommand(argv.slice(1), io);
  }
  if (argv[0] === 'exec') {
    const { execCommand } = await import('./exec.js');
    return execCommand(argv.slice(1), io);
  }
  try {
    const { values, positionals } = parse(argv, {
      ...COMMON_FLAGS,
      list: { type: 'boolean', short: 'l' },
      json: { type: 'boolean', short: 'j' },
      markdown: { type: 'boolean' },
      delay: { type: 'string', short: 'd' },
      before: { type: 'string' },
      agent: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    });
    if (values.help) {
      io.out(HELP);
      return 0;
    }
    if (values.version) {
      const { version } = await import('./version.js');
      io.out(`cctop ${version()}`);
      return 0;
    }
    const [command, ...rest] = positionals;
    const o = commonOptions(values);
    switch (command) {
      case undefined:
        if (values.json) return await jsonCommand(io, o);
        if (values.list || !io.isTty || !process.stdin.isTTY) return await listCommand(io, o);
        return await tuiCommand(io, o, values);
      case 'doctor': {
        if (rest.length > 0) throw new UsageError(`doctor takes no arguments (got ${rest[0]})`);
        const { doctor } = await import('./doctor.js');
        return doctor(io, await snapshot(o, io.env, false), o.demo ? demoEnv(io.env) : io.env);
      }
      case 'chat':
      case 'report': {
        if (rest.length > 1)
          throw new UsageError(`${command} takes one session id or prefix (got ${rest.join(' ')})`);
        const { sessionCommand } = await import('./session.js');
        const snap = await snapshot(o, io.env);
        return await sessionCommand(io, command, rest[0] ?? null, values, snap, () =>
          snapshot(o, io.env, false),
        );
      }
      case 'pricing': {
        if (rest[0] !== 'update' || rest.length > 1) throw new UsageError('usage: cctop pricing update');
        const { updatePricing } = await import('./pricing.js');
        return updatePricing(io);
      }
      default:
        throw new UsageError(`unknown command: ${command} (try cctop --help)`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`cctop: ${err.message}`);
      return 2;
    }
    throw err;
  }
}
