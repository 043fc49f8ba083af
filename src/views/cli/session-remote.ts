/**
 * `cctop chat` and `cctop report` for another machine's session: asked of the cctop there over ssh
 * (`hosts/fetch.ts`) and printed with the renderers a local session uses, so `--json`, `--markdown`,
 * `--before`, `--at` and `--agent` mean what they mean here.
 *
 * Which machine: the `--host` ones, or, when the id matches nothing here, the hosts of `CCTOP_HOSTS`
 * or the config file. Every host is asked at once; the first in the order given that has the session
 * answers, and stderr says which when the person did not name it. A host that could not be asked is
 * named with its fix. Exit 0 when shown; 2 when no host has it, or an id matches several there (as
 * for a local id); 1 when a host that might have it could not be asked.
 *
 * Not here: finding a local session (`session.ts`), ssh and reading the answer (`hosts/`).
 */
import {
  type ChatAnswer,
  type Fetched,
  fetchConversation,
  fetchProblem,
  fetchReport,
  type HostSpec,
  hasNoSuch,
  type ReadOptions,
} from '../../hosts/index.js';
import type { SessionReport } from '../../report/types.js';
import { safeLine, terminalJson } from '../terminal-text.js';
import { type ChatHead, renderChat, renderMarkdown } from './chat.js';
import { chatWindow } from './chat-at.js';
import { paint } from './color.js';
import { passedOn } from './hosts.js';
import type { Io } from './main.js';
import { renderReport } from './report.js';

/** How the hosts were chosen: named with `--host`, or asked because the id is not on this machine. */
export type Asked = 'named' | 'fallback';

/** A `chat` or `report` asked of other machines: the command line and which hosts to ask. */
interface Asking {
  io: Io;
  query: string | null;
  values: Record<string, unknown>;
  hosts: readonly HostSpec[];
  asked: Asked;
}

/** One host's answer, in the order the hosts were given. */
type Answer<T> = { host: HostSpec; fetched: Fetched<T> };

/**
 * Ask every host at once and return the first, in the order given, that has the session; the ones
 * after it are stopped. The answers before it are returned too, to name the hosts that failed.
 */
async function firstWith<T>(
  hosts: readonly HostSpec[],
  ask: (h: HostSpec, signal: AbortSignal) => Promise<Fetched<T>>,
): Promise<{ found: { host: HostSpec; value: T } | null; before: Answer<T>[] }> {
  const stop = new AbortController();
  const pending = hosts.map((h) => ask(h, stop.signal).then((fetched) => ({ host: h, fetched })));
  const before: Answer<T>[] = [];
  for (const p of pending) {
    const a = await p;
    if (a.fetched.kind === 'read') {
      stop.abort();
      return { found: { host: a.host, value: a.fetched.value }, before };
    }
    before.push(a);
  }
  return { found: null, before };
}

/**
 * What a host's answer without the session was: it has none (`none`), its cctop refused the question
 * (`refused`: the id matches several there), or it could not be asked (`failed`).
 */
function outcome(f: Fetched<unknown>): 'read' | 'none' | 'refused' | 'failed' {
  if (f.kind === 'read') return 'read';
  if (hasNoSuch(f)) return 'none';
  return f.failure.kind === 'remote-failed' && f.failure.code === 2 ? 'refused' : 'failed';
}

/** Each host that refused or failed, named with what its cctop said or the fix; how many failed. */
function sayFailed<T>(io: Io, answers: readonly Answer<T>[]): number {
  let failed = 0;
  for (const { host, fetched } of answers) {
    if (fetched.kind === 'read') continue;
    const why = safeLine(fetchProblem(host.name, fetched));
    switch (outcome(fetched)) {
      case 'refused':
        io.err(`cctop: ${why}`);
        break;
      case 'failed':
        failed++;
        io.err(`cctop: could not read ${safeLine(host.name)}: ${why}`);
        break;
    }
  }
  return failed;
}

/**
 * Nothing to show: which hosts were asked, and the exit code: 1 when one of them could not be asked
 * (it may have the session), else 2 (as for an id this machine does not know, or that matches several).
 */
function nothingFound<T>(io: Io, query: string | null, asked: Asked, answers: readonly Answer<T>[]): number {
  if (sayFailed(io, answers) > 0) return 1;
  if (answers.every((a) => outcome(a.fetched) === 'none')) {
    const names = answers.map((a) => safeLine(a.host.name)).join(', ');
    const where = asked === 'fallback' ? `here or on ${names}` : `on ${names}`;
    io.err(`cctop: no session matches "${safeLine(query ?? '')}" ${where} (cctop --list shows them)`);
  }
  return 2;
}

/** Says which machine answered, when the person did not name it. */
function sayFrom(io: Io, asked: Asked, query: string | null, host: HostSpec): void {
  if (asked === 'fallback')
    io.err(`cctop: ${safeLine(query ?? '')} is not on this machine; showing it from ${safeLine(host.name)}`);
}

/**
 * The first of `hosts` that has the session, once the hosts before it that failed are named and, when
 * the person did not name the machine, the one that answered; or the exit code when none has it.
 */
async function shownFrom<T>(
  { io, query, values, hosts, asked }: Asking,
  ask: (h: HostSpec, o: ReadOptions) => Promise<Fetched<T>>,
): Promise<{ host: HostSpec; value: T } | number> {
  const args = passedOn(values);
  const { found, before } = await firstWith(hosts, (h, signal) => ask(h, { env: io.env, args, signal }));
  if (found === null) return nothingFound(io, query, asked, before);
  sayFailed(io, before);
  sayFrom(io, asked, query, found.host);
  return found;
}

function columnsOf(io: Io): number {
  return io.isTty ? (io.columns ?? 100) : Number(io.env.COLUMNS) || 100;
}

async function remoteChat(a: Asking): Promise<number> {
  const { io, query, values } = a;
  const { before, at } = chatWindow(values);
  const agent = typeof values.agent === 'string' ? values.agent : null;
  // `--at` goes as itself, so the remote cctop places the window and marks the turn.
  const window = {
    ...(at !== null ? { at } : before !== null ? { before } : {}),
    ...(agent !== null ? { agent } : {}),
  };
  const found = await shownFrom<ChatAnswer>(a, (h, o) => fetchConversation(h, query, window, o));
  if (typeof found === 'number') return found;
  const { session, provider, title, project, ...c } = found.value;
  const host = found.host.name;
  if (at !== null && c.supported && !c.turns.some((t) => t.seq === at))
    io.err(`cctop: this conversation shows no turn #${at}; here are its turns before #${before}`);
  if (values.json) {
    io.out(terminalJson({ session, provider, title, project, host, ...c }));
    return 0;
  }
  const head: ChatHead = { provider, id: session, title, project, host };
  const { showPaged } = await import('./pager.js');
  await showPaged(
    io,
    values.markdown
      ? [renderMarkdown(head, c)]
      : renderChat(head, c, paint(io.isTty, io.env), columnsOf(io), at),
  );
  return 0;
}

async function remoteReport(a: Asking): Promise<number> {
  const { io, values } = a;
  const found = await shownFrom<SessionReport>(a, (h, o) => fetchReport(h, a.query, o));
  if (typeof found === 'number') return found;
  const report = found.value;
  report.session.host = found.host.name;
  if (values.json) io.out(terminalJson(report));
  else for (const line of renderReport(report, paint(io.isTty, io.env), columnsOf(io))) io.out(line);
  return 0;
}

/** `chat` or `report` of a session on one of `hosts`; the exit code. */
export function remoteSessionCommand(
  io: Io,
  command: 'chat' | 'report',
  query: string | null,
  values: Record<string, unknown>,
  hosts: readonly HostSpec[],
  asked: Asked,
): Promise<number> {
  const a: Asking = { io, query, values, hosts, asked };
  return command === 'chat' ? remoteChat(a) : remoteReport(a);
}

/** The `--host` values given on the line (before any is checked). */
export function namedHosts(values: Record<string, unknown>): string[] {
  return Array.isArray(values.host) ? values.host.filter((h): h is string => typeof h === 'string') : [];
}
