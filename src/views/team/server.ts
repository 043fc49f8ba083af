/**
 * A running team dashboard: the store's poller and the HTTP server around the app, with node's own
 * limits set as `cctop serve` sets them (`serve/limits.ts`), and a clean stop. Callable without the
 * command line, so tests start one in-process.
 *
 * Not here: the flags (`command.ts`), the routes (`app.ts`), reading the store (`poller.ts`).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import type { StartOfWeek } from '../../config/index.js';
import type { Env } from '../../providers/types.js';
import { version } from '../cli/version.js';
import { Assets, webDir } from '../serve/assets.js';
import { Tokens } from '../serve/auth.js';
import { baseUrls, isLoopback } from '../serve/bind.js';
import {
  IDLE_TIMEOUT_MS,
  MAX_CONNECTIONS,
  MAX_HEADER_BYTES,
  MAX_PORT_STEPS,
  REQUEST_TIMEOUT_MS,
  TIMEOUT_CHECK_MS,
} from '../serve/limits.js';
import { createTeamApp } from './app.js';
import { TEAM_POLL_MS, TeamPoller } from './poller.js';

export interface TeamServeOptions {
  /** The store, read with the role this URL names (the dashboard's, in `cctop_reader`). */
  url: string;
  env: Env;
  timeZone: string | undefined;
  startOfWeek: StartOfWeek;
  bind: string;
  port: number;
  /** Step past a busy port (the default one); an explicit port fails instead. */
  stepPort: boolean;
  /** null: `--no-token` (refused off loopback). */
  token: string | null;
  pollMs?: number;
  /** The page's files (`web/team/`). */
  assetsDir?: string;
  /** A failure's full sentence, for the terminal. */
  onTrouble?: (error: string) => void;
}

export interface RunningTeamServer {
  port: number;
  tokens: Tokens | null;
  links: { full: string[]; read: string[] };
  poller: TeamPoller;
  close(): Promise<void>;
}

/** Why the dashboard cannot start, said as what to do. */
export class TeamServeError extends Error {}

export const teamWebDir = (): string => join(webDir(), 'team');

async function listenOn(server: Server, o: TeamServeOptions): Promise<number> {
  for (let step = 0; ; step++) {
    const port = o.port === 0 ? 0 : o.port + step;
    try {
      return await new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, o.bind, () => {
          server.off('error', reject);
          resolve((server.address() as AddressInfo).port);
        });
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' && o.stepPort && o.port !== 0 && step < MAX_PORT_STEPS) continue;
      if (code === 'EADDRINUSE')
        throw new TeamServeError(`port ${port} is busy; pick another with --port (0: any free port)`);
      if (code === 'EADDRNOTAVAIL')
        throw new TeamServeError(`--bind ${o.bind}: this machine has no such address`);
      throw new TeamServeError(`cannot listen on ${o.bind}:${port}: ${(err as Error).message}`);
    }
  }
}

export async function startTeamServer(o: TeamServeOptions): Promise<RunningTeamServer> {
  if (o.token === null && !isLoopback(o.bind))
    throw new TeamServeError(
      `--no-token is refused with --bind ${o.bind}: keep the token, or bind 127.0.0.1`,
    );
  const assets = new Assets(o.assetsDir ?? teamWebDir());
  const dashboard = new Assets();
  const tokens = o.token === null ? null : new Tokens(o.token);
  const pollMs = o.pollMs ?? TEAM_POLL_MS;
  const poller = new TeamPoller({
    url: o.url,
    env: o.env,
    timeZone: o.timeZone,
    startOfWeek: o.startOfWeek,
    everyMs: pollMs,
    ...(o.onTrouble ? { onTrouble: o.onTrouble } : {}),
  });
  let port = o.port;
  const app = createTeamApp({
    assets,
    dashboard,
    tokens,
    port: () => port,
    loopbackOnly: isLoopback(o.bind),
    poller,
    pollMs,
    version: version(),
  });
  const server = createAdaptorServer({
    fetch: app.fetch,
    serverOptions: {
      maxHeaderSize: MAX_HEADER_BYTES,
      requestTimeout: REQUEST_TIMEOUT_MS,
      headersTimeout: REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    },
  }) as Server;
  server.maxConnections = MAX_CONNECTIONS;
  server.setTimeout(IDLE_TIMEOUT_MS);
  port = await listenOn(server, o);
  poller.start();
  const bases = baseUrls(o.bind, port);
  const link = (t: string | null) => bases.map((b) => (t === null ? `${b}/` : `${b}/?t=${t}`));
  let closing: Promise<void> | null = null;
  return {
    port,
    tokens,
    links: { full: link(tokens?.full ?? null), read: tokens ? link(tokens.read) : [] },
    poller,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await poller.stop();
        await closed;
      })();
      return closing;
    },
  };
}
