/**
 * Reading an agent's command line: what the places that recognise their harness's processes share
 * (`ProcessRule` in `types.ts`). Which program is which harness, and which flag names a session,
 * stays in each harness's own `place.ts`.
 */
import { basename } from 'node:path';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether an argument is a session id as Claude Code and Codex mint them. Anything else after
 * `--resume` (a search term, a name, a flag) names no session that a process could be matched by.
 */
export const isUuid = (arg: string | undefined): arg is string => arg !== undefined && UUID.test(arg);

/** The program's own file name: `claude` for `/usr/local/bin/claude`. */
export const programName = (argv: readonly string[]): string => basename(argv[0] ?? '');

/** Whether the command line is node running a script whose path matches `script`. */
export function nodeRuns(argv: readonly string[], script: RegExp): boolean {
  return /^node(js)?$/.test(programName(argv)) && script.test(argv[1] ?? '');
}
