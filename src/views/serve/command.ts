/**
 * `cctop serve`: the live dashboard, each session's report and conversation, in a browser.
 *
 *   cctop serve [--bind 127.0.0.1] [--port 7777] [--plan …] [--delay 2] [--harness …] [--demo]
 *               [--token-file PATH | --no-token] [--host [user@]host[:path]]…
 *
 * Prints the link (with its token) and serves until interrupted. Exit codes as everywhere: 2 for a
 * bad argument (including `--no-token` off loopback), 1 when it cannot listen or read its token file.
 */

import { zoneFor } from '../../config/index.js';
import { watchedStates } from '../../live/agent-state.js';
import { withoutProcesses } from '../../live/annotate.js';
import { delayOption } from '../cli/delay.js';
import { demoEnv } from '../cli/demo.js';
import { hostsOf, passedOn } from '../cli/hosts.js';
import type { Io } from '../cli/main.js';
import { commonOptions, parse, UsageError } from '../cli/options.js';
import { type Asked, dashboardCommand, listeningOptions } from './links.js';
import { ServeError, type ServeOptions, startServer } from './server.js';

const HELP = `cctop serve: every agent session, live, in a browser

Usage: cctop serve [options]

  --bind ADDR          where to listen (default 127.0.0.1; 0.0.0.0 for every interface)
  --port N             default 7777, or the next free port after it; an explicit busy port is an error
                       (0: any free port)
  --delay SECONDS      how often transcripts are re-read (default 2)
  --token-file PATH    keep the token in PATH (created owner-only), so links survive restarts
  --no-token           no token at all (loopback binds only)
  --host [USER@]HOST[:PATH]
                       show that machine's sessions too, read over ssh (repeatable; else CCTOP_HOSTS,
                       else the config's hosts; docs/hosts.md)
  --store              the team dashboard, read from the team store instead (cctop serve --store --help;
                       docs/team.md)
  -p, --plan retail|max|included, --harness claude,codex, --timezone ZONE, --demo, --no-cache,
  --threads N          as for cctop --list
`;

const FLAGS = {
  plan: { type: 'string', short: 'p' },
  provider: { type: 'string' },
  timezone: { type: 'string' },
  demo: { type: 'boolean' },
  'no-cache': { type: 'boolean' },
  threads: { type: 'string' },
  bind: { type: 'string' },
  port: { type: 'string' },
  delay: { type: 'string' },
  'token-file': { type: 'string' },
  'no-token': { type: 'boolean' },
  host: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

export type ServeArgs = Asked<Omit<ServeOptions, 'token'>>;

/** The options a `cctop serve` command line asks for, or null for --help (throws UsageError on a bad one). */
export function serveOptions(args: string[], io: Io): ServeArgs | null {
  const { values, positionals } = parse(args, FLAGS, 'serve');
  if (values.help) return null;
  if (positionals.length > 0) throw new UsageError(`serve takes no arguments (got ${positionals[0]})`);
  const common = commonOptions(values);
  const { noToken, tokenFile, ...where } = listeningOptions(values, 'every conversation on it');
  const delayMs = delayOption(values.delay);

  // The demo's sample history is this machine's alone.
  const hosts = common.demo ? [] : hostsOf(io, values);
  return {
    options: {
      ...(hosts.length > 0 ? { hosts, hostArgs: passedOn(values) } : {}),
      env: common.demo ? demoEnv(io.env) : io.env,
      ...(common.demo ? { annotate: withoutProcesses() } : { ...watchedStates(io.env), notify: true }),
      plan: common.plan,
      providers: common.providers,
      timeZone: zoneFor(io.env, common.timeZone),
      threads: common.threads,
      useIndex: common.useIndex,
      delayMs,
      ...where,
    },
    noToken,
    tokenFile,
  };
}

/**
 * Run `cctop serve` until `stop` settles (by default, until SIGINT or SIGTERM); returns the exit code.
 */
export async function serveCommand(args: string[], io: Io, stop?: Promise<unknown>): Promise<number> {
  // `--store`: the team's dashboard, read from the team store rather than this machine (docs/team.md).
  if (args.includes('--store')) return (await import('../team/index.js')).teamServeCommand(io, args, stop);
  return dashboardCommand(
    io,
    {
      command: 'cctop serve',
      help: HELP,
      asked: () => serveOptions(args, io),
      start: (options, token) => startServer({ ...options, token }),
      StartError: ServeError,
    },
    stop,
  );
}
