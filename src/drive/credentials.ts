/**
 * Which credential an agent ran under, as one vocabulary for every agent: an API key, the CLI's own
 * login, or a cloud provider's credentials.
 *
 * It matters because vendors' terms differ by credential: some allow a subscription login only in
 * their own clients, and a business may have to bill through API keys. drive cannot choose which
 * credential an agent picks; it can say which one the agent will pick (and did), and a request can
 * require one kind (`auth`), refused before anything is spawned when the agent would use another.
 *
 * This module is only the words: the types and how to say them. What each agent picks, in which
 * order, and how drive finds out is in `agents/credentials.ts`.
 */

/**
 * How drive knows, best first: the agent said so in its own stream (`agent`); a variable in the
 * agent's environment after the environment policy decides it (`environment`); the agent's own
 * config files record it (`config`); or it is the only thing left, the CLI's own login, when nothing
 * else is set (`default`).
 */
export type CredentialEvidence = 'agent' | 'environment' | 'config' | 'default';

/** The credential a run used. Never the secret itself: only its kind and where it came from. */
export type CredentialSource =
  /**
   * An API key (or a bearer token for an API gateway), billed to an API account. `variable` is the
   * environment variable it came from; null when the agent keeps it itself (a key stored by its own
   * login, a helper command it runs).
   */
  | { kind: 'api-key'; variable: string | null; from: CredentialEvidence }
  /**
   * The CLI's own sign-in to an account or subscription. `login` names which where it is knowable
   * (`claude.ai`, `chatgpt`, `google`, `qwen`, `github`); `variable` is set when the login came as a
   * token in the environment (`CLAUDE_CODE_OAUTH_TOKEN`, `GH_TOKEN`).
   */
  | { kind: 'login'; login: string | null; variable: string | null; from: CredentialEvidence }
  /** A cloud provider's own credentials (`bedrock`, `vertex`, `foundry`, …, in the agent's words). */
  | { kind: 'cloud'; provider: string; from: CredentialEvidence }
  /** drive cannot tell: the agent reports nothing and picks from files drive does not read. */
  | { kind: 'unknown' };

export type CredentialKind = CredentialSource['kind'];

export const UNKNOWN_CREDENTIAL: CredentialSource = { kind: 'unknown' };

export const apiKeyCredential = (variable: string | null, from: CredentialEvidence): CredentialSource => ({
  kind: 'api-key',
  variable,
  from,
});

export const loginCredential = (
  login: string | null,
  variable: string | null,
  from: CredentialEvidence,
): CredentialSource => ({ kind: 'login', login, variable, from });

/** The kinds a request can require (`Request.auth`). */
export const AUTH_REQUIREMENTS = ['api-key', 'login', 'cloud'] as const;
export type AuthRequirement = (typeof AUTH_REQUIREMENTS)[number];

export const isAuthRequirement = (v: unknown): v is AuthRequirement =>
  (AUTH_REQUIREMENTS as readonly unknown[]).includes(v);

/** A requirement in words: "an API key". */
export function requirementWords(r: AuthRequirement): string {
  switch (r) {
    case 'api-key':
      return 'an API key';
    case 'login':
      return 'its own login';
    case 'cloud':
      return "a cloud provider's credentials";
  }
}

/** A credential in a few words, for a summary line: `API key (ANTHROPIC_API_KEY)`, `login (chatgpt)`. */
export function credentialWords(c: CredentialSource): string {
  switch (c.kind) {
    case 'api-key':
      return `API key${c.variable !== null ? ` (${c.variable})` : ' (stored by the agent)'}`;
    case 'login': {
      const which = [c.login, c.variable].filter((x): x is string => x !== null);
      return `login${which.length > 0 ? ` (${which.join(', ')})` : ''}`;
    }
    case 'cloud':
      return `cloud (${c.provider})`;
    case 'unknown':
      return 'unknown';
  }
}
