/**
 * `cctop watch`: the machine notifier alone, headless, for people who do not keep the live table
 * open. It keeps the same live picture the table does (the transcripts, the process table, the
 * agents' hooks), with its alerts and collisions, and sends each crossing as a desktop notification
 * and to the webhook (`docs/notifications.md`), once per crossing and one sender per machine: a
 * watcher takes the sending over from a table or a dashboard, and a second watcher waits.
 *
 *   cctop watch [--notify URL] [--notify-format json|ntfy|slack] [--no-desktop] [--delay 2] [--plan …]
 *               [--harness …] [--timezone ZONE] [--no-cache] [--threads N]
 *
 * Prints one line per notice it sends (stdout) and what goes wrong (stderr); runs until SIGINT or
 * SIGTERM, and gives the lock back when it stops. Exit codes as everywhere: 2 for a bad argument, 1
 * when the runtime directory cannot be used (no lock, so nothing could be sent).
 *
 * Not here: the notifier itself (`notify/`).
 */
import {
  loadConfig,
  NOTIFY_FORMATS,
  type NotifyFormat,
  shownUrl,
  webhookUrl,
  zoneFor,
} from '../../config/index.js';
import { watchedStates } from '../../live/agent-state.js';
import { AlertFeed } from '../../live/alert-feed.js';
import { CollisionWatch } from '../../live/collision-watch.js';
import { DeepReader } from '../../live/deep.js';
import { LiveSessions } from '../../live/engine.js';
import {
  type Channel,
  type LockState,
  MachineNotifier,
  type Notice,
  type NotifyOverrides,
} from '../../notify/index.js';
import type { Env } from '../../providers/types.js';
import { safeLine } from '../terminal-text.js';
import { delayOption } from './delay.js';
import { commandHelp } from './help.js';
import type { Io } from './main.js';
import { commonOptions, parse, UsageError } from './options.js';
import { untilSignal } from './signals.js';

const FLAGS = {
  plan: { type: 'string', short: 'p' },
  provider: { type: 'string' },
  timezone: { type: 'string' },
  'no-cache': { type: 'boolean' },
  threads: { type: 'string' },
  delay: { type: 'string' },
  notify: { type: 'string' },
  'notify-format': { type: 'string' },
  'no-desktop': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface WatchArgs {
  env: Env;
  plan: ReturnType<typeof commonOptions>['plan'];
  providers: ReturnType<typeof commonOptions>['providers'];
  timeZone: string | undefined;
  threads: number | undefined;
  useIndex: boolean;
  delayMs: number;
  overrides: NotifyOverrides;
}

/** What a `cctop watch` command line asks for, or null for --help (throws UsageError on a bad one). */
export function watchOptions(args: string[], io: Io): WatchArgs | null {
  const { values, positionals } = parse(args, FLAGS, 'watch');
  if (values.help) return null;
  if (positionals.length > 0) throw new UsageError(`watch takes no arguments (got ${positionals[0]})`);
  const common = commonOptions(values);
  const delayMs = delayOption(values.delay);
  const overrides: NotifyOverrides = {};
  if (typeof values.notify === 'string') {
    const url = webhookUrl(values.notify);
    if (!url.ok) throw new UsageError(`--notify ${values.notify}: ${url.why}`);
    overrides.url = url.url;
  }
  const format = values['notify-format'];
  if (typeof format === 'string') {
    const f = NOTIFY_FORMATS.find((x) => x === format.toLowerCase());
    if (!f) throw new UsageError(`--notify-format ${format}: expected json, ntfy or slack`);
    overrides.format = f;
  }
  if (values['no-desktop'] === true) overrides.desktop = false;
  return {
    env: io.env,
    plan: common.plan,
    providers: common.providers,
    timeZone: zoneFor(io.env, common.timeZone),
    threads: common.threads,
    useIndex: common.useIndex,
    delayMs,
    overrides,
  };
}

/** One line per notice sent: when, what, which channels, and its text (made safe for a terminal). */
export function sentLine(n: Notice, channels: readonly Channel[]): string {
  const to = channels.length === 0 ? 'nowhere (no channel on)' : channels.join('+');
  return `${n.at}  ${n.kind.padEnd(10)}  ${to.padEnd(15)}  ${safeLine(n.text)}`;
}

/** Who sends, as the watcher tells it when that changes. */
function holdingLine(holding: boolean, lock: LockState): string {
  if (holding) return 'cctop watch: this watcher sends the notifications now';
  if (lock.kind !== 'held')
    return 'cctop watch: another cctop sends the notifications; this one takes over when it stops';
  return `cctop watch: another watcher (pid ${lock.holder.pid}) sends the notifications; this one takes over when it stops`;
}

/** What will be sent where, said once at the start. */
function channelsLine(env: Env, overrides: NotifyOverrides, desktop: string | null): string {
  const notify = loadConfig(env).config.notify;
  const url = overrides.url !== undefined ? overrides.url : notify.url;
  const format: NotifyFormat = overrides.format ?? notify.format;
  const wantDesktop = overrides.desktop ?? notify.desktop;
  const parts = [
    !wantDesktop ? 'desktop off' : desktop === null ? 'desktop: no notifier on PATH' : `desktop: ${desktop}`,
    url === null ? 'no webhook (notify.url, or --notify URL)' : `webhook: ${shownUrl(url)} (${format})`,
  ];
  return `cctop watch: ${parts.join('; ')}`;
}

/** Run `cctop watch` until `stop` settles (by default, until SIGINT or SIGTERM); returns the exit code. */
export async function watchCommand(args: string[], io: Io, stop?: Promise<unknown>): Promise<number> {
  let o: WatchArgs | null;
  try {
    o = watchOptions(args, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`cctop: ${err.message}`);
      return 2;
    }
    throw err;
  }
  if (o === null) {
    io.out(commandHelp('watch'));
    return 0;
  }
  const { env, overrides } = o;
  const live = new LiveSessions({
    env,
    plan: o.plan,
    providers: o.providers,
    timeZone: o.timeZone,
    threads: o.threads,
    useIndex: o.useIndex,
    delayMs: o.delayMs,
    ...watchedStates(env),
  });
  const notifier = new MachineNotifier({
    env,
    role: 'watch',
    overrides,
    keepAlive: true,
    onSent: (n, channels) => io.out(sentLine(n, channels)),
    onProblem: (text) => io.err(`cctop watch: ${safeLine(text)}`),
    onHolding: (holding, lock) => io.err(holdingLine(holding, lock)),
  });
  if (!notifier.start()) return 1;
  io.err(channelsLine(env, overrides, notifier.desktopTool?.kind ?? null));
  const deep = new DeepReader();
  const alerts = new AlertFeed({
    live,
    env,
    deep,
    onAlerts: (list) => notifier.alerts(list),
    onProblem: (text) => io.err(`cctop watch: config: ${safeLine(text)}`),
  });
  // A shared repository without a shared file is worth seeing, not worth a notification.
  const collisions = new CollisionWatch({
    calls: (s) => deep.calls(s.provider, s.file),
    onNew: (fresh) => notifier.collisions(fresh.filter((c) => c.level === 'file')),
  });
  notifier.watch(live);
  live.on('error', (err) => io.err(`cctop watch: refresh failed: ${safeLine(err.message)}`));
  live.on('notice', (text) => io.err(`cctop watch: ${safeLine(text)}`));
  try {
    await live.fromIndex().catch(() => null);
    live.start();
    alerts.start();
    collisions.watch(live);
    await (stop ?? untilSignal());
  } finally {
    collisions.stop();
    alerts.stop();
    live.stop();
    notifier.stop();
    deep.close();
  }
  return 0;
}
