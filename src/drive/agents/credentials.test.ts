/**
 * Which credential each agent will run under, read from its environment, its config files in a
 * temporary home and its own stream report; and the refusal of a request whose `auth` it would not
 * meet. The orders tested here are the ones verified against the pinned CLIs (claude 2.1.328 and
 * codex-cli 0.169.0 against a local server recording each request's headers; gemini-cli 0.61.0 and
 * qwen-code 0.24.4 from their bundled source; Copilot CLI 1.0.102 from its help text).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test-support/corpus.js';
import type { CredentialSource } from '../credentials.js';
import { DriveError, type Failure } from '../errors.js';
import { StreamParser } from '../parser.js';
import { claudeDialect } from './claude.js';
import { MAX_CREDENTIAL_FILE_BYTES } from './credential-files.js';
import { CREDENTIALS, claudeReport, expectCredential, settleCredential } from './credentials.js';

let home: string;
let cwd: string;
let cleanup: () => void;
beforeEach(() => {
  const t = tempDir('cctop-cred-');
  home = join(t.dir, 'home');
  cwd = join(t.dir, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  cleanup = t.cleanup;
});
afterEach(() => cleanup());

function write(path: string, content: string | object): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
}

/** The run as `expect` sees it: here, one through the agent's usual headless command. */
const headless = () => ({ cwd, interactive: false });
const expectFor = (agent: keyof typeof CREDENTIALS, env: Record<string, string> = {}) =>
  CREDENTIALS[agent].expect({ HOME: home, ...env }, headless());

function refusal(f: () => unknown): Failure {
  try {
    f();
  } catch (e) {
    if (e instanceof DriveError) return e.failure;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('Claude Code', () => {
  it('runs under ANTHROPIC_API_KEY when it is set, and says so in its init record', () => {
    const expected = expectFor('claude', { ANTHROPIC_API_KEY: 'k' });
    expect(expected).toEqual({ kind: 'api-key', variable: 'ANTHROPIC_API_KEY', from: 'environment' });
    // Trimmed from the init record claude 2.1.328 wrote in the lab (ANTHROPIC_API_KEY=lab-key).
    const p = new StreamParser(claudeDialect);
    p.push(
      '{"type":"system","subtype":"init","cwd":"/tmp/w","session_id":"845ae9b2-5074-4fa9-843f-683db43f2cbd","tools":["Bash"],"mcp_servers":[],"model":"claude-sonnet-4-5","permissionMode":"default","slash_commands":["compact"],"apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.328","output_style":"default"}',
    );
    const reported = p.terminal().credential;
    expect(reported).toEqual({ kind: 'api-key', variable: 'ANTHROPIC_API_KEY', from: 'agent' });
    expect(settleCredential('claude', reported, expected)).toEqual(reported);
  });

  it('goes to a cloud provider when its switch is on, though it still reports the key', () => {
    // 2.1.328 with CLAUDE_CODE_USE_BEDROCK=1 and a key sent every request to Bedrock, without the key.
    const expected = expectFor('claude', { ANTHROPIC_API_KEY: 'k', CLAUDE_CODE_USE_BEDROCK: '1' });
    expect(expected).toEqual({ kind: 'cloud', provider: 'bedrock', from: 'environment' });
    expect(settleCredential('claude', claudeReport('ANTHROPIC_API_KEY'), expected)).toEqual(expected);
  });

  it("reads its settings files' env blocks over the process environment", () => {
    write(join(home, '.claude', 'settings.json'), { env: { CLAUDE_CODE_USE_BEDROCK: '0' } });
    const off = expectFor('claude', { ANTHROPIC_API_KEY: 'k', CLAUDE_CODE_USE_BEDROCK: '1' });
    expect(off.kind).toBe('api-key');
    write(join(cwd, '.claude', 'settings.local.json'), { env: { CLAUDE_CODE_USE_VERTEX: 'true' } });
    expect(expectFor('claude', { ANTHROPIC_API_KEY: 'k' })).toMatchObject({
      kind: 'cloud',
      provider: 'vertex',
    });
  });

  it('uses a stored claude.ai login only when nothing else is set, and only one that may call the model', () => {
    const file = join(home, '.claude', '.credentials.json');
    write(file, { claudeAiOauth: { accessToken: 'x', scopes: ['user:inference', 'user:profile'] } });
    expect(expectFor('claude')).toEqual({
      kind: 'login',
      login: 'claude.ai',
      variable: null,
      from: 'config',
    });
    expect(expectFor('claude', { ANTHROPIC_API_KEY: 'k' }).kind).toBe('api-key');
    expect(expectFor('claude', { CLAUDE_CODE_OAUTH_TOKEN: 't' })).toMatchObject({
      kind: 'login',
      variable: 'CLAUDE_CODE_OAUTH_TOKEN',
    });
    write(file, { claudeAiOauth: { accessToken: 'x', scopes: ['org:create_api_key'] } });
    expect(expectFor('claude')).toEqual({ kind: 'unknown' });
  });

  it('reads CLAUDE_CONFIG_DIR for its files', () => {
    const dir = join(home, 'elsewhere');
    write(join(dir, '.credentials.json'), { claudeAiOauth: { scopes: ['user:inference'] } });
    expect(expectFor('claude', { CLAUDE_CONFIG_DIR: dir }).kind).toBe('login');
  });

  it('keeps what the environment said when it reports "none" (a gateway token, a login)', () => {
    const expected = expectFor('claude', { ANTHROPIC_AUTH_TOKEN: 't' });
    expect(expected).toEqual({ kind: 'api-key', variable: 'ANTHROPIC_AUTH_TOKEN', from: 'environment' });
    expect(settleCredential('claude', claudeReport('none'), expected)).toEqual(expected);
    // Nothing expected: "none" still says it was no API key, so its own login.
    expect(settleCredential('claude', claudeReport('none'), { kind: 'unknown' })).toEqual({
      kind: 'login',
      login: null,
      variable: null,
      from: 'agent',
    });
  });

  it('takes a stored or helper key it reports over the login it was expected to use', () => {
    const expected: CredentialSource = { kind: 'login', login: 'claude.ai', variable: null, from: 'config' };
    expect(settleCredential('claude', claudeReport('/login managed key'), expected)).toEqual({
      kind: 'api-key',
      variable: null,
      from: 'agent',
    });
    expect(claudeReport('user')).toBeNull();
    expect(claudeReport(42)).toBeNull();
  });
});

describe('Codex', () => {
  const chatgpt = { auth_mode: 'chatgpt', OPENAI_API_KEY: null, tokens: { access_token: 'x' } };

  it('runs under CODEX_API_KEY over a ChatGPT login stored in auth.json', () => {
    write(join(home, '.codex', 'auth.json'), chatgpt);
    expect(expectFor('codex')).toEqual({ kind: 'login', login: 'chatgpt', variable: null, from: 'config' });
    expect(expectFor('codex', { CODEX_API_KEY: 'k' })).toEqual({
      kind: 'api-key',
      variable: 'CODEX_API_KEY',
      from: 'environment',
    });
  });

  it('does not read CODEX_API_KEY on a run through codex app-server (0.169.0 sent no key)', () => {
    write(join(home, '.codex', 'auth.json'), chatgpt);
    const run = { cwd, interactive: true };
    expect(CREDENTIALS.codex.expect({ HOME: home, CODEX_API_KEY: 'k' }, run)).toMatchObject({
      kind: 'login',
    });
  });

  it('does not use OPENAI_API_KEY from the environment (codex-cli 0.169.0 sent no key with it)', () => {
    expect(expectFor('codex', { OPENAI_API_KEY: 'k' })).toEqual({ kind: 'unknown' });
    write(join(home, '.codex', 'auth.json'), chatgpt);
    expect(expectFor('codex', { OPENAI_API_KEY: 'k' }).kind).toBe('login');
  });

  it('knows a key stored with codex login --with-api-key, with or without auth_mode', () => {
    write(join(home, '.codex', 'auth.json'), { auth_mode: 'apikey', OPENAI_API_KEY: 'sk', tokens: null });
    expect(expectFor('codex')).toEqual({ kind: 'api-key', variable: null, from: 'config' });
    write(join(home, '.codex', 'auth.json'), { OPENAI_API_KEY: 'sk' });
    expect(expectFor('codex').kind).toBe('api-key');
  });

  it("takes a provider of the user's own from config.toml, with its env_key (the lab's shape)", () => {
    write(
      join(home, '.codex', 'config.toml'),
      'model = "gpt-5-codex"\nmodel_provider = "lab"\n\n[model_providers.lab]\nname = "lab"\nenv_key = "LAB_API_KEY"\nwire_api = "responses"\n',
    );
    expect(expectFor('codex', { LAB_API_KEY: 'k', CODEX_API_KEY: 'c' })).toEqual({
      kind: 'api-key',
      variable: 'LAB_API_KEY',
      from: 'config',
    });
    expect(expectFor('codex')).toEqual({ kind: 'unknown' });
  });

  it('follows the profile config.toml selects, and reads nothing from a file that is not TOML', () => {
    const toml = join(home, '.codex', 'config.toml');
    write(
      toml,
      'profile = "work"\n[profiles.work]\nmodel_provider = "azure"\n[model_providers.azure]\nenv_key = "AZURE_OPENAI_API_KEY" # a comment\n',
    );
    expect(expectFor('codex', { AZURE_OPENAI_API_KEY: 'k' })).toMatchObject({
      variable: 'AZURE_OPENAI_API_KEY',
    });
    write(toml, 'model_provider = "lab"\n[model_providers.lab\n');
    expect(expectFor('codex', { CODEX_API_KEY: 'k' })).toMatchObject({ variable: 'CODEX_API_KEY' });
  });

  it('follows CODEX_HOME', () => {
    write(join(home, 'ch', 'auth.json'), chatgpt);
    expect(expectFor('codex', { CODEX_HOME: join(home, 'ch') }).kind).toBe('login');
  });
});

describe('Copilot CLI', () => {
  it('runs under its own-key mode when COPILOT_PROVIDER_BASE_URL is set, the bearer token first', () => {
    const byok = { COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1', GH_TOKEN: 'g' };
    expect(expectFor('copilot', { ...byok, COPILOT_PROVIDER_API_KEY: 'k' })).toEqual({
      kind: 'api-key',
      variable: 'COPILOT_PROVIDER_API_KEY',
      from: 'environment',
    });
    expect(
      expectFor('copilot', { ...byok, COPILOT_PROVIDER_API_KEY: 'k', COPILOT_PROVIDER_BEARER_TOKEN: 't' }),
    ).toMatchObject({ variable: 'COPILOT_PROVIDER_BEARER_TOKEN' });
    expect(expectFor('copilot', byok)).toEqual({ kind: 'unknown' });
  });

  it('otherwise runs on a GitHub login: a token variable, or the one it stored', () => {
    expect(expectFor('copilot', { GITHUB_TOKEN: 'a', GH_TOKEN: 'b' })).toEqual({
      kind: 'login',
      login: 'github',
      variable: 'GH_TOKEN',
      from: 'environment',
    });
    expect(expectFor('copilot')).toEqual({ kind: 'login', login: 'github', variable: null, from: 'default' });
  });
});

describe('Gemini CLI', () => {
  const settings = (type: string) => ({ security: { auth: { selectedType: type } } });

  it("reads the lab's settings: an API key from GEMINI_API_KEY", () => {
    write(join(home, '.gemini', 'settings.json'), settings('gemini-api-key'));
    expect(expectFor('gemini', { GEMINI_API_KEY: 'k' })).toEqual({
      kind: 'api-key',
      variable: 'GEMINI_API_KEY',
      from: 'config',
    });
  });

  it('lets a login chosen in settings.json win over GEMINI_API_KEY, as 0.61.0 does headless', () => {
    // JSONC, as Gemini CLI accepts it: comments and trailing commas.
    const jsonc =
      '// chosen once\n{ /* the login */ "security": { "auth": { "selectedType": "oauth-personal", }, }, }';
    write(join(home, '.gemini', 'settings.json'), jsonc);
    expect(expectFor('gemini', { GEMINI_API_KEY: 'k' })).toEqual({
      kind: 'login',
      login: 'google',
      variable: null,
      from: 'config',
    });
    // The workspace's settings outrank the user's, the system's outrank both.
    write(join(cwd, '.gemini', 'settings.json'), settings('vertex-ai'));
    expect(expectFor('gemini')).toMatchObject({ kind: 'cloud', provider: 'vertex' });
    const system = join(home, 'system.json');
    write(system, settings('gemini-api-key'));
    expect(expectFor('gemini', { GEMINI_CLI_SYSTEM_SETTINGS_PATH: system }).kind).toBe('api-key');
  });

  it('decides from the environment only when no settings choose', () => {
    expect(expectFor('gemini', { GEMINI_API_KEY: 'k' })).toMatchObject({
      kind: 'api-key',
      from: 'environment',
    });
    expect(expectFor('gemini', { GEMINI_API_KEY: 'k', GOOGLE_GENAI_USE_VERTEXAI: 'true' })).toMatchObject({
      kind: 'cloud',
    });
    expect(expectFor('gemini', { GOOGLE_GENAI_USE_GCA: 'true' })).toMatchObject({ kind: 'login' });
    expect(expectFor('gemini')).toEqual({ kind: 'unknown' });
  });
});

describe('Qwen Code', () => {
  const lab = { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'm' };

  it("reads the lab's environment: OpenAI-compatible, keyed by OPENAI_API_KEY", () => {
    expect(expectFor('qwen', lab)).toEqual({
      kind: 'api-key',
      variable: 'OPENAI_API_KEY',
      from: 'environment',
    });
    // Without the base URL and a model, 0.24.4 infers no auth type from the key alone.
    expect(expectFor('qwen', { OPENAI_API_KEY: 'k' })).toEqual({ kind: 'unknown' });
  });

  it('lets the auth type in settings.json win over the environment', () => {
    write(join(home, '.qwen', 'settings.json'), { security: { auth: { selectedType: 'qwen-oauth' } } });
    expect(expectFor('qwen', lab)).toEqual({ kind: 'login', login: 'qwen', variable: null, from: 'config' });
    write(join(home, 'qh', 'settings.json'), { security: { auth: { selectedType: 'openai' } } });
    expect(expectFor('qwen', { ...lab, QWEN_HOME: join(home, 'qh') })).toMatchObject({
      kind: 'api-key',
      variable: 'OPENAI_API_KEY',
      from: 'config',
    });
  });
});

describe('a required kind of credential', () => {
  it('is refused before anything runs, naming what would satisfy it', () => {
    write(join(home, '.codex', 'auth.json'), { auth_mode: 'chatgpt', tokens: {} });
    const f = refusal(() => expectCredential('codex', 'api-key', { HOME: home }, headless()));
    expect(f).toMatchObject({
      kind: 'auth_missing',
      agent: 'codex',
      required: 'api-key',
      found: { kind: 'login', login: 'chatgpt' },
    });
    const message = new DriveError(f).message;
    expect(message).toContain('would not run under an API key (it would use login (chatgpt))');
    expect(message).toContain('CODEX_API_KEY');
  });

  it('passes when the agent would use that kind, and returns what it expects', () => {
    expect(
      expectCredential('claude', 'api-key', { HOME: home, ANTHROPIC_API_KEY: 'k' }, headless()).kind,
    ).toBe('api-key');
    expect(expectCredential('claude', undefined, { HOME: home }, headless())).toEqual({ kind: 'unknown' });
  });

  it('is refused for an agent drive cannot read, rather than run on a guess', () => {
    for (const agent of ['pi', 'opencode', 'acp'] as const) {
      const f = refusal(() =>
        expectCredential(agent, 'api-key', { HOME: home, ANTHROPIC_API_KEY: 'k' }, headless()),
      );
      expect(f).toMatchObject({ kind: 'auth_missing', found: { kind: 'unknown' }, remedy: null });
      expect(new DriveError(f).message).toContain('drive cannot tell which credential it uses');
    }
  });

  it('that is not a kind is an invalid request', () => {
    expect(refusal(() => expectCredential('claude', 'apikey', { HOME: home }, headless()))).toMatchObject({
      kind: 'invalid_request',
    });
  });
});

describe('config files', () => {
  it.skipIf(process.platform === 'win32')(
    `a FIFO where auth.json belongs is not waited on${process.platform === 'win32' ? ' (skipped: Windows has no mkfifo; run on Linux or macOS)' : ''}`,
    () => {
      mkdirSync(join(home, '.codex'), { recursive: true });
      execFileSync('mkfifo', [join(home, '.codex', 'auth.json')]);
      expect(expectFor('codex')).toEqual({ kind: 'unknown' });
    },
  );

  it('one larger than the bound is not read', () => {
    const big = { auth_mode: 'chatgpt', pad: 'x'.repeat(MAX_CREDENTIAL_FILE_BYTES) };
    write(join(home, '.codex', 'auth.json'), big);
    expect(expectFor('codex')).toEqual({ kind: 'unknown' });
  });

  it('one that is not JSON is simply not known', () => {
    write(join(home, '.gemini', 'settings.json'), '{"security": ');
    expect(expectFor('gemini')).toEqual({ kind: 'unknown' });
  });
});
