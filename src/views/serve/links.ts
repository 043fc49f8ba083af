/**
 * Where a dashboard listens and who may read it, for both `cctop serve` and `cctop serve --store`:
 * `--bind`, `--port`, `--token-file` and `--no-token` read and checked by one rule, the token made or
 * read from its file, the links printed once the server listens, and the exit code when it cannot.
 *
 * Not here: each command's own flags and help, or what its server serves (each starts its own).
 */
import type { Io } from '../cli/main.js';
import { UsageError } from '../cli/options.js';
import { untilSignal } from '../cli/signals.js';
import { newToken } from './auth.js';
import { DEFAULT_PORT, isLoopback } from './bind.js';
import { TokenFileError, tokenFromFile } from './token-file.js';

/** Where to listen and what guards it, as a command line asked. */
export interface Listening {
  bind: string;
  port: number;
  /** No `--port`: the next free port after the default will do. */
  stepPort: boolean;
  /** `--no-token`, already checked against the bind. */
  noToken: boolean;
  tokenFile: string | null;
}

/**
 * `--bind`, `--port`, `--token-file` and `--no-token` of `values`; throws UsageError for a bad one.
 * `exposed` says what `--no-token` off loopback would let anyone read ("every conversation on it").
 */
export function listeningOptions(values: Record<string, unknown>, exposed: string): Listening {
  const bind = typeof values.bind === 'string' ? values.bind : '127.0.0.1';
  if (bind.length === 0 || bind.length > 255) throw new UsageError(`--bind ${bind}: expected an address`);
  let port = DEFAULT_PORT;
  if (typeof values.port === 'string') {
    port = Number(values.port);
    if (!/^\d{1,5}$/.test(values.port) || port > 65535)
      throw new UsageError(`--port ${values.port}: expected a port number from 0 to 65535`);
  }
  const noToken = values['no-token'] === true;
  const tokenFile = typeof values['token-file'] === 'string' ? values['token-file'] : null;
  if (noToken && tokenFile !== null)
    throw new UsageError('--no-token and --token-file contradict each other');
  if (noToken && !isLoopback(bind))
    throw new UsageError(
      `--no-token is refused with --bind ${bind}: anyone who can reach this machine could read ${exposed}. Keep the token, or bind 127.0.0.1`,
    );
  return { bind, port, stepPort: typeof values.port !== 'string', noToken, tokenFile };
}

/**
 * The token the server checks: the one in `tokenFile` (written there when it is new, which `command`
 * says on stderr), a fresh one, or null for `--no-token`. Throws TokenFileError.
 */
function tokenOf(io: Io, command: string, tokenFile: string | null, noToken: boolean): string | null {
  if (tokenFile !== null) {
    const t = tokenFromFile(tokenFile);
    if (t.created) io.err(`${command}: wrote a new token to ${tokenFile} (mode 600)`);
    return t.token;
  }
  return noToken ? null : newToken();
}

/** Print the links a listening server answers on (the full ones, then the read-only one), aligned. */
function printLinks(
  io: Io,
  command: string,
  links: { full: readonly string[]; read: readonly string[] },
  bind: string,
): void {
  const head = `${command}: `;
  io.out(`${head}${links.full[0]}`);
  for (const more of links.full.slice(1)) io.out(`${' '.repeat(head.length)}${more}`);
  if (links.read.length > 0) io.out(`${'read-only:'.padEnd(head.length)}${links.read[0]}`);
  if (!isLoopback(bind))
    io.err(
      `${command}: listening beyond this machine over plain HTTP; anyone on the path can read the token. Prefer a trusted network or an SSH tunnel (docs/serve.md).`,
    );
  io.err('Ctrl-C stops it.');
}

/** What a dashboard's command line asked for: its server's options, and who may read it. */
export interface Asked<O> {
  options: O;
  /** `--no-token`: checked against the bind by `listeningOptions`. */
  noToken: boolean;
  tokenFile: string | null;
}

/** The server a dashboard started: its links, and how to stop it. */
export interface Started {
  links: { full: string[]; read: string[] };
  close(): Promise<void>;
}

/** A dashboard command: how it is named and helped, how it reads its line, and how it starts. */
export interface Dashboard<O extends { bind: string }> {
  /** `cctop serve`, `cctop serve --store`: the start of every line it prints. */
  command: string;
  help: string;
  /** The command line's asks, null for --help; throws UsageError for a bad one. */
  asked: () => Asked<O> | null;
  start: (options: O, token: string | null) => Promise<Started>;
  /** The error its `start` throws when it cannot listen (exit 1, with its message). */
  StartError: new (
    ...args: never[]
  ) => Error;
}

/**
 * Run a dashboard command: read its line, start it with its token, print its links and serve until
 * `stop` settles (by default SIGINT or SIGTERM). The exit code: 0; 2 for a bad argument; 1 when it
 * cannot listen or read its token file.
 */
export async function dashboardCommand<O extends { bind: string }>(
  io: Io,
  d: Dashboard<O>,
  stop?: Promise<unknown>,
): Promise<number> {
  let asked: Asked<O> | null;
  try {
    asked = d.asked();
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`cctop: ${err.message}`);
    return 2;
  }
  if (asked === null) {
    io.out(d.help);
    return 0;
  }
  const { options, noToken, tokenFile } = asked;
  try {
    const running = await d.start(options, tokenOf(io, d.command, tokenFile, noToken));
    printLinks(io, d.command, running.links, options.bind);
    // Loopback is not private: every local account can connect, and an Origin header is only words.
    if (noToken)
      io.err(
        `${d.command}: --no-token: every user of this machine can read what this server shows; it is read-only (nothing can be answered or typed through it). Keep the token to act.`,
      );
    await (stop ?? untilSignal());
    await running.close();
    return 0;
  } catch (err) {
    if (err instanceof d.StartError || err instanceof TokenFileError) {
      io.err(`${d.command}: ${err.message}`);
      return 1;
    }
    throw err;
  }
}
