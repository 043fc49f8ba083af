/**
 * How `cctop` tells the command word from the options around it: the commands it knows, the flags of
 * every command `main` parses itself, and the split of a line into its command and the rest.
 *
 * Kept apart from `main.ts` so that file stays the dispatch to each command. Not here: parsing a
 * command's flags into values and their errors (`options.ts`), or the flags of `serve` and `exec`,
 * which parse their own lines.
 */

import type { ParseArgsConfig } from 'node:util';
import { COMMON_FLAGS } from './options.js';
import { SPEND_FLAGS } from './spend-flags.js';

/** The commands `cctop` knows, as typed after it. */
export const COMMANDS = [
  'chat',
  'search',
  'secrets',
  'report',
  'handoff',
  'export',
  'explain',
  'send',
  'stop',
  'resume',
  'wait',
  'run',
  'attach',
  'daily',
  'weekly',
  'monthly',
  'blocks',
  'spend',
  'budget',
  'quota',
  'config',
  'statusline',
  'hooks',
  'hook',
  'approve',
  'pending',
  'mcp',
  'push',
  'store',
  'serve',
  'watch',
  'exec',
  'doctor',
  'pricing',
  'help',
] as const;
export type CommandName = (typeof COMMANDS)[number];

export const isCommand = (word: string): word is CommandName =>
  (COMMANDS as readonly string[]).includes(word);

type Flags = NonNullable<ParseArgsConfig['options']>;

const HELP_FLAG = { help: { type: 'boolean', short: 'h' } } as const;

/** The flags of each command `main` parses itself (`serve` and `exec` parse their own). */
export const FLAGS = {
  /** The bare `cctop`: the live table, `--list`, `--json`. */
  root: {
    ...COMMON_FLAGS,
    ...HELP_FLAG,
    list: { type: 'boolean', short: 'l' },
    json: { type: 'boolean', short: 'j' },
    delay: { type: 'string', short: 'd' },
    version: { type: 'boolean', short: 'v' },
    host: { type: 'string', multiple: true },
  },
  chat: {
    ...COMMON_FLAGS,
    ...HELP_FLAG,
    json: { type: 'boolean', short: 'j' },
    markdown: { type: 'boolean' },
    before: { type: 'string' },
    at: { type: 'string' },
    agent: { type: 'string' },
    host: { type: 'string', multiple: true },
  },
  report: {
    ...COMMON_FLAGS,
    ...HELP_FLAG,
    json: { type: 'boolean', short: 'j' },
    host: { type: 'string', multiple: true },
  },
  handoff: {
    ...COMMON_FLAGS,
    ...HELP_FLAG,
    to: { type: 'string' },
    run: { type: 'boolean' },
    out: { type: 'string', short: 'o' },
    json: { type: 'boolean', short: 'j' },
  },
  export: {
    ...COMMON_FLAGS,
    ...HELP_FLAG,
    format: { type: 'string' },
    subagents: { type: 'boolean' },
    out: { type: 'string', short: 'o' },
  },
  explain: { ...COMMON_FLAGS, ...HELP_FLAG, json: { type: 'boolean', short: 'j' } },
  spend: { ...COMMON_FLAGS, ...HELP_FLAG, ...SPEND_FLAGS, host: { type: 'string', multiple: true } },
  budget: {
    ...COMMON_FLAGS,
    ...HELP_FLAG,
    json: { type: 'boolean', short: 'j' },
    host: { type: 'string', multiple: true },
  },
  quota: { ...COMMON_FLAGS, ...HELP_FLAG, json: { type: 'boolean', short: 'j' } },
  config: HELP_FLAG,
  doctor: { ...COMMON_FLAGS, ...HELP_FLAG, host: { type: 'string', multiple: true } },
  pricing: HELP_FLAG,
} satisfies Record<string, Flags>;

/** Every flag `main` knows, to tell an option's value from the command word. */
const KNOWN_FLAGS: Flags = Object.assign({}, ...Object.values(FLAGS));

/** Whether the word after option `arg` is its value: yes, no, or maybe (a flag of `serve` or `exec`). */
function takesValue(arg: string, known: Flags): 'yes' | 'no' | 'maybe' {
  if (arg.startsWith('--')) {
    if (arg.includes('=')) return 'no';
    const spec = known[arg.slice(2)];
    return spec === undefined ? 'maybe' : spec.type === 'string' ? 'yes' : 'no';
  }
  // A group of short flags (`-lj`, `-pmax`): a string flag takes the rest of the group, or the next word.
  for (let i = 1; i < arg.length; i++) {
    const spec = Object.values(known).find((o) => o.short === arg[i]);
    if (spec === undefined) return 'maybe';
    if (spec.type === 'string') return i === arg.length - 1 ? 'yes' : 'no';
  }
  return 'no';
}

/**
 * The command word and the line without it. The first word that is neither an option nor an option's
 * value is the command; a word after an option cctop does not know (`--bind` is serve's) may be that
 * option's value, so it is the command only if it names one.
 */
export function splitCommand(argv: readonly string[]): { command: string | null; args: string[] } {
  let maybeValue = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a.startsWith('-') && a.length > 1) {
      const value = takesValue(a, KNOWN_FLAGS);
      if (value === 'yes') i++;
      maybeValue = value === 'maybe';
      continue;
    }
    if (isCommand(a) || !maybeValue) return { command: a, args: [...argv.slice(0, i), ...argv.slice(i + 1)] };
    maybeValue = false;
  }
  return { command: null, args: [...argv] };
}
