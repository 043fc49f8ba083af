/**
 * A running `cctop serve`: the live picture, the event hub and the HTTP server around the app, with
 * node's own limits set (header size, request time, idle sockets, connection count) and a clean stop.
 *
 * Callable without the command line, so tests (and the terminal UI, later) can start one in-process.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { loadConfig } from '../../config/index.js';
import { HostPoller, type HostSpec } from '../../hosts/index.js';
import { type LiveOptions, LiveSessions } from '../../live/engine.js';
import type { Plan, SessionChanges, SessionDocument } from '../../model/document.js';
import type { ProviderId } from '../../model/facts.js';
import type { Env } from '../../providers/types.js';
import { PROGRESS_EVERY_MS, PROGRESS_MIN_BYTES } from '../cli/progress.js';
import { version } from '../cli/version.js';
import { buildProgress } from '../format.js';
import { Answers } from './answers.js';
import { createApp } from './app.js';
import { Assets } from './assets.js';
import { Tokens } from './auth.js';
import { baseUrls, isLoopback } from './bind.js';
import { ServedHosts } from './hosts.js';
import { RemoteFetches } from './hosts-fetch.js';
import {
  IDLE_TIMEOUT_MS,
  MAX_CONNECTIONS,
  MAX_HEADER_BYTES,
  MAX_PORT_STEPS,
  MAX_STREAMS,
  PING_MS,
  REQUEST_TIMEOUT_MS,
  TIMEOUT_CHECK_MS,
} from './limits.js';
import { Publication, servedAlerts, servedCollisions, servedNotifier } from './publish.js';
import { type EncodedEvent, EventHub, encodeNotice } from './sse.js';

export interface ServeOptions {
  env: Env;
  plan: Plan;
  providers: readonly ProviderId[] | null;
  timeZone?: string;
  threads?: number;
  useIndex?: boolean;
  delayMs: number;
  bind: string;
  port: number;
  /** Step past a busy port to the next free one (the default port); an explicit port fails instead. */
  stepPort: boolean;
  /** A token, or null for `--no-token` (refused here on anything but loopback). */
  token: string | null;
  /** Other machines whose sessions the dashboard shows beside this one's (`--host`); none: this machine only. */
  hosts?: readonly HostSpec[];
  /** The flags passed on to each remote cctop (`--plan`, `--provider`, as typed). */
  hostArgs?: readonly string[];
  /** Shorter limits, for tests. */
  limits?: Partial<{
    requestTimeoutMs: number;
    idleTimeoutMs: number;
    pingMs: number;
    maxStreams: number;
    /** How often each host is polled (default `HOST_POLL_MS`). */
    hostPollMs: number;
  }>;
  assetsDir?: string;
  /** Which process runs which session; none for the demo, whose sessions no process runs. */
  annotate?: LiveOptions['annotate'];
  /** The agents' own word on states (hooks, registries); none for the demo. */
  agents?: LiveOptions['agents'];
  /**
   * Send desktop and webhook notifications while this server holds the machine's sender lock
   * (`notify/`); off for the demo, whose sessions are made up, and for tests.
   */
  notify?: boolean;
}

export interface RunningServer {
  port: number;
  bind: string;
  tokens: Tokens | null;
  /** Links to open: with the full token, and the read-only ones. */
  links: { full: string[]; read: string[] };
  live: LiveSessions;
  hub: EventHub;
  close(): Promise<void>;
}

export class ServeError extends Error {}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/** Say on stderr what the live picture could not do: each notice once, each distinct failure once. */
function tellTroubles(live: LiveSessions): void {
  // The index rebuilt, or not usable this run: said once; the dashboard lists it with the problems.
  live.on('notice', (notice) => process.stderr.write(`cctop serve: ${notice}\n`));
  let lastError = '';
  live.on('error', (err) => {
    // A refresh that fails keeps the last picture on screen; say so once per distinct failure.
    if (err.message !== lastError) process.stderr.write(`cctop serve: refresh failed: ${err.message}\n`);
    lastError = err.message;
  });
}

/** What is wrong with the config file (it cannot be used, a setting was left out) is said once on stderr. */
const tellConfig = (text: string) => process.stderr.write(`cctop serve: ${text}\n`);

/** node's HTTP server around `fetch`, with its limits set: header size, request time, idle sockets, connections. */
function httpServer(fetch: (req: Request) => Response | Promise<Response>, o: ServeOptions): Server {
  const requestTimeout = o.limits?.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const server = createAdaptorServer({
    fetch,
    serverOptions: {
      maxHeaderSize: MAX_HEADER_BYTES,
      requestTimeout,
      headersTimeout: requestTimeout,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, requestTimeout),
    },
  }) as Server;
  server.maxConnections = MAX_CONNECTIONS;
  server.setTimeout(o.limits?.idleTimeoutMs ?? IDLE_TIMEOUT_MS);
  return server;
}

/**
 * Listen on `o.port`, or on the next free one past it when stepping is allowed (the default port);
 * the port listened on, or a `ServeError` that says what to do.
 */
async function listenStepping(server: Server, o: ServeOptions): Promise<number> {
  for (let step = 0; ; step++) {
    try {
      return await listen(server, o.port === 0 ? 0 : o.port + step, o.bind);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' && o.stepPort && o.port !== 0 && step < MAX_PORT_STEPS) continue;
      if (code === 'EADDRINUSE')
        throw new ServeError(
          o.stepPort
            ? `ports ${o.port}-${o.port + step} are all busy; pick one with --port (0 for any free port)`
            : `port ${o.port + step} is busy (another cctop serve?); pick another with --port, or --port 0 for any free port`,
        );
      if (code === 'EADDRNOTAVAIL')
        throw new ServeError(`--bind ${o.bind}: this machine has no such address`);
      if (code === 'EACCES')
        throw new ServeError(`port ${o.port + step} needs privileges; pick one above 1024 with --port`);
      throw new ServeError(`cannot listen on ${o.bind}:${o.port + step}: ${(err as Error).message}`);
    }
  }
}

/**
 * The hosts `o` names, polled on their own schedules (from `start` of the poller), and their sessions'
 * reports and conversations fetched when asked; null when it names none.
 */
function servedHosts(o: ServeOptions): { hosts: ServedHosts; remote: RemoteFetches; stop(): void } | null {
  if (!o.hosts || o.hosts.length === 0) return null;
  const poller = new HostPoller({
    hosts: o.hosts,
    env: o.env,
    ...(o.hostArgs ? { args: o.hostArgs } : {}),
    ...(o.limits?.hostPollMs !== undefined ? { everyMs: o.limits.hostPollMs } : {}),
  });
  const hosts = new ServedHosts(poller, o.hosts);
  const remote = new RemoteFetches(hosts, o.env, o.hostArgs);
  return {
    hosts,
    remote,
    stop() {
      poller.stop();
      remote.stop();
    },
  };
}

/**
 * Every update of this machine's picture, and every answer of a host, as a numbered update: a host's
 * rows beside this machine's newest document.
 */
function publishUpdates(
  live: LiveSessions,
  hosts: ServedHosts | null,
  publish: (e: EncodedEvent) => void,
  publication: Publication,
): void {
  let local: SessionDocument | null = null;
  live.on('update', (doc, changes?: SessionChanges) => {
    local = doc;
    publish(publication.update(hosts ? hosts.merged(doc) : doc, changes));
  });
  hosts?.poller.on('changed', () => {
    const changes = hosts.take();
    if (local !== null) publish(publication.update(hosts.merged(local), changes));
  });
}

/**
 * A build that reads much (a first build, a history that changed a lot) sends how far it is, at most
 * every `PROGRESS_EVERY_MS`, as one line the page shows in its header; `{"text":null}` when it ends.
 */
function publishProgress(live: LiveSessions, hub: EventHub): void {
  let shown = false;
  let lastMs = Number.NEGATIVE_INFINITY;
  live.on('building', (b) => {
    if (live.document !== null && b.bytesTotal < PROGRESS_MIN_BYTES) return;
    const now = Date.now();
    const edge = b.files === 0 || b.files === b.filesTotal;
    if (!edge && now - lastMs < PROGRESS_EVERY_MS) return;
    lastMs = now;
    shown = true;
    hub.publishProgress(encodeNotice('progress', JSON.stringify({ text: buildProgress(b) })), true);
  });
  live.on('settled', () => {
    if (!shown) return;
    shown = false;
    hub.publishProgress(encodeNotice('progress', JSON.stringify({ text: null })), false);
  });
}

export async function startServer(o: ServeOptions): Promise<RunningServer> {
  if (o.token === null && !isLoopback(o.bind))
    throw new ServeError(
      `--no-token is refused with --bind ${o.bind}: anyone who can reach this machine could read every conversation on it. Keep the token, or bind 127.0.0.1`,
    );
  const assets = new Assets(o.assetsDir);
  const tokens = o.token === null ? null : new Tokens(o.token);
  const live = new LiveSessions({
    env: o.env,
    plan: o.plan,
    providers: o.providers,
    timeZone: o.timeZone,
    threads: o.threads,
    useIndex: o.useIndex,
    delayMs: o.delayMs,
    ...(o.annotate ? { annotate: o.annotate } : {}),
    ...(o.agents ? { agents: o.agents } : {}),
  });
  /**
   * Update numbers restart at 1 with every run: tags (ETags, event ids) and frames carry this run's
   * name too, so a page that reconnects to a restarted server is never told it already has a
   * document it has not, nor applies this run's updates to the last run's document.
   */
  const run = randomBytes(6).toString('base64url');
  const publication = new Publication(run);
  const hub = new EventHub(
    (lastEventId) => publication.opening(lastEventId),
    o.limits?.maxStreams ?? MAX_STREAMS,
    o.limits?.pingMs ?? PING_MS,
  );
  const hosted = servedHosts(o);
  publishUpdates(live, hosted?.hosts ?? null, (e) => hub.publish(e), publication);
  publishProgress(live, hub);
  tellTroubles(live);

  let port = o.port;
  const app = createApp({
    live,
    hub,
    assets,
    answers: new Answers(live, run),
    tokens,
    port: () => port,
    loopbackOnly: isLoopback(o.bind),
    // Read again on each ask: a budget edited while serve runs shows on the next refresh of the page.
    config: () => loadConfig(o.env),
    current: async () => {
      if (!publication.ready) await live.refresh();
      return publication.whole()!;
    },
    version: version(),
    delayMs: o.delayMs,
    ...(o.agents ? { driven: o.agents.driven, typing: o.env } : {}),
    env: o.env,
    remote: hosted?.remote ?? null,
  });

  const server = httpServer(app.fetch, o);

  try {
    port = await listenStepping(server, o);
  } catch (err) {
    hub.close();
    throw err;
  }
  // The index's picture first, so a large history has a page to show before the first pass ends.
  await live.fromIndex().catch(() => null);
  live.start();
  hosted?.hosts.poller.start();
  const bases = baseUrls(o.bind, port);
  const notifier =
    o.notify === true
      ? servedNotifier({ live, env: o.env, dashboard: bases[0] ?? null, onProblem: tellConfig })
      : null;
  const alerts = servedAlerts({ live, env: o.env, hub, publication, onProblem: tellConfig, notifier });
  const collisions = servedCollisions({ live, hub, publication, notifier });

  const link = (t: string | null) => bases.map((b) => (t === null ? `${b}/` : `${b}/?t=${t}`));
  let closing: Promise<void> | null = null;
  return {
    port,
    bind: o.bind,
    tokens,
    links: { full: link(tokens?.full ?? null), read: tokens ? link(tokens.read) : [] },
    live,
    hub,
    close() {
      closing ??= new Promise<void>((resolve) => {
        live.stop();
        hosted?.stop();
        alerts.stop();
        collisions.stop();
        notifier?.stop();
        hub.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
