/**
 * Other machines over ssh (`docs/hosts.md`): which hosts to read (`target.ts`), reading each one's
 * session document (`read.ts`, over `ssh.ts`, read by `remote-doc.ts`), polling them for a live view
 * (`poller.ts`), what a failure means and
 * how to fix it (`failure.ts`), one document from all of them (`merge.ts`), and one remote session's
 * conversation and report, fetched when asked for (`fetch.ts`, read by `fetch-read.ts` and
 * `fetch-report.ts`).
 */
export {
  CONNECT_TIMEOUT_S,
  CONTROL_PERSIST_S,
  HOST_WAIT_MS,
  MAX_CONTROL_PATH_BYTES,
  MAX_HOST_SPEC_CHARS,
  MAX_HOST_WAIT_MS,
  MAX_HOSTS,
  MAX_REMOTE_DOCUMENT_BYTES,
  MAX_SSH_STDERR_BYTES,
} from './bounds.js';
export {
  explain,
  type Failed,
  firstLines,
  type HostFailure,
  INSTALL_FROM_CLONE,
  installOn,
  runFailure,
  UPDATE_HERE,
} from './failure.js';
export {
  type ChatQuery,
  type Fetched,
  fetchConversation,
  fetchProblem,
  fetchReport,
  hasNoSuch,
} from './fetch.js';
export { type AnswerReading, type ChatAnswer, readChatAnswer } from './fetch-read.js';
export { MAX_REMOTE_REPORT_ROWS, readReportAnswer } from './fetch-report.js';
export { type HostView, viewOf, withHosts, withHostViews } from './merge.js';
export { HOST_POLL_MS, HostPoller, type HostState, type PollerOptions } from './poller.js';
export { type HostReading, type ReadOptions, readHost, readHosts } from './read.js';
export {
  MAX_REMOTE_TEXT_CHARS,
  type RemoteReading,
  readRemoteDocument,
  remoteSession,
} from './remote-doc.js';
export {
  controlPath,
  hostWaitMs,
  remoteCommand,
  runRemote,
  type SshRun,
  shellWord,
  sshArgs,
  sshProgram,
} from './ssh.js';
export {
  type HostList,
  type HostParse,
  type HostSource,
  type HostSpec,
  hostList,
  parseHost,
} from './target.js';
