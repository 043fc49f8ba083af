/**
 * Which credential each agent picks, in its own order of precedence, and how drive finds out: what
 * it expects from the agent's environment and config files before the spawn (and refuses there when
 * the request requires another kind), then settles with what the agent reports in its stream.
 *
 * Every order below was checked by hand against the pinned CLI: run with a fresh home against a
 * local server that recorded which key or token each request carried (claude 2.1.328, codex-cli
 * 0.169.0; the logins involved cannot be made in the lab, so this is not a test), or read from its
 * bundled source (gemini-cli 0.61.0, qwen-code 0.24.4) or its own help text (Copilot CLI 1.0.102).
 * docs/drive.md ("Credentials") has the table; the lab asserts what each recipe's run reports.
 *
 * What it does not do: prove a credential works (the run says so), or guess. Pi and OpenCode choose a
 * credential per provider from files of their own, and an ACP agent is any program at all: those are
 * `unknown`, and a request that requires a kind is refused for them rather than run on a guess.
 */
import { join } from 'node:path';
import { type JsonObject, obj, str } from '../../model/json.js';
import {
  type AuthRequirement,
  apiKeyCredential,
  type CredentialSource,
  isAuthRequirement,
  loginCredential,
  UNKNOWN_CREDENTIAL,
} from '../credentials.js';
import type { Env } from '../env.js';
import { DriveError } from '../errors.js';
import { type AgentId, isNamedAgent, type NamedAgent } from '../events.js';
import type { Plan } from '../request.js';
import { usesAppServer } from './codex.js';
import {
  codexConfigProvider,
  codexHome,
  configFile,
  firstSet,
  isSet,
  readJsonFile,
} from './credential-files.js';
import { geminiExpects, qwenExpects } from './credentials-settings.js';

/** What of the planned run decides its credential: where it runs, and (Codex) which transport. */
export type CredentialContext = Pick<Plan, 'cwd' | 'interactive'>;

/** One agent's rules. */
export interface CredentialRules {
  /** What the agent will use, from its environment (after the policy) and its config files. */
  expect(env: Env, run: CredentialContext): CredentialSource;
  /** What makes each kind the one it uses, for a refusal; null where drive cannot promise that kind. */
  satisfy: Readonly<Record<AuthRequirement, string | null>>;
  /** The run's credential once the agent's own report (if any) is in. */
  settle(reported: CredentialSource | null, expected: CredentialSource): CredentialSource;
}

const UNKNOWN = UNKNOWN_CREDENTIAL;
const apiKey = apiKeyCredential;
const login = loginCredential;
const reportFirst = (reported: CredentialSource | null, expected: CredentialSource) => reported ?? expected;

/** Claude Code's switches, read as it reads them: `1`, `true`, `yes`, `on`. */
const truthy = (v: string | undefined): boolean =>
  ['1', 'true', 'yes', 'on'].includes((v ?? '').trim().toLowerCase());

/** Claude Code's cloud providers, in the order 2.1.328 checks its switches, in its own names. */
const CLAUDE_CLOUDS = [
  ['CLAUDE_CODE_USE_BEDROCK', 'bedrock'],
  ['CLAUDE_CODE_USE_FOUNDRY', 'foundry'],
  ['CLAUDE_CODE_USE_ANTHROPIC_AWS', 'anthropic-aws'],
  ['CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD', 'anthropic-google-cloud'],
  ['CLAUDE_CODE_USE_MANTLE', 'mantle'],
  ['CLAUDE_CODE_USE_VERTEX', 'vertex'],
] as const;

/**
 * The environment Claude Code runs with: its settings files' `env` blocks are applied over the
 * process's (2.1.328: `"CLAUDE_CODE_USE_BEDROCK": "0"` in `settings.json` turned off the variable set
 * to 1 outside), lowest first: user, project, local, managed. Their `apiKeyHelper` is returned too.
 */
function claudeSettings(env: Env, cwd: string): { env: Env; helper: boolean } {
  const files = [
    configFile(env, 'CLAUDE_CONFIG_DIR', '.claude', 'settings.json'),
    join(cwd, '.claude', 'settings.json'),
    join(cwd, '.claude', 'settings.local.json'),
    '/etc/claude-code/managed-settings.json',
  ];
  const merged: Record<string, string | undefined> = { ...env };
  let helper = false;
  for (const file of files) {
    const s = readJsonFile(file);
    for (const [k, v] of Object.entries(obj(s?.env) ?? {})) if (typeof v === 'string') merged[k] = v;
    if (str(s?.apiKeyHelper)) helper = true;
  }
  return { env: merged, helper };
}

/**
 * Verified order (claude 2.1.328, `-p`): a cloud switch wins (Bedrock got every request though
 * `apiKeySource` still said ANTHROPIC_API_KEY); then ANTHROPIC_API_KEY, which beats a stored claude.ai
 * login and CLAUDE_CODE_OAUTH_TOKEN; then ANTHROPIC_AUTH_TOKEN (a gateway's bearer token), then
 * CLAUDE_CODE_OAUTH_TOKEN, then the stored login.
 */
function claudeExpects(processEnv: Env, run: CredentialContext): CredentialSource {
  const { env, helper } = claudeSettings(processEnv, run.cwd);
  const cloud = CLAUDE_CLOUDS.find(([variable]) => truthy(env[variable]));
  if (cloud) return { kind: 'cloud', provider: cloud[1], from: 'environment' };
  const key = firstSet(env, ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN']);
  if (key !== null) return apiKey(key, 'environment');
  if (helper) return apiKey(null, 'config');
  if (isSet(env, 'CLAUDE_CODE_OAUTH_TOKEN'))
    return login('claude.ai', 'CLAUDE_CODE_OAUTH_TOKEN', 'environment');
  // Only a login that may call the model: a Console sign-in stores an API key elsewhere instead.
  const stored = readJsonFile(configFile(env, 'CLAUDE_CONFIG_DIR', '.claude', '.credentials.json'));
  const scopes = obj(stored?.claudeAiOauth)?.scopes;
  if (Array.isArray(scopes) && scopes.includes('user:inference')) return login('claude.ai', null, 'config');
  return UNKNOWN;
}

/**
 * Claude's `system/init` `apiKeySource`, in the words of 2.1.328's schema: `ANTHROPIC_API_KEY`,
 * `apiKeyHelper`, `/login managed key` (a Console key stored by /login), or `none` (no API key: a
 * claude.ai login, a bearer token or a cloud provider; the expectation says which). Its legacy
 * members, which it "never emits", and any newer word are not guessed at.
 */
export function claudeReport(apiKeySource: unknown): CredentialSource | null {
  switch (str(apiKeySource)) {
    case 'ANTHROPIC_API_KEY':
      return { kind: 'api-key', variable: 'ANTHROPIC_API_KEY', from: 'agent' };
    case 'apiKeyHelper':
    case '/login managed key':
      return { kind: 'api-key', variable: null, from: 'agent' };
    case 'none':
      return { kind: 'login', login: null, variable: null, from: 'agent' };
    default:
      return null;
  }
}

function claudeSettles(reported: CredentialSource | null, expected: CredentialSource): CredentialSource {
  if (expected.kind === 'cloud' || reported === null) return expected;
  if (reported.kind === 'api-key') return reported;
  // "none": whatever the environment said it would be instead (a token, a stored login) stands.
  return expected.kind === 'unknown' ? reported : expected;
}

/** Codex's sign-in as `auth.json` records it (`auth_mode`, codex-cli 0.169.0). */
function codexStored(auth: JsonObject | null): CredentialSource {
  if (auth === null) return UNKNOWN;
  const mode = str(auth.auth_mode);
  if (mode === 'apikey') return apiKey(null, 'config');
  if (mode === 'chatgpt' || mode === 'chatgptAuthTokens') return login('chatgpt', null, 'config');
  if (mode?.startsWith('bedrock')) return { kind: 'cloud', provider: 'bedrock', from: 'config' };
  if (mode !== null) return UNKNOWN;
  // Files written before `auth_mode` existed: a stored key, or ChatGPT tokens.
  if (str(auth.OPENAI_API_KEY)) return apiKey(null, 'config');
  return obj(auth.tokens) !== null ? login('chatgpt', null, 'config') : UNKNOWN;
}

/**
 * Verified order (codex-cli 0.169.0): a model provider of the user's own in `config.toml` takes its
 * key from its `env_key`; otherwise, under `codex exec`, CODEX_API_KEY beats whatever `auth.json`
 * holds (a ChatGPT login, a stored key). `codex app-server` (runs with approvals or mid-run input)
 * does not read CODEX_API_KEY: its requests went out with no key at all. OPENAI_API_KEY in the
 * environment is used by neither: only `codex login --with-api-key` stores it.
 */
function codexExpects(env: Env, run: CredentialContext): CredentialSource {
  const provider = codexConfigProvider(env);
  if (provider.name !== null && provider.name !== 'openai' && !provider.openaiAuth) {
    return provider.envKey !== null && isSet(env, provider.envKey)
      ? apiKey(provider.envKey, 'config')
      : UNKNOWN;
  }
  if (!usesAppServer(run) && isSet(env, 'CODEX_API_KEY')) return apiKey('CODEX_API_KEY', 'environment');
  return codexStored(readJsonFile(join(codexHome(env), 'auth.json')));
}

/**
 * Copilot CLI 1.0.102's help: COPILOT_PROVIDER_BASE_URL turns on its own-key mode, where the key is
 * COPILOT_PROVIDER_API_KEY_COMMAND, then _BEARER_TOKEN, then _API_KEY (none: a local model). Without
 * it Copilot only ever runs on a GitHub login: COPILOT_GITHUB_TOKEN, GH_TOKEN, GITHUB_TOKEN, or the
 * one `copilot login` stored (in the system keychain, which drive does not read).
 */
function copilotExpects(env: Env): CredentialSource {
  if (isSet(env, 'COPILOT_PROVIDER_BASE_URL')) {
    const key = firstSet(env, [
      'COPILOT_PROVIDER_API_KEY_COMMAND',
      'COPILOT_PROVIDER_BEARER_TOKEN',
      'COPILOT_PROVIDER_API_KEY',
    ]);
    return key !== null ? apiKey(key, 'environment') : UNKNOWN;
  }
  const token = firstSet(env, ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN']);
  return token !== null ? login('github', token, 'environment') : login('github', null, 'default');
}

/** For an agent drive cannot read: it picks a credential per provider, from files of its own. */
const UNKNOWABLE: CredentialRules = {
  expect: () => UNKNOWN,
  satisfy: { 'api-key': null, login: null, cloud: null },
  settle: reportFirst,
};

export const CREDENTIALS: Readonly<Record<NamedAgent, CredentialRules>> = {
  claude: {
    expect: claudeExpects,
    satisfy: {
      'api-key':
        'set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN for a gateway) and no CLAUDE_CODE_USE_* cloud switch',
      login:
        'log in with `claude` (/login), or set CLAUDE_CODE_OAUTH_TOKEN, with no API key or cloud switch set',
      cloud:
        'set CLAUDE_CODE_USE_BEDROCK, CLAUDE_CODE_USE_VERTEX or CLAUDE_CODE_USE_FOUNDRY (with its settings)',
    },
    settle: claudeSettles,
  },
  codex: {
    expect: codexExpects,
    satisfy: {
      'api-key':
        'set CODEX_API_KEY (not read with approvals or mid-run input, nor is OPENAI_API_KEY), or store a key with `codex login --with-api-key`',
      login: 'sign in with `codex login` (ChatGPT), with no CODEX_API_KEY set',
      cloud: 'sign in to Amazon Bedrock with `codex login`',
    },
    settle: reportFirst,
  },
  copilot: {
    expect: copilotExpects,
    satisfy: {
      'api-key': 'set COPILOT_PROVIDER_BASE_URL with COPILOT_PROVIDER_API_KEY (its own-key mode)',
      login:
        'set COPILOT_GITHUB_TOKEN or GH_TOKEN, or log in with `copilot login`, without COPILOT_PROVIDER_BASE_URL',
      cloud: null,
    },
    settle: reportFirst,
  },
  gemini: {
    expect: geminiExpects,
    satisfy: {
      'api-key':
        'set GEMINI_API_KEY, with no other auth type chosen in settings.json (security.auth.selectedType)',
      login: 'sign in with Google (`gemini`, selectedType oauth-personal) or set GOOGLE_GENAI_USE_GCA=true',
      cloud:
        'set GOOGLE_GENAI_USE_VERTEXAI=true (with its project settings) or choose vertex-ai in settings.json',
    },
    settle: reportFirst,
  },
  qwen: {
    expect: qwenExpects,
    satisfy: {
      'api-key':
        'set OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL, or choose an API-key auth type in settings.json',
      login: 'sign in with Qwen OAuth (`qwen`, selectedType qwen-oauth) or set QWEN_OAUTH',
      cloud: 'choose vertex-ai in settings.json (security.auth.selectedType)',
    },
    settle: reportFirst,
  },
  pi: UNKNOWABLE,
  opencode: UNKNOWABLE,
};

const rulesFor = (agent: AgentId): CredentialRules => (isNamedAgent(agent) ? CREDENTIALS[agent] : UNKNOWABLE);

/**
 * The credential a run is expected to use, read before it is spawned; throws `auth_missing` when the
 * request requires a kind the agent would not use (or that drive cannot tell it would).
 */
export function expectCredential(
  agent: AgentId,
  auth: unknown,
  env: Env,
  run: CredentialContext,
): CredentialSource {
  if (auth !== undefined && !isAuthRequirement(auth)) {
    throw new DriveError({
      kind: 'invalid_request',
      what: `unknown auth "${String(auth)}" (api-key, login, cloud)`,
    });
  }
  const rules = rulesFor(agent);
  const expected = rules.expect(env, run);
  if (auth !== undefined && expected.kind !== auth) {
    throw new DriveError({
      kind: 'auth_missing',
      agent,
      required: auth,
      found: expected,
      remedy: rules.satisfy[auth],
    });
  }
  return expected;
}

/** The run's credential: the agent's own report where it gave one, read with what was expected. */
export const settleCredential = (
  agent: AgentId,
  reported: CredentialSource | null,
  expected: CredentialSource,
): CredentialSource => rulesFor(agent).settle(reported, expected);
