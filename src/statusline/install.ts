/**
 * Claude Code's `statusLine` setting as cctop writes it, and how cctop knows its own:
 * `{ "type": "command", "command": "<cctop> statusline", "padding": 0 }`.
 *
 * The command names cctop by an absolute path, because Claude Code runs it through a shell whose
 * PATH may not be the user's (a version manager's node, an editor's terminal): the `cctop` link the
 * user ran, when they ran one, which stays put across upgrades; else node and the package's script.
 * A status line is cctop's when its command runs a program named `cctop` (a link, or the npm
 * package's `cctop/dist/cctop.cjs` or `cctop/dist/cli.js`, wherever it lies) with `statusline` next; or when it is exactly
 * what cctop recorded writing (a development checkout, whose path names no cctop).
 *
 * Not here: the file work (`install/`), or what `cctop statusline` prints (`line.ts`).
 */
import { existsSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import type { Entry } from '../install/entry.js';
import { obj } from '../model/json.js';
import { packageRoot } from '../paths.js';

/** The word after cctop's program that runs the status line. */
const SUBCOMMAND = 'statusline';

/** The entry for a status line running `command`. */
export function statuslineEntry(command: string): Entry {
  return {
    path: ['statusLine'],
    want: { type: 'command', command, padding: 0 },
    isOurs: (found) => {
      const cmd = obj(found)?.command;
      return typeof cmd === 'string' && runsCctopStatusline(cmd);
    },
    // What the user set beside the command (its padding, a refresh interval) stays.
    repoint: (found) => ({ ...(obj(found) ?? {}), type: 'command', command }),
    label: 'status line',
  };
}

/** A shell word, quoted when it needs to be (single quotes, which a POSIX shell takes literally). */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The words of a simple shell command: split on blanks, quotes removed. Enough to find a program and
 * its first argument; anything cleverer (variables, pipes) just does not read as cctop's.
 */
export function shellWords(cmd: string): string[] {
  const words: string[] = [];
  const re = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\\.|[^\s'"])+|(\s+)/g;
  let word: string | null = null;
  for (const m of cmd.matchAll(re)) {
    if (m[4] !== undefined) {
      if (word !== null) words.push(word);
      word = null;
      continue;
    }
    const part = m[1] ?? m[2]?.replace(/\\(.)/g, '$1') ?? m[0].replace(/\\(.)/g, '$1');
    word = (word ?? '') + part;
  }
  if (word !== null) words.push(word);
  return words;
}

/** Whether `word` names cctop's program: a `cctop` link, or the package's script. */
function isCctop(word: string): boolean {
  const name = basename(word);
  return (
    name === 'cctop' ||
    name === 'cctop.js' ||
    name === 'cctop.cmd' ||
    /(^|[\\/])cctop[\\/]dist[\\/](cli\.js|cctop\.cjs)$/.test(word)
  );
}

/** Whether the command runs cctop's status line (`… cctop statusline`, `npx cctop statusline`). */
export function runsCctopStatusline(cmd: string): boolean {
  const words = shellWords(cmd);
  return words.some((w, i) => words[i + 1] === SUBCOMMAND && isCctop(w));
}

/**
 * The command this cctop would install: the `cctop` link it was run as (`argv1`), else node and the
 * package's own program, `dist/cctop.cjs` (which runs the line without loading an ES module; see
 * `launch.cts`).
 */
export function ourCommand(argv1: string | undefined = process.argv[1], node = process.execPath): string {
  if (argv1 !== undefined && isAbsolute(argv1) && basename(argv1) === 'cctop')
    return `${shellWord(argv1)} ${SUBCOMMAND}`;
  return `${shellWord(node)} ${shellWord(join(packageRoot(), 'dist', 'cctop.cjs'))} ${SUBCOMMAND}`;
}

/** The absolute paths a command runs that are not there any more (cctop or node moved). */
export function missingPrograms(cmd: string): string[] {
  const words = shellWords(cmd);
  const at = words.indexOf(SUBCOMMAND);
  return words.slice(0, at === -1 ? words.length : at).filter((w) => isAbsolute(w) && !existsSync(w));
}
