/**
 * `cctop statusline`: the line Claude Code shows under its prompt, and `cctop statusline
 * install|remove|status` to put cctop there. Claude Code runs the bare command after every message,
 * with a JSON object on stdin; it prints one line and exits 0 whatever it was given, because a status
 * line that fails shows nothing at all.
 *
 * It never reads the history: it reads stdin, the digest the last background refresh kept, and at
 * most the tail of the one transcript Claude Code named (`statusline/gather.ts`). When the digest is
 * missing or old it prints what it knows and starts one background refresh (`statusline/background.ts`).
 * Its imports are kept few and light, since loading modules is most of its time; anything else (the
 * argument parser, the installer, starting a refresh) is imported when used.
 *
 * Not here: what the parts say (`statusline/line.ts`), or how settings files are edited (`install/`).
 */
import type { Readable } from 'node:stream';
import type { EntryStatus, InstallOutcome, RemoveOutcome } from '../../install/index.js';
import { cacheDir } from '../../paths.js';
import { gather } from '../../statusline/gather.js';
import { parseInput, readInput, readOwnInput } from '../../statusline/input.js';
import { DEFAULT_FORMAT, NOTHING, PARTS, type Part, parseFormat, statusLine } from '../../statusline/line.js';
import { safeLine } from '../terminal-text.js';
import { paint } from './color.js';
import type { Io } from './main.js';

export const STATUSLINE_HELP = `cctop statusline: a status line for Claude Code

Usage:
  cctop statusline [--format PARTS]    print the line (Claude Code runs this, JSON on stdin)
  cctop statusline install [--replace] make it Claude Code's status line (settings.json)
  cctop statusline remove              take it out again (a status line it replaced comes back)
  cctop statusline status              what Claude Code's status line is now
  cctop statusline --codex [--cwd DIR] the same line for the newest Codex session in DIR (default:
                                       here), for a tmux status or a prompt: Codex runs no
                                       status line command of its own

The line: the model, this session's cost and context use, today's spend over every session,
Claude's 5-hour and 7-day limits (else the active 5-hour block's cost and time left), and a
budget once one is near. It reads what the last refresh of the index kept, never the history,
and starts a refresh in the background when that is over a minute old. See docs/statusline.md.

Options:
  --format PARTS                   the parts, in order, separated by commas, from:
                                   ${PARTS.join(', ')}
                                   (default: ${DEFAULT_FORMAT.join(',')})
  --replace                        install over another tool's status line (kept, and put back
                                   by remove)
  -h, --help                       this help
`;

const FLAGS = {
  format: { type: 'string' },
  replace: { type: 'boolean' },
  codex: { type: 'boolean' },
  cwd: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const ACTIONS = ['install', 'remove', 'status'] as const;
type Action = (typeof ACTIONS)[number];

/**
 * Run `cctop statusline …` (`args` are the words after `statusline`). Returns the exit code: the
 * line itself always exits 0; install exits 1 when it refused (a foreign status line, a settings
 * file that does not read); a bad argument throws `UsageError` (exit 2). `stdin` is what the line
 * reads Claude Code's object from; null: this process's own stdin, read without making
 * `process.stdin` (`readOwnInput`).
 */
export async function statuslineCommand(
  args: string[],
  io: Io,
  stdin: Readable | null = null,
): Promise<number> {
  const plain = plainLine(args);
  if (plain !== null) return printLine(io, stdin, await formatOf(plain.format));
  const { parse, UsageError } = await import('./options.js');
  const { values, positionals } = parse(args, FLAGS, 'statusline');
  if (values.help === true) {
    io.out(STATUSLINE_HELP);
    return 0;
  }
  const [word, ...more] = positionals;
  if (more.length > 0)
    throw new UsageError(`statusline takes one of ${ACTIONS.join(', ')} (got ${positionals.join(' ')})`);
  if (values.cwd !== undefined && values.codex !== true)
    throw new UsageError('--cwd is for cctop statusline --codex');
  if (values.codex === true) {
    if (word !== undefined) throw new UsageError('--codex is for the line itself (cctop statusline --codex)');
    const { printCodexLine } = await import('./statusline-codex.js');
    const format = await formatOf(typeof values.format === 'string' ? values.format : undefined);
    return printCodexLine(io, format, typeof values.cwd === 'string' ? values.cwd : process.cwd());
  }
  if (word === undefined) {
    if (values.replace === true) throw new UsageError('--replace is for cctop statusline install');
    return printLine(
      io,
      stdin,
      await formatOf(typeof values.format === 'string' ? values.format : undefined),
    );
  }
  const action = ACTIONS.find((a) => a === word);
  if (action === undefined)
    throw new UsageError(`statusline ${word}: expected ${ACTIONS.join(', ')} (try cctop statusline --help)`);
  if (values.format !== undefined)
    throw new UsageError('--format is for the line itself (cctop statusline --format …)');
  if (values.replace === true && action !== 'install')
    throw new UsageError('--replace is for cctop statusline install');
  return settingsCommand(io, action, values.replace === true);
}

/**
 * The line as Claude Code runs it, with nothing after `statusline` or only `--format PARTS`, read
 * here; null for anything else, which goes through the command line's parser (its messages, its "did
 * you mean"). That parser brings every command's help text with it, and the status line runs after
 * every message: it is loaded only when needed.
 */
function plainLine(args: readonly string[]): { format: string | undefined } | null {
  if (args.length === 0) return { format: undefined };
  const [flag, value] = args;
  if (args.length === 1 && flag!.startsWith('--format=')) return { format: flag!.slice('--format='.length) };
  if (args.length === 2 && flag === '--format' && !value!.startsWith('-')) return { format: value };
  return null;
}

async function formatOf(spec: string | undefined): Promise<readonly Part[]> {
  if (spec === undefined) return DEFAULT_FORMAT;
  const f = parseFormat(spec);
  if (f.kind === 'bad') {
    const { UsageError } = await import('./options.js');
    throw new UsageError(`--format: ${safeLine(f.word)} is not a part (expected ${PARTS.join(', ')})`);
  }
  return f.parts.length > 0 ? f.parts : DEFAULT_FORMAT;
}

/** The line. Whatever stdin holds and whatever fails, one line is printed and the exit code is 0. */
async function printLine(io: Io, stdin: Readable | null, parts: readonly Part[]): Promise<number> {
  let printed = false;
  try {
    const nowMs = Date.now();
    const input = parseInput(stdin === null ? await readOwnInput() : await readInput(stdin));
    const g = await gather(input, io.env, nowMs);
    io.out(statusLine(g.figures, parts, nowMs, paint(true, io.env)));
    printed = true;
    // Kept for `cctop quota`: this is the freshest word on the account's quota while a session runs.
    if (input.limits !== null)
      await (await import('../../statusline/quota-note.js')).keepLimits(
        cacheDir(io.env),
        input.limits,
        nowMs,
      );
    if (g.refresh !== null) {
      const { startBackgroundRefresh } = await import('../../statusline/background.js');
      startBackgroundRefresh(cacheDir(io.env), io.env, g.seenBuiltAtMs);
    }
  } catch {
    // A status line that throws shows nothing: better to say that nothing is known.
    if (!printed) io.out(NOTHING);
  }
  return 0;
}

/** A status line setting's command, when it has one. */
function commandOf(v: unknown): string | null {
  const o = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  return typeof o?.command === 'string' ? o.command : null;
}

/** A value from a settings file, for one line of a message: its command when it has one, made safe. */
function shown(v: unknown): string {
  const text = commandOf(v) ?? JSON.stringify(v);
  return safeLine(text.length > MAX_SHOWN_CHARS ? `${text.slice(0, MAX_SHOWN_CHARS)}…` : text);
}

/** A foreign command line is shown to this length: enough to recognise it. */
const MAX_SHOWN_CHARS = 120;

async function settingsCommand(io: Io, action: Action, replace: boolean): Promise<number> {
  const install = await import('../../install/index.js');
  const { statuslineEntry, ourCommand, missingPrograms } = await import('../../statusline/install.js');
  const target = install.claudeSettings(io.env);
  const entry = statuslineEntry(ourCommand());
  try {
    switch (action) {
      case 'install':
        return installed(io, target.path, install.installEntry(target, entry, { replace }).outcome);
      case 'remove':
        return removed(io, target.path, install.removeEntry(target, entry).outcome);
      case 'status':
        return statusOf(io, target.path, install.entryStatus(target, entry), missingPrograms);
    }
  } catch (err) {
    if (!(err instanceof install.InstallError)) throw err;
    io.err(`cctop: ${err.message}`);
    return 1;
  }
}

function installed(io: Io, path: string, o: InstallOutcome): number {
  switch (o.kind) {
    case 'added':
      io.out(`cctop's status line is in ${path}; Claude Code shows it from its next message.`);
      return 0;
    case 'unchanged':
      io.out(`cctop's status line is already in ${path}.`);
      return 0;
    case 'repointed':
      io.out(`cctop's status line in ${path} now runs this cctop (it ran ${shown(o.from)}).`);
      return 0;
    case 'replaced':
      io.out(
        `cctop's status line replaced ${shown(o.displaced)} in ${path}; cctop statusline remove puts that back.`,
      );
      return 0;
    case 'foreign':
      io.err(
        `cctop: ${path} already has a status line (${shown(o.found)}); run cctop statusline install --replace to replace it (it is kept, and cctop statusline remove puts it back)`,
      );
      return 1;
  }
}

function removed(io: Io, path: string, o: RemoveOutcome): number {
  switch (o.kind) {
    case 'removed':
      io.out(
        o.restored === null
          ? `cctop's status line is out of ${path}.`
          : `cctop's status line is out of ${path}; the one it replaced is back (${shown(o.restored)}).`,
      );
      return 0;
    case 'restored':
      io.out(
        `cctop's status line was already out of ${path}; the one it replaced is back (${shown(o.restored)}).`,
      );
      return 0;
    case 'absent':
      io.out(`${path} has no status line of cctop's; nothing to remove.`);
      return 0;
    case 'foreign':
      io.out(`The status line in ${path} is not cctop's (${shown(o.found)}); left as it is.`);
      return 0;
  }
}

function statusOf(io: Io, path: string, s: EntryStatus, missing: (cmd: string) => string[]): number {
  switch (s.kind) {
    case 'absent':
      io.out(`${path} has no status line (cctop statusline install puts cctop's there).`);
      return 0;
    case 'foreign':
      io.out(`${path}: the status line is another tool's: ${shown(s.found)}`);
      return 0;
    case 'ours': {
      const gone = missing(commandOf(s.found) ?? '');
      io.out(`${path}: the status line is cctop's: ${shown(s.found)}`);
      if (gone.length > 0)
        io.out(
          `It runs ${gone.map(safeLine).join(' and ')}, which is gone: run cctop statusline install to repoint it.`,
        );
      else if (!s.current)
        io.out('It runs another cctop than this one: cctop statusline install points it here.');
      if (s.displaced !== null)
        io.out(`It replaced ${shown(s.displaced)}, which cctop statusline remove puts back.`);
      return 0;
    }
  }
}
