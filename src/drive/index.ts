/**
 * `cctop/drive`: run Claude Code, Codex or Copilot CLI headlessly behind one event stream.
 *
 *   import { run, stream } from 'cctop/drive';
 *   const outcome = await run({ agent: 'codex', prompt: 'What does this repo do?' });
 *
 * docs/drive.md describes the API, the events, the error kinds and every bound. What is not exported
 * here is the folder's own business.
 */
export type { TokenCounts, Usage } from '../model/usage.js';
export { accumulate, emptyUsage } from '../model/usage.js';
// How far back a resumed Codex run looks for its thread's earlier total (the Codex provider owns it).
export { MAX_ROLLOUT_TAIL_BYTES } from '../providers/codex/thread.js';
export {
  ACP_HANDSHAKE_MS,
  ACP_PROTOCOL_VERSION,
  type AcpAgent,
  splitCommand,
} from './acp/index.js';
export { MAX_CREDENTIAL_FILE_BYTES } from './agents/credential-files.js';
export {
  EVENT_QUEUE_DEPTH,
  KILL_GRACE_MS,
  MAX_CAPTURE,
  MAX_EVENT_BYTES,
  MAX_IDENTIFIER_BYTES,
  MAX_LINE,
  MAX_PENDING_APPROVALS,
  SETTLED_EXIT_MS,
  TRUNCATION_MARK,
} from './bounds.js';
export {
  AUTH_REQUIREMENTS,
  type AuthRequirement,
  type CredentialEvidence,
  type CredentialKind,
  type CredentialSource,
  credentialWords,
  isAuthRequirement,
} from './credentials.js';
export { type EnvPolicy, NETWORK_ENV, SANDBOX_ENV } from './env.js';
export { DriveError, type Failure, type FailureKind, isDriveError } from './errors.js';
export {
  type AcpIdentity,
  AGENTS,
  type AgentId,
  type Commands,
  type Compaction,
  type Decision,
  type Event,
  type EventKind,
  isAgentId,
  isBlocking,
  isNamedAgent,
  looksLikeFormatChange,
  type NamedAgent,
  type Outcome,
  type PlanEntry,
  type RateLimit,
  type Stop,
  succeeded,
  utilities,
} from './events.js';
export { installed } from './locate.js';
export type { Format } from './parser.js';
export { isPermission, type NamedSession, PERMISSIONS, type Permission, type Request } from './request.js';
export { MAX_PENDING_REQUESTS } from './rpc/peer.js';
export { type Run, type RunStats, run, stream } from './run.js';
export {
  defaultSessionDir,
  type Lease,
  MAX_SESSION_NAME_BYTES,
  type SessionRecord,
  SessionStore,
} from './sessions.js';
