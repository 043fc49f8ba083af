/**
 * The credential rules of Gemini CLI and Qwen Code (a fork of it): both run under the auth type
 * chosen in their `settings.json` (system, workspace, then user file) and only without one decide
 * from the environment. Read by `credentials.ts`, which holds every agent's rules.
 */
import { join } from 'node:path';
import {
  apiKeyCredential,
  type CredentialSource,
  loginCredential,
  UNKNOWN_CREDENTIAL,
} from '../credentials.js';
import type { Env } from '../env.js';
import { homeOf, isSet, pathString, readJsonFile } from './credential-files.js';

const UNKNOWN = UNKNOWN_CREDENTIAL;
const apiKey = apiKeyCredential;
const login = (which: string, from: 'environment' | 'config') => loginCredential(which, null, from);

/** What a Gemini CLI or Qwen Code auth type means; `key` is the variable its API key is read from. */
function authType(
  type: string,
  key: string | null,
  env: Env,
  from: 'environment' | 'config',
): CredentialSource {
  switch (type) {
    case 'gemini-api-key':
    case 'gateway':
    case 'openai':
    case 'openai-responses':
    case 'anthropic':
    case 'gemini':
      // A key may also be stored by the agent (Gemini's keychain, Qwen's settings): then no variable.
      return apiKey(key !== null && isSet(env, key) ? key : null, from);
    case 'vertex-ai':
      return { kind: 'cloud', provider: 'vertex', from };
    case 'compute-default-credentials':
    case 'cloud-shell':
      return { kind: 'cloud', provider: 'google-cloud', from };
    case 'oauth-personal':
      return login('google', from);
    case 'qwen-oauth':
      return login('qwen', from);
    default:
      return UNKNOWN;
  }
}

/** Where `security.auth.selectedType` is looked for, strongest first, and the first one found. */
function selectedType(files: readonly string[]): string | null {
  for (const file of files) {
    const type = pathString(readJsonFile(file), 'security', 'auth', 'selectedType');
    if (type !== null) return type;
  }
  return null;
}

/** The system settings file a Gemini-family CLI reads, unless a variable moves it. */
function systemSettings(
  env: Env,
  variable: string,
  folder: { mac: string; win: string; unix: string },
): string {
  if (isSet(env, variable)) return env[variable]!;
  if (process.platform === 'darwin') return `/Library/Application Support/${folder.mac}/settings.json`;
  if (process.platform === 'win32') return `C:\\ProgramData\\${folder.win}\\settings.json`;
  return `/etc/${folder.unix}/settings.json`;
}

/**
 * gemini-cli 0.61.0 (`validateNonInteractiveAuth`): the settings' `security.auth.selectedType`
 * (system, then workspace, then user) wins over the environment, so a Google login chosen once in
 * `settings.json` is used even with GEMINI_API_KEY set. Only without one does the environment decide:
 * GOOGLE_GENAI_USE_GCA, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY, in that order.
 */
export function geminiExpects(env: Env, { cwd }: { cwd: string }): CredentialSource {
  const home = isSet(env, 'GEMINI_CLI_HOME') ? env.GEMINI_CLI_HOME! : homeOf(env);
  const chosen = selectedType([
    systemSettings(env, 'GEMINI_CLI_SYSTEM_SETTINGS_PATH', {
      mac: 'GeminiCli',
      win: 'gemini-cli',
      unix: 'gemini-cli',
    }),
    join(cwd, '.gemini', 'settings.json'),
    join(home, '.gemini', 'settings.json'),
  ]);
  if (chosen !== null) return authType(chosen, 'GEMINI_API_KEY', env, 'config');
  if (env.GOOGLE_GENAI_USE_GCA === 'true') return authType('oauth-personal', null, env, 'environment');
  if (env.GOOGLE_GENAI_USE_VERTEXAI === 'true') return authType('vertex-ai', null, env, 'environment');
  if (isSet(env, 'GOOGLE_GEMINI_BASE_URL')) return authType('gateway', 'GEMINI_API_KEY', env, 'environment');
  if (isSet(env, 'GEMINI_API_KEY')) return apiKey('GEMINI_API_KEY', 'environment');
  return UNKNOWN;
}

/** The variable each Qwen Code auth type reads its key from. */
const QWEN_KEYS: Readonly<Record<string, string>> = {
  openai: 'OPENAI_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  gemini: 'GEMINI_API_KEY',
};

/**
 * qwen-code 0.24.4 (`loadCliConfig`): `--auth-type` (drive passes none), then the settings'
 * `security.auth.selectedType` (system, workspace, user under QWEN_HOME or ~/.qwen), then the
 * environment: QWEN_OAUTH, then OPENAI_API_KEY with OPENAI_BASE_URL and a model variable.
 * (QWEN_DEFAULT_AUTH_TYPE is read only by its interactive screen.)
 */
export function qwenExpects(env: Env, { cwd }: { cwd: string }): CredentialSource {
  const home = isSet(env, 'QWEN_HOME') ? env.QWEN_HOME! : join(homeOf(env), '.qwen');
  const chosen = selectedType([
    systemSettings(env, 'QWEN_CODE_SYSTEM_SETTINGS_PATH', {
      mac: 'QwenCode',
      win: 'qwen-code',
      unix: 'qwen-code',
    }),
    join(cwd, '.qwen', 'settings.json'),
    join(home, 'settings.json'),
  ]);
  if (chosen !== null) return authType(chosen, QWEN_KEYS[chosen] ?? null, env, 'config');
  if (isSet(env, 'QWEN_OAUTH')) return authType('qwen-oauth', null, env, 'environment');
  const openai =
    isSet(env, 'OPENAI_API_KEY') &&
    isSet(env, 'OPENAI_BASE_URL') &&
    (isSet(env, 'OPENAI_MODEL') || isSet(env, 'QWEN_MODEL'));
  return openai ? apiKey('OPENAI_API_KEY', 'environment') : UNKNOWN;
}
