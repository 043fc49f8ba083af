/**
 * The spec of an ACP run: what the runner needs to start any Agent Client Protocol agent by the
 * command the request gives, with the credentials it may need and the conversation that talks to it.
 *
 * What an ACP agent can do is only known once it answers (`initialize`, the session it opens), so
 * most of it is checked then (`client.ts`); what ACP has no way to say at all is refused here, before
 * anything is spawned: a model or effort (name them in the agent's command), a schema, a chosen
 * session id, forks, plain-text output and mid-run input.
 */
import { basename } from 'node:path';
import { SPECS, spec } from '../agents/index.js';
import { type AgentSpec, baselineOf, type Invocation, NOT_LOGGED_IN } from '../agents/spec.js';
import type { CredentialNames } from '../env.js';
import { DriveError } from '../errors.js';
import { isNamedAgent, type NamedAgent } from '../events.js';
import type { Dialect, Terminal } from '../parser.js';
import type { Plan, Request } from '../request.js';
import { AcpConversation } from './client.js';
import { type AcpAgent, checkAcp, envNames } from './request.js';

/** An ACP agent writes JSON-RPC, read by its conversation; no line of it is a dialect's record. */
const NO_DIALECT: Dialect = {
  recognizes: () => false,
  read: () => [],
  modelOf: () => null,
};

/**
 * The named agent an ACP command starts or wraps, by the first word of its executable's name:
 * `gemini --acp` is Gemini CLI, `claude-code-acp` (Zed's adapter, which runs Claude Code) is Claude,
 * `codex-acp` is Codex. Null for any other program. The wrapped CLI reads its own credentials and
 * writes its own session files, which its provider reads.
 */
export function wrappedAgent(program: string): NamedAgent | null {
  const word = basename(program).split(/[-_.]/)[0] ?? '';
  return isNamedAgent(word) ? word : null;
}

/**
 * The credentials a known CLI reads, when the command starts or wraps one (`wrappedAgent`), the
 * key its own config names included (Codex's `env_key`). Anything else passes only what `acp.env`
 * names.
 */
function credentialsOf(acp: AcpAgent): CredentialNames {
  const own = envNames(acp.env);
  const wrapped = wrappedAgent(acp.command[0] ?? '');
  if (wrapped === null) return own;
  const known = SPECS[wrapped].credentials;
  return {
    names: [...known.names, ...own.names],
    prefixes: [...known.prefixes, ...own.prefixes],
    ...(known.configured !== undefined && { configured: known.configured }),
  };
}

function refuse(what: string): never {
  throw new DriveError({ kind: 'unsupported', agent: 'acp', what });
}

/** The spec for one ACP agent; `acp` has passed `checkAcp`. */
export function acpSpec(acp: AcpAgent): AgentSpec {
  const command = acp.command.join(' ');
  return {
    id: 'acp',
    bin: acp.command[0]!,
    installHint: `check the command of the ACP agent ${acp.name} (\`${command}\`)`,
    loginHint: `log ${acp.name} in the way it expects, or pass its key variable through acp.env`,
    caps: {
      fork: false,
      schema: false,
      interactive: false,
      approvals: true,
      mintSession: false,
      thinkingSwitch: false,
    },
    credentials: credentialsOf(acp),
    dialect: NO_DIALECT,
    schemaInFile: false,
    invocation(plan: Plan): Invocation {
      if (plan.model !== null) refuse(`a model through ACP; name it in the agent's command (\`${command}\`)`);
      if (plan.effort !== null) refuse("a reasoning effort through ACP; set it in the agent's command");
      if (plan.format === 'text') refuse('plain-text output (an ACP agent speaks JSON-RPC)');
      return {
        args: acp.command.slice(1),
        stdin: { kind: 'none' },
        env: {},
        conversation: (host) => new AcpConversation(plan, acp, host),
      };
    },
    authFailure: (stderr) => NOT_LOGGED_IN.test(stderr),
    baseline: baselineOf,
    settle,
  };
}

/**
 * ACP prices a session, not a run (`usage_update`'s cost is cumulative): on a new session the two
 * are the same; on a resumed one this run's share is unknown and stays null.
 */
function settle(t: Terminal, plan: Plan): Terminal {
  if (plan.session.kind === 'resume' || t.threadCostUsd === null) return t;
  return { ...t, usage: { ...t.usage, costUsd: t.threadCostUsd } };
}

/**
 * The spec a request names: a named agent's own, or one built for the ACP agent it describes. An
 * unknown name gets Claude's until `planRequest` refuses it. Throws for an ACP request that cannot
 * run (no command, a named session).
 */
export function specFor(request: Request): AgentSpec {
  if (request.agent !== 'acp') {
    if (request.acp !== undefined) {
      throw new DriveError({
        kind: 'invalid_request',
        what: "acp names an ACP agent: run it with agent: 'acp'",
      });
    }
    return spec(isNamedAgent(request.agent) ? request.agent : 'claude');
  }
  const acp = checkAcp(request.acp);
  // The name would be bound to "acp", which says nothing about which ACP agent continues it.
  if (request.session !== undefined) refuse('named sessions (resume an ACP session by its id)');
  return acpSpec(acp);
}
