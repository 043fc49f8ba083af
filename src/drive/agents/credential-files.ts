/**
 * Reading the few fields of an agent's own config files that say which login it chose
 * (`agents/credentials.ts` decides what they mean).
 *
 * These files hold secrets (tokens, stored keys). What this module does not do: log or keep what it
 * reads; its callers take kinds (`chatgpt`, `oauth-personal`) and variable names from it, never a
 * key. It never writes, and it never waits: only regular files up to {@link MAX_CREDENTIAL_FILE_BYTES}
 * are read (a FIFO planted where a config file belongs would otherwise block the open forever), and
 * anything it cannot read or parse is simply not known.
 */

import { homedir } from 'node:os';
import { join } from 'node:path';
import { type ParseError, parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { type JsonObject, obj, str } from '../../model/json.js';
import { readRegularText } from '../../regular-file.js';
import type { Env } from '../env.js';

/**
 * The largest config file read for a login's kind. The files that say it (Codex's `auth.json`,
 * Gemini's and Qwen's `settings.json`, Claude's `.credentials.json`) are a few KiB; a megabyte is
 * far past any real one and still cheap to read once per run. Past it the file is not read, and
 * the credential is known from the environment or the agent's own report, or is unknown.
 */
export const MAX_CREDENTIAL_FILE_BYTES = 1024 * 1024;

/** The home the agent will see: its environment's, else this process's. */
export const homeOf = (env: Env): string => env.HOME || env.USERPROFILE || homedir();

/** A variable that is set to something: an empty value is read as unset by every agent here. */
export const isSet = (env: Env, name: string): boolean => (env[name] ?? '').trim() !== '';

/** The first of `names` that is set. */
export const firstSet = (env: Env, names: readonly string[]): string | null =>
  names.find((n) => isSet(env, n)) ?? null;

/** A file's text when it is a regular file within the bound (`regular-file.ts`); null otherwise. */
export function readSmallFile(path: string): string | null {
  const r = readRegularText(path, MAX_CREDENTIAL_FILE_BYTES);
  return r.kind === 'read' ? r.text : null;
}

/**
 * A JSON object from a config file; null when absent, too large, or not JSON. Read as JSONC: Gemini
 * CLI and Qwen Code accept comments and trailing commas in `settings.json`. A value nested deep
 * enough to exhaust the parser's stack is not known either, rather than a crash.
 */
export function readJsonFile(path: string): JsonObject | null {
  const text = readSmallFile(path);
  if (text === null) return null;
  try {
    const errors: ParseError[] = [];
    const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
    return errors.length === 0 ? obj(value) : null;
  } catch {
    return null;
  }
}

/** `o.a.b.c` as a string, or null where any step is missing. */
export function pathString(o: JsonObject | null, ...keys: string[]): string | null {
  let at: unknown = o;
  for (const k of keys) at = obj(at)?.[k];
  return str(at);
}

/** The model provider Codex's `config.toml` chooses, and how that provider signs in. */
export interface CodexProvider {
  /** The provider's name; null when the file names none (the built-in `openai`). */
  name: string | null;
  /** The variable its key is read from, when it declares one. */
  envKey: string | null;
  /** It signs in as OpenAI does (`codex login`, `CODEX_API_KEY`) instead of through `envKey`. */
  openaiAuth: boolean;
}

/**
 * The provider `config.toml` chooses: `model_provider`, or the selected `profile`'s, and that
 * provider's table under `model_providers`. A known limit: `-c` overrides and
 * `--profile` on the command line are not seen (drive passes neither for the provider), and a file
 * that does not parse reads as "no provider chosen".
 */
export function codexProvider(configToml: string | null): CodexProvider {
  const none: CodexProvider = { name: null, envKey: null, openaiAuth: false };
  if (configToml === null) return none;
  let doc: JsonObject;
  try {
    doc = parseToml(configToml);
  } catch {
    return none;
  }
  const profile = str(doc.profile);
  const chosen = profile !== null ? obj(obj(doc.profiles)?.[profile]) : null;
  const name = str(chosen?.model_provider) ?? str(doc.model_provider);
  if (name === null) return none;
  const table = obj(obj(doc.model_providers)?.[name]);
  return { name, envKey: str(table?.env_key) || null, openaiAuth: table?.requires_openai_auth === true };
}

/** `dir/file`, for a config directory an environment variable may move. */
export const configFile = (env: Env, variable: string, fallback: string, file: string): string =>
  join(isSet(env, variable) ? env[variable]! : join(homeOf(env), fallback), file);

/** Codex's home: `$CODEX_HOME`, or `~/.codex`. */
export const codexHome = (env: Env): string =>
  isSet(env, 'CODEX_HOME') ? env.CODEX_HOME! : join(homeOf(env), '.codex');

/** The model provider Codex's `config.toml` chooses. */
export const codexConfigProvider = (env: Env): CodexProvider =>
  codexProvider(readSmallFile(join(codexHome(env), 'config.toml')));

/**
 * The variable a provider of the user's own reads its key from: passed under the minimal
 * environment, or a user with `env_key = "AZURE_OPENAI_API_KEY"` would run keyless.
 */
export const codexConfiguredKey = (env: Env): readonly string[] => {
  const key = codexConfigProvider(env).envKey;
  return key === null ? [] : [key];
};
