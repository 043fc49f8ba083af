/**
 * What an ACP run's handshake says and how it reads the answers, kept apart from the conversation
 * (`client.ts`) that sends them and waits: the `initialize` request and what its reply tells (the
 * agent's name and version, the protocol version, which ways of opening a session it offers), the
 * request that opens the session (new, loaded or resumed), the request that sets its mode, and the
 * words a refusal or a missed deadline ends the run with.
 *
 * Every reader here is pure: it takes a reply and the run's plan and returns the next request or
 * why the run cannot go on. What it does not do: send, wait, keep the run's phase or session id, or
 * read the turn's updates (`updates.ts`) and permission requests (`permissions.ts`).
 */
import type { RequestError } from '@agentclientprotocol/sdk';
import { type JsonObject, num, obj, str } from '../../model/json.js';
import { headBytes, usableId } from '../bounds.js';
import type { Breakdown } from '../conversation.js';
import type { AcpIdentity } from '../events.js';
import type { Plan } from '../request.js';
import { chooseMode } from './modes.js';
import type { AcpAgent } from './request.js';

/** The ACP version drive speaks. */
export const ACP_PROTOCOL_VERSION = 1;

/** ACP's error code for "authenticate first" (Gemini CLI 0.61.0: "Gemini API key is missing"). */
const AUTH_REQUIRED = -32000;

/** How much of an error's `data` a message quotes: enough to say what went wrong, one line. */
const SHOWN_DATA_BYTES = 300;

/** The handshake's phases, each with what the agent is waiting to do in it, in a sentence. */
const WAITING = {
  starting: 'answer `initialize`',
  opening: 'open its session',
  configuring: 'set its session mode',
} as const;

export type Waiting = keyof typeof WAITING;

/** The params of `initialize`. */
export const INITIALIZE_PARAMS = {
  protocolVersion: ACP_PROTOCOL_VERSION,
  // No filesystem and no terminal: the agent works on its own files with its own tools.
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
};

/** The ways of opening a session an agent offers in its `initialize` reply. */
export interface Offers {
  load: boolean;
  resume: boolean;
  dirs: boolean;
}

export const NO_OFFERS: Offers = { load: false, resume: false, dirs: false };

export type Opening = 'session/new' | 'session/load' | 'session/resume';

/** A request of the handshake to send next, or why the run cannot go on. */
export type Next<T> = { kind: 'go'; value: T } | { kind: 'fail'; breakdown: Breakdown };

/** The run ends: the handshake did not finish within `ms`. */
export function overdue(acp: AcpAgent, waiting: Waiting, ms: number): Breakdown {
  const command = acp.command.join(' ');
  return {
    kind: 'protocol',
    message: `${acp.name} did not ${WAITING[waiting]} within ${Math.round(ms / 1000)} s: is \`${command}\` an ACP agent, started in its ACP mode?`,
  };
}

/** An error reply during the handshake: a login the agent wants, or a refusal. */
export function refusal(acp: AcpAgent, method: string, e: RequestError): Breakdown {
  const said = e.message || `error ${e.code}`;
  // Gemini CLI 0.61.0 says only "Internal error" and puts what went wrong in `data`.
  const data = e.data === null || e.data === undefined ? '' : JSON.stringify(e.data);
  const detail = data === '' ? '' : ` (${headBytes(data, SHOWN_DATA_BYTES)})`;
  return e.code === AUTH_REQUIRED
    ? { kind: 'not_authenticated', message: said }
    : { kind: 'protocol', message: `${acp.name} refused ${method}: ${said}${detail}` };
}

/**
 * `initialize` answered: who the agent says it is (written into `identity` whatever follows), and
 * what it offers; a failure when it speaks another protocol version.
 */
export function readInitialize(r: JsonObject | null, acp: AcpAgent, identity: AcpIdentity): Next<Offers> {
  const version = num(r?.protocolVersion);
  const info = obj(r?.agentInfo);
  identity.protocolVersion = version;
  identity.agentName = str(info?.name);
  identity.agentVersion = str(info?.version);
  if (version !== ACP_PROTOCOL_VERSION) {
    return {
      kind: 'fail',
      breakdown: {
        kind: 'protocol',
        message: `${acp.name} speaks ACP version ${version ?? 'unknown'}; cctop speaks ${ACP_PROTOCOL_VERSION}`,
      },
    };
  }
  const caps = obj(r?.agentCapabilities);
  const session = obj(caps?.sessionCapabilities);
  return {
    kind: 'go',
    value: {
      load: caps?.loadSession === true,
      resume: obj(session?.resume) !== null,
      dirs: obj(session?.additionalDirectories) !== null || session?.additionalDirectories === true,
    },
  };
}

/** The request that opens the session, and the id of the session it resumes (null for a new one). */
export interface Open {
  method: Opening;
  params: JsonObject;
  session: string | null;
}

/** How the plan's session is opened with what the agent offers. */
export function openRequest(plan: Plan, offers: Offers): Next<Open> {
  if (plan.addDirs.length > 0 && !offers.dirs) {
    return {
      kind: 'fail',
      breakdown: { kind: 'unsupported', what: 'more directories (it offers no additionalDirectories)' },
    };
  }
  const params = {
    cwd: plan.cwd,
    mcpServers: [],
    ...(plan.addDirs.length > 0 && { additionalDirectories: plan.addDirs }),
  };
  const s = plan.session;
  // A chosen id (`mint`) is refused before spawning: ACP lets the agent choose it.
  if (s.kind !== 'resume') return { kind: 'go', value: { method: 'session/new', params, session: null } };
  if (!offers.resume && !offers.load) {
    return {
      kind: 'fail',
      breakdown: {
        kind: 'unsupported',
        what: 'resuming a session (it offers neither session/resume nor session/load)',
      },
    };
  }
  // Resuming replays nothing; loading replays the whole history as updates, which `inTurn` drops.
  const method = offers.resume ? 'session/resume' : 'session/load';
  return { kind: 'go', value: { method, params: { ...params, sessionId: s.id }, session: s.id } };
}

/** The id of the session `session/new` opened; a failure when it gave none that is usable. */
export function newSessionId(r: JsonObject | null, acp: AcpAgent): Next<string> {
  const id = str(r?.sessionId);
  if (id !== null && usableId(id)) return { kind: 'go', value: id };
  return {
    kind: 'fail',
    breakdown: { kind: 'protocol', message: `${acp.name} opened a session without a usable sessionId` },
  };
}

/** The request that sets the opened session's mode ('keep': none is needed), from the open reply. */
export function modeRequest(
  r: JsonObject | null,
  session: string,
  plan: Plan,
  acp: AcpAgent,
): Next<'keep' | { method: string; params: JsonObject }> {
  const choice = chooseMode(r, plan.permission, acp.mode);
  switch (choice.kind) {
    case 'keep':
      return { kind: 'go', value: 'keep' };
    case 'set_mode':
      return {
        kind: 'go',
        value: { method: 'session/set_mode', params: { sessionId: session, modeId: choice.modeId } },
      };
    case 'config':
      return {
        kind: 'go',
        value: {
          method: 'session/set_config_option',
          params: { sessionId: session, configId: choice.configId, value: choice.value },
        },
      };
    case 'missing': {
      const offered =
        choice.offered.length > 0 ? `its modes: ${choice.offered.join(', ')}` : 'it offers no modes';
      const what = acp.mode !== undefined ? `the mode "${acp.mode}"` : `permission ${plan.permission}`;
      return {
        kind: 'fail',
        breakdown: {
          kind: 'unsupported',
          what: `${what} (${offered}); name one as acp.mode, or use permission default`,
        },
      };
    }
  }
}
