/**
 * How a caller names an ACP agent for a run (`Request.acp`), the checks it passes before anything is
 * spawned, and the shell-like splitting of a command written as one string (`cctop exec --acp`, the
 * config file's `[acp.NAME] command`).
 *
 * Splitting is not a shell: no variables, globs, pipes or redirections, and nothing is run through
 * one. Quotes and backslashes group words, as a person writing `goose acp --profile 'my work'`
 * expects; anything else a shell would do is the caller's to do before.
 */
import { MAX_IDENTIFIER_BYTES } from '../bounds.js';
import type { CredentialNames } from '../env.js';
import { DriveError } from '../errors.js';

/**
 * How long an ACP agent has, from its start, to answer `initialize` and open the session. Gemini CLI
 * 0.61.0 takes five to nine seconds in the lab on two busy cores (it loads its whole bundle first);
 * a command that is not an ACP agent at all (a typo, a CLI started without its ACP flag) never
 * answers, and without a deadline the run would wait for it until its own timeout, or for ever.
 */
export const ACP_HANDSHAKE_MS = 60_000;

/** An ACP agent, as a request names it. */
export interface AcpAgent {
  /** The name it is shown under (`Outcome.acp.name`, `cctop exec` output). */
  name: string;
  /** The executable and its arguments, e.g. `['gemini', '--acp']`. No shell is involved. */
  command: readonly string[];
  /**
   * Variables of the parent's environment the agent needs under the `minimal` policy (its API key,
   * its config directory); a trailing `*` passes every name with that prefix.
   */
  env?: readonly string[];
  /** The session mode to ask for, by the agent's own id, instead of the one `permission` picks. */
  mode?: string;
  /** How long it may take to answer `initialize` and open the session (default `ACP_HANDSHAKE_MS`). */
  handshakeMs?: number;
}

/** A variable name, or a prefix ending in `*`. */
const ENV_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

const invalid = (what: string) => new DriveError({ kind: 'invalid_request', what });

/** Whether a label is one line a terminal shows as written. */
const isLabel = (v: unknown): v is string =>
  typeof v === 'string' &&
  v.trim() !== '' &&
  Buffer.byteLength(v) <= MAX_IDENTIFIER_BYTES &&
  !/[\u0000-\u001f\u007f]/.test(v);

/**
 * The ACP agent a request names, checked; throws an `invalid_request` DriveError saying what to
 * fix. Called before planning, so a malformed one never reaches a spawn.
 */
export function checkAcp(acp: unknown): AcpAgent {
  if (acp === undefined) {
    throw invalid("agent 'acp' needs acp: { name, command } (which ACP agent to run, and how)");
  }
  const a = acp as Partial<AcpAgent>;
  if (!isLabel(a.name)) throw invalid('acp.name must be one line of text, 1 to 4 KiB');
  const command = a.command;
  if (!Array.isArray(command) || command.length === 0 || command[0] === '') {
    throw invalid(`acp.command for ${a.name} must name the executable, e.g. ['gemini', '--acp']`);
  }
  if (!command.every((w) => typeof w === 'string' && !w.includes('\0'))) {
    throw invalid(`acp.command for ${a.name} must be a list of strings without NUL bytes`);
  }
  for (const name of a.env ?? []) {
    if (typeof name !== 'string' || !ENV_PATTERN.test(name)) {
      throw invalid(
        `acp.env "${String(name).slice(0, 40)}" is not a variable name (or a prefix ending in *)`,
      );
    }
  }
  if (a.mode !== undefined && !isLabel(a.mode)) throw invalid('acp.mode must be a mode id');
  const ms = a.handshakeMs;
  if (ms !== undefined && !(typeof ms === 'number' && Number.isFinite(ms) && ms > 0)) {
    throw invalid(`acp.handshakeMs must be a positive number of milliseconds (got ${String(ms)})`);
  }
  return {
    name: a.name,
    command: [...command],
    ...(a.env !== undefined && { env: [...a.env] }),
    ...(a.mode !== undefined && { mode: a.mode }),
    ...(ms !== undefined && { handshakeMs: ms }),
  };
}

/** The names `env` lets through the minimal policy: exact names, and prefixes from `NAME*`. */
export function envNames(env: readonly string[] | undefined): CredentialNames {
  const names: string[] = [];
  const prefixes: string[] = [];
  for (const e of env ?? []) {
    if (e.endsWith('*')) prefixes.push(e.slice(0, -1));
    else names.push(e);
  }
  return { names, prefixes };
}

/** A command split into words, or why it cannot be. */
export type Split = { kind: 'words'; words: string[] } | { kind: 'bad'; why: string };

/**
 * `goose acp --profile 'my work'` → `['goose', 'acp', '--profile', 'my work']`: words split at
 * unquoted whitespace; single quotes keep everything literally, double quotes and bare words take a
 * backslash as "the next character as it is".
 */
export function splitCommand(line: string): Split {
  const words: string[] = [];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
      continue;
    }
    if (c === '\\') {
      if (i + 1 >= line.length) return { kind: 'bad', why: 'it ends with a lone backslash' };
      word = (word ?? '') + line[++i];
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? '') + c;
  }
  if (quote !== null)
    return { kind: 'bad', why: `a ${quote === "'" ? 'single' : 'double'} quote is not closed` };
  if (word !== null) words.push(word);
  if (words.length === 0) return { kind: 'bad', why: 'it names no executable' };
  return { kind: 'words', words };
}
