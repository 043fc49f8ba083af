/**
 * `[acp.NAME]` tables: ACP agents named in the config file, so `cctop exec NAME …` runs one and
 * `cctop exec --all` includes them (`docs/drive.md`, "ACP agents"). Each needs a `command` (one
 * string, split as a shell would split words, or a list of words); `env` names the variables it
 * needs under the minimal environment, `mode` the session mode to ask for.
 *
 * Not here: whether the command exists or speaks ACP (only running it tells), and what drive does
 * with it. A wrong table is left out with a warning naming it, as a wrong budget is.
 */
import { type AcpAgent, checkAcp, splitCommand } from '../drive/acp/index.js';
import { DriveError } from '../drive/errors.js';
import { isNamedAgent } from '../drive/events.js';
import type { Warn } from './read.js';
import { isTable, shown } from './toml.js';

/**
 * ACP agents a file may name. `cctop exec --all` starts every one of them at once, beside the
 * installed CLIs; 32 is far past any real list, and past it a typo'd loop of generated tables does
 * not become 1,000 processes.
 */
export const MAX_ACP_AGENTS = 32;

/** A name is typed as `cctop exec NAME`: one word a person types, not a path or a flag. */
const NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

const KEYS = ['command', 'env', 'mode'] as const;

/** The `[acp.*]` tables, each checked; wrong ones are left out with a warning. */
export function readAcp(v: unknown, warn: Warn): AcpAgent[] {
  if (!isTable(v)) {
    warn('acp', `acp is ${shown(v)}, not tables ([acp.NAME] with a command); no ACP agent is set`);
    return [];
  }
  const out: AcpAgent[] = [];
  for (const [name, entry] of Object.entries(v)) {
    const at = `acp.${name}`;
    if (out.length === MAX_ACP_AGENTS) {
      warn(at, `more than ${MAX_ACP_AGENTS} ACP agents: ${name} and those after it are left out`);
      break;
    }
    const agent = readOne(name, entry, at, warn);
    if (agent !== null) out.push(agent);
  }
  return out;
}

function readOne(name: string, v: unknown, at: string, warn: Warn): AcpAgent | null {
  const drop = (key: string | null, message: string): null => {
    warn(key === null ? at : `${at}.${key}`, `[${at}] ${message}; this ACP agent is left out`);
    return null;
  };
  if (!NAME.test(name))
    return drop(null, 'the name must be a lowercase word of 1 to 40 letters, digits, - or _');
  if (isNamedAgent(name)) return drop(null, `${name} is a built-in agent; give its ACP mode another name`);
  if (!isTable(v)) return drop(null, `is ${shown(v)}, not a table of settings`);
  for (const key of Object.keys(v)) {
    if (!(KEYS as readonly string[]).includes(key))
      warn(`${at}.${key}`, `key "acp.${key}" is not a cctop setting`);
  }
  let command: string[];
  if (typeof v.command === 'string') {
    const split = splitCommand(v.command);
    if (split.kind === 'bad') return drop('command', `command = ${shown(v.command)}: ${split.why}`);
    command = split.words;
  } else if (Array.isArray(v.command) && v.command.every((w) => typeof w === 'string')) {
    command = v.command as string[];
  } else {
    return drop('command', 'command is missing (the executable and its arguments, e.g. "goose acp")');
  }
  if (v.env !== undefined && !(Array.isArray(v.env) && v.env.every((e) => typeof e === 'string'))) {
    return drop('env', `env = ${shown(v.env)}: expected a list of variable names`);
  }
  if (v.mode !== undefined && typeof v.mode !== 'string')
    return drop('mode', `mode = ${shown(v.mode)}: expected a mode id`);
  try {
    return checkAcp({
      name,
      command,
      ...(v.env !== undefined && { env: v.env as string[] }),
      ...(v.mode !== undefined && { mode: v.mode as string }),
    });
  } catch (e) {
    if (e instanceof DriveError) return drop(null, e.message);
    throw e;
  }
}
