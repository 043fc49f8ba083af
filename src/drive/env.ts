/**
 * The environment an agent is started with.
 *
 * By default an agent sees only what it needs to start and authenticate, plus the proxy and CA
 * settings that let it reach its API from behind a corporate network and the marker of a sandbox.
 * Whatever else the caller's process holds (other vendors' keys, CI secrets, a database URL) is not
 * the agent's business and does not end up in a transcript or a tool call it makes.
 */

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * `minimal` (the default): the essentials, the network settings, the sandbox marker and the agent's
 * own credentials.
 * `inherit`: everything the parent has. `{ only }`: exactly these names, nothing else.
 */
export type EnvPolicy = 'minimal' | 'inherit' | { only: readonly string[] };

/** Names an agent reads its login from, by exact name or by prefix. */
export interface CredentialNames {
  names: readonly string[];
  prefixes: readonly string[];
  /**
   * Names the agent's own settings say its key is read from (Codex: a model provider's `env_key`),
   * read from the files under the parent environment's home when the child's environment is made.
   */
  configured?: (parent: Env) => readonly string[];
}

/** What any program needs to start, find its home and temp directory, and speak the user's locale. */
const ESSENTIAL = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_MESSAGES',
  'TZ',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'XDG_CACHE_HOME',
  // Windows keeps the same facts under other names; without them Node cannot even find its profile.
  'SYSTEMROOT',
  'SYSTEMDRIVE',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'USERPROFILE',
  'USERNAME',
  'HOMEDRIVE',
  'HOMEPATH',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMDATA',
  'PROGRAMFILES',
  'TEMP',
  'TMP',
] as const;

/**
 * Proxy and certificate settings. Without them an agent behind a corporate proxy or TLS inspection
 * cannot reach its API at all, and the failure looks like a network outage rather than a setting.
 */
export const NETWORK_ENV = [
  'HTTPS_PROXY',
  'HTTP_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'https_proxy',
  'http_proxy',
  'all_proxy',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
  'NODE_USE_ENV_PROXY',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
] as const;

/**
 * The machine's own word that it is a throw-away sandbox. Claude Code refuses its bypass mode
 * (`--permission-mode bypassPermissions`, drive's `bypass`) as root unless `IS_SANDBOX=1` is set:
 * 2.1.328 says "--dangerously-skip-permissions cannot be used with root/sudo privileges for security
 * reasons" and exits 1. A container that runs agents as root sets it for exactly that, so dropping it
 * made `bypass` fail where it is meant to be used. It carries no secret.
 */
export const SANDBOX_ENV = ['IS_SANDBOX'] as const;

function wanted(name: string, credentials: CredentialNames, windows: boolean): boolean {
  const key = windows ? name.toUpperCase() : name;
  const list = (xs: readonly string[]) => (windows ? xs.map((x) => x.toUpperCase()) : xs);
  if (list(ESSENTIAL).includes(key) || list(NETWORK_ENV).includes(key)) return true;
  if (list(SANDBOX_ENV).includes(key)) return true;
  if (list(credentials.names).includes(key)) return true;
  return list(credentials.prefixes).some((p) => key.startsWith(p));
}

/**
 * The child's environment: `parent` filtered by `policy`, then `set` on top (explicit values always
 * win, whatever the policy).
 */
export function childEnv(
  parent: Env,
  policy: EnvPolicy,
  credentials: CredentialNames,
  set: Readonly<Record<string, string>>,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const out: Record<string, string> = {};
  const windows = platform === 'win32';
  const configured = policy === 'minimal' ? (credentials.configured?.(parent) ?? []) : [];
  const names = { ...credentials, names: [...credentials.names, ...configured] };
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    const keep =
      policy === 'inherit'
        ? true
        : policy === 'minimal'
          ? wanted(name, names, windows)
          : policy.only.includes(name);
    if (keep) out[name] = value;
  }
  return { ...out, ...set };
}
