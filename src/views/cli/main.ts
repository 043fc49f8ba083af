/**
 * The `cctop` command: reads the arguments, runs one command, returns its exit code.
 *
 * Options go anywhere on the line (`cctop --demo serve` is `cctop serve --demo`): the command is the
 * first word that is not an option or an option's value, and each command then parses the whole line
 * without it, against its own flags, so each has its own help and its own "unknown option".
 *
 * Exit codes: 0 ok, 1 a real fault (nothing could be read, a network update failed), 2 a bad argument.
 */

import { join } from 'node:path';
import { loadConfigIfAny } from '../../config/load.js';
import type { Annotator } from '../../model/document.js';
import { keepZoneNameIn, ZONE_FILE } from '../../model/zone.js';
import { cacheDir } from '../../paths.js';
import type { Env } from '../../providers/types.js';
import { type ActCommand, isActCommand } from './act-names.js';
import { COMMANDS, type CommandName, FLAGS, isCommand, splitCommand } from './command-line.js';
import { demoEnv } from './demo.js';
import type { commandHelp } from './help.js';
import { namesHosts } from './hosts-named.js';
import { type CommonOptions, commonOptions, helpOf, parse, UsageError } from './options.js';
import { keepingAfter, nothingListed, nothingMatches, snapshot, unfiltered } from './snapshots.js';
import { closest } from './typo.js';

export interface Io {
  /** A line of output; bytes are written as they are (`--json`). */
  out(s: string | Uint8Array): void;
  /**
   * Text and bytes written as they are, in order, with no newline added: a large answer (`--json`)
   * need not be joined into one buffer first. Absent, they are joined and given to `out`.
   */
  write?(chunks: readonly (string | Uint8Array)[]): void;
  err(s: string): void;
  /**
   * Long text for a person at a terminal, through their pager (`pager.ts`); resolves once they have
   * left it. Absent (tests, a library caller): the text goes to `out`.
   */
  page?(text: string): Promise<void>;
  isTty: boolean;
  columns: number | undefined;
  env: Env;
}

function unknownCommand(word: string): UsageError {
  // `cctop list` means `cctop --list`.
  const asFlag = word.length > 1 && word in FLAGS.root ? `--${word}` : null;
  const near = asFlag ?? closest(word, COMMANDS);
  // `cctop -- chat`: a command word placed where only arguments go is not a typo of itself.
  if (near === word)
    return new UsageError(`${word} after -- is an argument, not a command (try cctop --help)`);
  return new UsageError(`unknown command ${word}${near ? `, did you mean ${near}?` : ''} (try cctop --help)`);
}

/** `cctop` on a terminal: the live table. */
async function tuiCommand(io: Io, o: CommonOptions, values: Record<string, unknown>): Promise<number> {
  const delayMs = (await import('./delay.js')).delayOption(values.delay);
  // The live table shows what is happening now; a day range is for the lists.
  if (o.sinceMs !== null || o.untilMs !== null)
    throw new UsageError(
      `the live table shows every day; --since and --until are for --list, --json, chat and report (try cctop --list ${o.filters.join(' ')})`,
    );
  const { runTui } = await import('../tui/app.js');
  let env = io.env;
  let annotate: Annotator | null = null;
  let stopReplay = () => {};
  if (o.demo) {
    env = demoEnv(io.env);
    const { startReplay } = await import('../tui/demo-replay.js');
    const { settleStates } = await import('../../live/annotate.js');
    const replay = startReplay(env.HOME!);
    stopReplay = replay.stop;
    // The replay says which sessions "run"; states are settled with that, as processes would settle them.
    annotate = (d) => {
      const marked = replay.annotate(d);
      return settleStates(d.sessions, Date.now()) || marked;
    };
  }
  // The config file's zone, read (with its reader loaded) only when there is a file.
  const timeZone = o.timeZone ?? (await loadConfigIfAny(io.env)).config.reports.timeZone ?? undefined;
  // Other machines (`--host`, `CCTOP_HOSTS`, the config), each polled on its own schedule.
  const hosts =
    o.demo || !namesHosts(io, values) ? null : (await import('./hosts.js')).pollerFor(io, values, o.demo);
  try {
    return await runTui({
      live: {
        env,
        plan: o.plan,
        providers: o.providers,
        timeZone,
        threads: o.threads,
        useIndex: o.useIndex && !o.demo,
        delayMs,
      },
      out: process.stdout,
      input: process.stdin,
      notify: !o.demo,
      ...(annotate ? { annotate } : {}),
      ...(hosts ? { hosts } : {}),
      ...(o.filters.length > 0
        ? {
            whenEmpty: async () =>
              nothingMatches(o.filters, (await snapshot(unfiltered(o), io.env)).document.sessions.length),
          }
        : {}),
    });
  } finally {
    stopReplay();
  }
}

/**
 * The commands `--demo` does not apply to, and why: each acts on this machine's own agents, files or
 * store, or answers one real session, and the demo history is none of those. Said, rather than
 * refused as an unknown option, since options go anywhere on the line.
 */
const NO_DEMO: Partial<Record<CommandName, string>> = {
  watch:
    'it notifies you (desktop, webhook) as your own sessions change, and the demo history is not yours (cctop --demo shows the live table)',
  statusline:
    'it prints the line of the Claude Code session that runs it, from what Claude Code sends on stdin (cctop --demo --list shows the demo)',
  hooks: "it installs cctop into your agents' settings files, and no agent runs the demo's sessions",
  pricing:
    'the prices it updates are the ones every command uses, the demo included: run cctop pricing update',
  push: "it sends your own sessions' spend to a team store, and the demo's are not yours to send",
  store: "it looks after a team store's database, which holds nothing of the demo",
  config: 'the demo reads the same config file as everything else: run cctop config without it',
  exec: 'it runs a real agent CLI, which the demo has none of (cctop --demo report shows a session in depth)',
};

/** `--demo` among a command's options (not after `--`, where words are the command's own). */
const asksDemo = (args: readonly string[]): boolean => {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--demo');
};

export async function main(argv: string[], io: Io): Promise<number> {
  keepZoneNameIn(join(cacheDir(io.env), ZONE_FILE));
  try {
    const { command, args } = splitCommand(argv);
    if (command === null) return await rootCommand(io, args);
    if (!isCommand(command)) throw unknownCommand(command);
    const noDemo = NO_DEMO[command];
    if (noDemo !== undefined && asksDemo(args))
      throw new UsageError(`--demo does not apply to ${command}: ${noDemo}`);
    return await run(command, args, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`cctop: ${err.message}`);
      return 2;
    }
    throw err;
  }
}

/** The bare `cctop`: the live table on a terminal, else the list; `--list` and `--json` say which. */
async function rootCommand(io: Io, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, FLAGS.root);
  if (values.help) {
    return await saidHelp(io, null);
  }
  if (values.version) {
    const { version } = await import('./version.js');
    io.out(`cctop ${version()}`);
    return 0;
  }
  // Only after `--`: every other word was taken for a command.
  if (positionals.length > 0) throw unknownCommand(positionals[0]!);
  const o = commonOptions(values);
  // The one-shots' answers are printed first and kept warm for the next run after.
  if (values.json)
    return await keepingAfter(async () => (await import('./root-lists.js')).jsonCommand(io, o, values));
  if (values.list || !io.isTty || !process.stdin.isTTY)
    return await keepingAfter(async () => (await import('./root-lists.js')).listCommand(io, o, values));
  return await tuiCommand(io, o, values);
}

/** The commands `run` handles itself; `runTool` the rest. */
type RunName =
  | 'serve'
  | 'watch'
  | 'search'
  | 'secrets'
  | 'exec'
  | 'help'
  | 'doctor'
  | 'explain'
  | 'chat'
  | 'report';
type ToolName = Exclude<CommandName, RunName | ActCommand>;

async function run(command: CommandName, args: string[], io: Io): Promise<number> {
  if (isActCommand(command)) return (await import('./act-commands.js')).actCommand(command, args, io);
  switch (command) {
    case 'serve': {
      const { serveCommand } = await import('../serve/command.js');
      return serveCommand(args, io);
    }
    case 'watch':
      return (await import('./watch.js')).watchCommand(args, io);
    case 'search':
      return (await import('./search.js')).searchCommand(args, io);
    case 'secrets':
      return (await import('./secrets.js')).secretsCommand(args, io);
    case 'exec': {
      const { execCommand } = await import('./exec.js');
      return execCommand(args, io);
    }
    case 'help': {
      // `cctop help`, `cctop help chat`: the words after `help`, flags aside.
      const [topic, ...more] = args.filter((a) => !a.startsWith('-'));
      if (more.length > 0) throw new UsageError(`help takes one command (got ${[topic, ...more].join(' ')})`);
      if (topic === undefined || topic === 'help') {
        return await saidHelp(io, null);
      }
      if (!isCommand(topic)) throw unknownCommand(topic);
      return run(topic, ['--help'], io);
    }
    case 'doctor': {
      const { values, positionals } = parse(args, FLAGS.doctor, command);
      if (values.help) return await saidHelp(io, command);
      if (positionals.length > 0) throw new UsageError(`doctor takes no arguments (got ${positionals[0]})`);
      const o = commonOptions(values);
      // Other machines (`--host`, `CCTOP_HOSTS`, the config) are checked while this one is read.
      const hosts = o.demo ? null : (await import('./hosts-doctor.js')).startHostChecks(io, values);
      const { doctor } = await import('./doctor.js');
      const code = await doctor(io, await snapshot(o, io.env, true), o.demo ? demoEnv(io.env) : io.env);
      return hosts === null || (await hosts()) ? code : 1;
    }
    case 'explain': {
      const { values, positionals } = parse(args, FLAGS.explain, command);
      if (values.help) return await saidHelp(io, command);
      const { explainCommand } = await import('./explain.js');
      return explainCommand(io, positionals, commonOptions(values), values.json === true);
    }
    case 'chat':
    case 'report': {
      const { values, positionals } = parse(args, FLAGS[command], command);
      if (values.help) return await saidHelp(io, command);
      if (positionals.length > 1)
        throw new UsageError(
          `${command} takes one session id or prefix (got ${positionals.join(' ')}; try ${helpOf(command)})`,
        );
      const o = commonOptions(values);
      const { sessionCommand } = await import('./session.js');
      return await sessionCommand(
        io,
        command,
        positionals[0] ?? null,
        values,
        () => snapshot(o, io.env),
        () => snapshot(o, io.env, true),
        (snap) => nothingListed(snap, o, io.env),
      );
    }
    default:
      return runTool(command, args, io);
  }
}

/** The commands about spend, settings and the agents' files. */
async function runTool(command: ToolName, args: string[], io: Io): Promise<number> {
  switch (command) {
    case 'daily':
    case 'weekly':
    case 'monthly':
    case 'blocks':
    case 'spend':
    case 'budget': {
      const { values, positionals } = parse(args, command === 'budget' ? FLAGS.budget : FLAGS.spend, command);
      if (values.help) return await saidHelp(io, command);
      if (positionals.length > 0)
        throw new UsageError(`${command} takes no arguments (got ${positionals[0]})`);
      const { moneyCommand } = await import('./money.js');
      return moneyCommand(io, command, commonOptions(values), values);
    }
    case 'quota': {
      const { values, positionals } = parse(args, FLAGS.quota, command);
      if (values.help) return await saidHelp(io, command);
      if (positionals.length > 0) throw new UsageError(`quota takes no arguments (got ${positionals[0]})`);
      const { quotaCommand } = await import('./quota-command.js');
      return quotaCommand(io, commonOptions(values), values.json === true);
    }
    case 'hook':
      return hookCommand(args, io);
    case 'handoff':
    case 'export':
      return shareCommand(command, args, io);
    case 'statusline': {
      const { statuslineCommand } = await import('./statusline.js');
      return statuslineCommand(args, io);
    }
    case 'hooks':
      return (await import('./hooks.js')).hooksCommand(args, io);
    case 'approve':
    case 'pending':
      return (await import('./approve.js')).approveCommand(args, io, command === 'pending');
    case 'mcp':
      return (await import('./mcp.js')).mcpCommand(args, io);
    case 'push':
      return (await import('./push.js')).pushCommand(io, args);
    case 'store':
      return (await import('./store.js')).storeCommand(io, args);
    case 'config': {
      const { values, positionals } = parse(args, FLAGS.config, command);
      if (values.help) return await saidHelp(io, command);
      const { configCommand } = await import('./config.js');
      return configCommand(io, positionals);
    }
    case 'pricing': {
      const { values, positionals } = parse(args, FLAGS.pricing, command);
      if (values.help) return await saidHelp(io, command);
      if (positionals[0] !== 'update' || positionals.length > 1)
        throw new UsageError('usage: cctop pricing update');
      const { updatePricing } = await import('./pricing.js');
      return updatePricing(io);
    }
  }
}

/** `cctop handoff` and `cctop export`: one session, taken to another harness or written out whole. */
async function shareCommand(command: 'handoff' | 'export', args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, FLAGS[command], command);
  if (values.help) return await saidHelp(io, command);
  if (positionals.length > 1)
    throw new UsageError(
      `${command} takes one session id or prefix (got ${positionals.join(' ')}; try ${helpOf(command)})`,
    );
  const o = commonOptions(values);
  const snap = await snapshot(o, io.env);
  const src = {
    query: positionals[0] ?? null,
    snap,
    whole: () => snapshot(o, io.env, true),
    nothing: () => nothingListed(snap, o, io.env),
  };
  const share = await import('./share.js');
  return command === 'handoff' ? share.handoffCommand(io, src, values) : share.exportCommand(io, src, values);
}

/**
 * `cctop hook …` is handed to hooks/bin.js by cli.ts before this file loads; it gets here only after
 * options (`cctop --demo hook …`) or as `cctop help hook`. The hook ends the process itself (exit 0).
 */
async function hookCommand(args: string[], io: Io): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) return await saidHelp(io, 'hook');
  await import('../../hooks/bin.js');
  return 0;
}

/**
 * Print the help of `command` (null: cctop's own) and succeed. The help texts are loaded only here:
 * they are long, and bring the modules they quote (the act commands' keys, the conversation's
 * limits, the secret patterns behind them), which a command that is not asked for help never uses.
 */
async function saidHelp(io: Io, command: Parameters<typeof commandHelp>[0] | null): Promise<number> {
  const help = await import('./help.js');
  io.out(command === null ? help.ROOT_HELP : help.commandHelp(command));
  return 0;
}
