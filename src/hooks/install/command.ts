/**
 * The command line every hook entry runs, `<cctop> hook <agent> <event>`, and how cctop knows one of
 * its own whichever version or install place wrote it.
 *
 * `<cctop>` is what `ourCommand()` of the status line installs (`statusline/install.ts`): the
 * `cctop` link the user ran, when they ran one, else node and the package's `dist/cli.js`, each an
 * absolute path quoted for a POSIX shell, since the agents run hooks through a shell whose PATH may
 * not be the user's. A command is cctop's when the program before `hook <agent>` is cctop's (its
 * name says so); an entry from a development checkout, whose path names no cctop, is known by the
 * record beside the settings file instead (`install/sidecar.ts`).
 *
 * Not here: where the commands go (`json-hooks.ts`, `codex-notify.ts`, `opencode.ts`).
 */
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { ourCommand, runsCctopStatusline, shellWord, shellWords } from '../../statusline/install.js';
import type { HookAgent } from '../types.js';

/** The subcommand the agents run. */
export const HOOK_WORD = 'hook';

/**
 * The words that run this cctop (`/usr/local/bin/cctop`, or node and the package script): the
 * status line's command without its subcommand.
 */
export function cctopProgram(argv1: string | undefined = process.argv[1], node = process.execPath): string[] {
  return shellWords(ourCommand(argv1, node)).slice(0, -1);
}

/** The words of the hook command for one event (`extra`: a deciding hook's `--hold SECONDS`). */
export const hookArgv = (
  program: readonly string[],
  agent: HookAgent,
  event: string,
  extra: readonly string[] = [],
): string[] => [...program, HOOK_WORD, agent, event, ...extra];

/** The hook command for one event, as a shell runs it. */
export const hookCommand = (
  program: readonly string[],
  agent: HookAgent,
  event: string,
  extra: readonly string[] = [],
): string => hookArgv(program, agent, event, extra).map(shellWord).join(' ');

/** Whether `word` names cctop's program (a `cctop` link, or the package's `cctop/dist/cli.js`). */
export function isCctop(word: string): boolean {
  // The status line's rule, asked through its one question: "is this cctop's status line?".
  return runsCctopStatusline(`${shellWord(word)} statusline`);
}

/** A hook command read back: the program's words, and the agent and event it names. */
export interface ReadHook {
  program: string[];
  agent: string;
  event: string;
  /** What follows the event (Codex's `--then <program…>`). */
  rest: string[];
}

/**
 * The words of `argv` as one of cctop's hook commands, or null when they are not one. `own` is this
 * cctop's program, known as cctop's even where its path does not say so (a development checkout).
 */
export function readHookArgv(argv: readonly string[], own: readonly string[] = []): ReadHook | null {
  const at = argv.indexOf(HOOK_WORD);
  if (at < 1 || at + 2 >= argv.length) return null;
  const program = argv.slice(0, at);
  const isOwn = program.length === own.length && program.every((w, i) => w === own[i]);
  if (!isOwn && !program.some(isCctop)) return null;
  return { program, agent: argv[at + 1]!, event: argv[at + 2]!, rest: argv.slice(at + 3) };
}

/** A shell command as one of cctop's hook commands, or null. */
export const readHookCommand = (cmd: string, own: readonly string[] = []): ReadHook | null =>
  readHookArgv(shellWords(cmd), own);

/** The words of a command before `hook`: the program that runs it. */
export function programOf(cmd: string): string[] {
  const words = shellWords(cmd);
  const at = words.indexOf(HOOK_WORD);
  return at === -1 ? words : words.slice(0, at);
}

/** The absolute paths among the program's words that are not there any more (cctop or node moved). */
export function missingPrograms(program: readonly string[]): string[] {
  return program.filter((w) => isAbsolute(w) && !existsSync(w));
}
