/**
 * A remote session's conversation and report, fetched when someone asks for them: the table polls
 * only the session document (`read.ts`), and a conversation is read on the machine where its
 * transcript is, by the cctop there (`cctop chat ID --json`, `cctop report ID --json`), over the same
 * ssh as a poll (`ssh.ts`, one master connection per host). The answer is read as hostile input
 * (`fetch-read.ts`, `fetch-report.ts`) into the types a local read makes, so every view draws it with its own renderer.
 *
 * A failure is a result, never an exception, told as its fix (`fetchProblem`). The remote cctop
 * saying it has no such session is a failure of its own kind (`hasNoSuch`): asked of several hosts,
 * the next one is asked.
 *
 * Bounds: the answer is held to `MAX_REMOTE_DOCUMENT_BYTES` by `runRemote` (a conversation of 200
 * turns is a few MiB at most); an id or agent longer than `MAX_ID_CHARS` is not an id and is not
 * sent. Not here: which host holds a session (the caller's list), or drawing (the views).
 */
import { MAX_ID_CHARS } from '../model/conversation.js';
import type { SessionReport } from '../report/types.js';
import { MAX_REMOTE_DOCUMENT_BYTES } from './bounds.js';
import { explain, type Failed, runFailure } from './failure.js';
import { type AnswerReading, type ChatAnswer, readChatAnswer } from './fetch-read.js';
import { readReportAnswer } from './fetch-report.js';
import type { ReadOptions } from './read.js';
import { runRemote } from './ssh.js';
import type { HostSpec } from './target.js';

/** A remote answer, or why there is none; `ms` is the round trip (ssh, log in, the remote cctop). */
export type Fetched<T> = { kind: 'read'; value: T; ms: number } | ({ kind: 'failed'; ms: number } & Failed);

/** Which window of the conversation, as `cctop chat` takes it: `--before`, `--at`, `--agent`. */
export interface ChatQuery {
  before?: number;
  at?: number;
  agent?: string;
}

/** The id `chat` and `report` are given; null asks for the newest session there. */
function idWords(sessionId: string | null): string[] {
  // After `--`, so an id that starts with `-` is an id to the remote cctop, never an option.
  return sessionId === null ? [] : ['--', sessionId];
}

const tooLong = (ms: number, what: string): Fetched<never> => ({
  kind: 'failed',
  ms,
  failure: { kind: 'not-a-document', why: `${what} is longer than ${MAX_ID_CHARS} characters` },
  said: '',
});

/** Run `args` there and read the answer with `read`. */
async function fetchAnswer<T>(
  host: HostSpec,
  args: readonly string[],
  o: ReadOptions,
  read: (bytes: Buffer) => AnswerReading<T>,
): Promise<Fetched<T>> {
  const run = await runRemote(host, args, {
    env: o.env,
    ...(o.waitMs !== undefined ? { waitMs: o.waitMs } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const ms = run.kind === 'no-ssh' ? 0 : run.ms;
  const failed = runFailure(run);
  if (failed !== null || run.kind !== 'exited')
    return { kind: 'failed', ms, ...(failed ?? { failure: { kind: 'ssh-failed' }, said: '' }) };
  const r = read(run.stdout);
  switch (r.kind) {
    case 'read':
      return { kind: 'read', value: r.value, ms };
    case 'not-an-answer':
      return { kind: 'failed', ms, failure: { kind: 'not-a-document', why: r.why }, said: '' };
    case 'version':
      return { kind: 'failed', ms, failure: { kind: 'version', remote: r.remote, ours: r.ours }, said: '' };
  }
}

/** `cctop chat ID --json` on `host`: the conversation, as `chat --json` prints it there. */
export function fetchConversation(
  host: HostSpec,
  sessionId: string | null,
  query: ChatQuery,
  o: ReadOptions,
): Promise<Fetched<ChatAnswer>> {
  if (sessionId !== null && sessionId.length > MAX_ID_CHARS) return Promise.resolve(tooLong(0, 'the id'));
  if (query.agent !== undefined && query.agent.length > MAX_ID_CHARS)
    return Promise.resolve(tooLong(0, 'the agent id'));
  const window = [
    ...(query.before !== undefined ? ['--before', String(query.before)] : []),
    ...(query.at !== undefined ? ['--at', String(query.at)] : []),
    ...(query.agent !== undefined ? ['--agent', query.agent] : []),
  ];
  const args = ['chat', '--json', ...(o.args ?? []), ...window, ...idWords(sessionId)];
  return fetchAnswer(host, args, o, readChatAnswer);
}

/** `cctop report ID --json` on `host`: the session in depth, as `report --json` prints it there. */
export function fetchReport(
  host: HostSpec,
  sessionId: string | null,
  o: ReadOptions,
): Promise<Fetched<SessionReport>> {
  if (sessionId !== null && sessionId.length > MAX_ID_CHARS) return Promise.resolve(tooLong(0, 'the id'));
  const args = ['report', '--json', ...(o.args ?? []), ...idWords(sessionId)];
  return fetchAnswer(host, args, o, readReportAnswer);
}

/** What the remote cctop said, without its own `cctop: ` in front. */
const remoteWords = (said: string): string => said.replace(/^cctop: /, '');

/**
 * The remote cctop answered, and has no session with that id (it exits 2 and says "no session
 * matches"): not a fault of the host, and the next host may have it.
 */
export function hasNoSuch(f: Failed): boolean {
  return f.failure.kind === 'remote-failed' && f.failure.code === 2 && /no session matches/.test(f.said);
}

/**
 * A failed fetch as one sentence: the fix, or what the remote cctop said where it refused the
 * question itself (no such session, an id matching several). Its words are another machine's:
 * the caller makes them safe to print (`safeLine`).
 */
export function fetchProblem(host: string, f: Failed): string {
  const { failure, said } = f;
  if (failure.kind === 'remote-failed' && failure.code === 2 && said !== '')
    return `the cctop on ${host} says: ${remoteWords(said)}`;
  if (failure.kind === 'too-large')
    return `${host} sent more than ${MAX_REMOTE_DOCUMENT_BYTES / 1024 / 1024} MiB for one session; read it there (\`ssh ${host} cctop chat ID\`)`;
  if (failure.kind === 'remote-failed' && said !== '') return `${explain(host, failure)} (it said: ${said})`;
  return explain(host, failure);
}
