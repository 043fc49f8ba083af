/**
 * `cctop serve --store`: the team dashboard, read from the team store (docs/team.md).
 *
 *   cctop serve --store [--to URL] [--bind 127.0.0.1] [--port 7777] [--token-file PATH | --no-token]
 *                       [--timezone ZONE]
 *
 * The store is `--to`, else `CCTOP_STORE_URL`, else `store.url` in the config file; the password comes
 * from `~/.pgpass` or `PGPASSWORD`, as for `psql`, and never reaches the page. Prints the links (full
 * and read-only; both only read) and serves until interrupted. Exit codes: 2 a bad argument or no
 * store named, 1 it cannot listen or read its token file. An unreachable store is not an exit: the
 * page says so, with the age of the last good read, and the reading goes on.
 */
import { loadConfig, zoneFor } from '../../config/index.js';
import { storeTarget } from '../../store/connect.js';
import type { Io } from '../cli/main.js';
import { parse, parseTimeZone, UsageError } from '../cli/options.js';
import { type Asked, dashboardCommand, listeningOptions } from '../serve/links.js';
import { startTeamServer, TeamServeError, type TeamServeOptions } from './server.js';

export const TEAM_SERVE_HELP = `cctop serve --store: the team dashboard, read from the team store

Usage: cctop serve --store [options]

  --to URL             the store: postgres://ROLE@HOST/DB (else CCTOP_STORE_URL, else store.url in the
                       config file). Use the dashboard's own role (in cctop_reader); its password comes
                       from ~/.pgpass or PGPASSWORD, never from the command line, and never reaches the page
  --bind ADDR          where to listen (default 127.0.0.1; any other address needs the token)
  --port N             default 7777, or the next free port after it (0: any free port)
  --token-file PATH    keep the token in PATH (created owner-only), so links survive restarts
  --no-token           no token at all (loopback binds only)
  --timezone ZONE      the zone "today", the week and the month are cut in (else the config's, else
                       the system's)

The page shows everyone's working and waiting sessions (stale, with their age, when their machine
stopped pushing), spend per developer, project, harness and model per day (today, 7 days, this month),
and the team budgets against their spend. It only reads: budgets are set with cctop store budget set.
`;

const FLAGS = {
  store: { type: 'boolean' },
  to: { type: 'string' },
  bind: { type: 'string' },
  port: { type: 'string' },
  'token-file': { type: 'string' },
  'no-token': { type: 'boolean' },
  timezone: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type TeamArgs = Asked<Omit<TeamServeOptions, 'token'>>;

/** The dashboard a command line asks for, null for --help; throws UsageError for a bad one. */
export function teamServeOptions(args: string[], io: Io): TeamArgs | null {
  const { values, positionals } = parse(args, FLAGS, 'serve --store');
  if (values.help) return null;
  if (positionals.length > 0)
    throw new UsageError(`serve --store takes no arguments (got ${positionals[0]})`);
  const { noToken, tokenFile, ...where } = listeningOptions(values, "the team's sessions and spend");
  const config = loadConfig(io.env).config;
  const target = storeTarget(typeof values.to === 'string' ? values.to : undefined, io.env, config.store.url);
  if (target.kind === 'none') throw new UsageError(target.why);
  for (const w of target.warnings) io.err(`cctop serve --store: ${w}`);
  return {
    options: {
      url: target.url,
      env: io.env,
      timeZone: zoneFor(io.env, parseTimeZone(values.timezone as string | undefined)),
      startOfWeek: config.reports.startOfWeek,
      ...where,
      onTrouble: (error) => io.err(`cctop serve --store: ${error}`),
    },
    noToken,
    tokenFile,
  };
}

/** Run the team dashboard until `stop` settles (by default SIGINT or SIGTERM); returns the exit code. */
export async function teamServeCommand(io: Io, args: string[], stop?: Promise<unknown>): Promise<number> {
  return dashboardCommand(
    io,
    {
      command: 'cctop serve --store',
      help: TEAM_SERVE_HELP,
      asked: () => teamServeOptions(args, io),
      start: (options, token) => startTeamServer({ ...options, token }),
      StartError: TeamServeError,
    },
    stop,
  );
}
