/**
 * The commands about one session (`chat`, `report`): find it from an id or a unique prefix, then
 * read what was asked. An unknown or ambiguous id lists candidates and exits 2. Another machine's
 * session (`--host`, or an id not found here while hosts are configured) is `session-remote.ts`'s.
 *
 * What it prints is made safe by the renderers; the candidates' ids and labels here, and the JSON
 * (whose strings may hold C1 and bidi controls that `JSON.stringify` leaves raw), are made safe here.
 */
import { findSession, MAX_CANDIDATES } from '../../index/find.js';
import type { Snapshot } from '../../index/snapshot.js';
import type { Conversation } from '../../model/conversation.js';
import { unsupported } from '../../model/conversation.js';
import type { SessionDoc } from '../../model/document.js';
import { conversationOf, providerById } from '../../providers/index.js';
import { reportFor } from '../../report/of-snapshot.js';
import type { SessionReport as Report } from '../../report/types.js';
import { printable, safeLine, terminalJson } from '../terminal-text.js';
import { renderChat, renderMarkdown } from './chat.js';
import { chatWindow } from './chat-at.js';
import { PLAIN, paint } from './color.js';
import { ago } from './format.js';
import { hostsOf } from './hosts.js';
import { label } from './list.js';
import type { Io } from './main.js';
import { renderReport } from './report.js';

/**
 * The session `query` names (an id or a unique prefix; null: the newest), or null after saying why
 * there is none: no match, or several (listed, to pick from).
 */
export async function chosenSession(
  io: Io,
  query: string | null,
  snap: Snapshot,
  nothing: () => Promise<string>,
): Promise<SessionDoc | null> {
  const found = findSession(snap.document, query);
  if (found.kind === 'none') {
    io.err(
      query === null
        ? `cctop: ${await nothing()}`
        : `cctop: no session matches "${safeLine(query)}" (cctop --list shows them)`,
    );
    return null;
  }
  if (found.kind === 'many') {
    io.err(
      `cctop: "${safeLine(query ?? '')}" matches ${found.candidates.length === 10 ? 'at least ' : ''}${found.candidates.length} sessions; give more of the id:`,
    );
    for (const s of found.candidates)
      io.err(
        printable(
          `  ${s.provider.padEnd(7)} ${safeLine(s.id)}  ${ago(s.lastActiveAt ? Date.parse(s.lastActiveAt) : null, Date.now()).padStart(4)}  ${label(s)}`,
          PLAIN,
        ),
      );
    return null;
  }
  return found.session;
}

/**
 * The subagent `asked` names among the session's (its agent id, or a prefix of it naming one), or
 * false after saying why there is none: several match (listed), or none does (the session's listed).
 * A harness whose subagents the report cannot name is asked with the id as typed.
 */
async function chosenAgent(
  io: Io,
  s: SessionDoc,
  asked: string,
  report: () => Promise<Report>,
): Promise<string | false> {
  const known = (await report()).subagents;
  const exact = known.find((a) => a.agent === asked);
  if (exact) return exact.agent;
  const matches = known.filter((a) => a.agent.startsWith(asked));
  if (matches.length === 1) return matches[0]!.agent;
  const list = (agents: Report['subagents']) => {
    for (const a of agents.slice(0, MAX_CANDIDATES))
      io.err(
        printable(`  ${safeLine(a.agent)}  ${a.title === null ? '' : safeLine(a.title)}`.trimEnd(), PLAIN),
      );
  };
  if (matches.length > 1) {
    io.err(
      `cctop: "${safeLine(asked)}" matches ${matches.length} subagents of this session; give more of the id:`,
    );
    list(matches);
    return false;
  }
  // Not one the report names: the harness may still know it (an id as it spells it).
  if (known.length === 0 || !providerById(s.provider).subagent) return asked;
  io.err(`cctop: this session has no subagent "${safeLine(asked)}"; its subagents:`);
  list(known);
  return false;
}

export async function sessionCommand(
  io: Io,
  command: 'chat' | 'report',
  query: string | null,
  values: Record<string, unknown>,
  /** This machine's snapshot, taken only when this machine is looked at (not for `--host`). */
  local: () => Promise<Snapshot>,
  /** A snapshot read in full, for when `snap` came from kept sessions and cannot give a session's files. */
  whole: () => Promise<Snapshot>,
  /** Why there is no session to show: the filters matched none (and how many exist), or where cctop looked. */
  nothing: (snap: Snapshot) => Promise<string>,
): Promise<number> {
  const remote = await import('./session-remote.js');
  // `--host`: the session is on that machine; this one is not looked at, nor its index read.
  if (remote.namedHosts(values).length > 0 && values.demo !== true) {
    const hosts = hostsOf(io, values);
    return hosts.length === 0 ? 2 : remote.remoteSessionCommand(io, command, query, values, hosts, 'named');
  }
  const snap = await local();
  // An id this machine does not know may be another's: ask the hosts of CCTOP_HOSTS or the config.
  if (query !== null && values.demo !== true && findSession(snap.document, query).kind === 'none') {
    const hosts = hostsOf(io, values);
    if (hosts.length > 0) return remote.remoteSessionCommand(io, command, query, values, hosts, 'fallback');
  }
  const s = await chosenSession(io, query, snap, () => nothing(snap));
  if (s === null) return 2;
  const p = paint(io.isTty, io.env);
  const columns = io.isTty ? (io.columns ?? 100) : Number(io.env.COLUMNS) || 100;
  if (command === 'report') {
    const report = await reportFor(s, snap, whole);
    if (values.json) io.out(terminalJson(report));
    else for (const line of renderReport(report, p, columns, snap.document.timeZone)) io.out(line);
    return 0;
  }
  const { before, at } = chatWindow(values);
  const asked = typeof values.agent === 'string' ? values.agent : null;
  const agent = asked === null ? null : await chosenAgent(io, s, asked, () => reportFor(s, snap, whole));
  if (agent === false) return 2;
  const provider = providerById(s.provider);
  let c: Conversation;
  if (s.deleted)
    c = unsupported(
      'the transcript of this session has been deleted; its numbers live on in the index, its words do not',
    );
  else c = conversationOf(provider, s.file, { before, agent });
  // A subagent asked for and not read is a failure to say, not an empty conversation.
  if (agent !== null && !c.supported) {
    io.err(`cctop: ${safeLine(c.note ?? `no subagent ${agent}`)}`);
    return 2;
  }
  if (at !== null && c.supported && !c.turns.some((t) => t.seq === at))
    io.err(`cctop: this conversation shows no turn #${at}; here are its turns before #${before}`);
  if (values.json)
    io.out(
      terminalJson({
        session: s.id,
        provider: s.provider,
        title: s.title,
        project: s.project,
        ...(at === null ? {} : { at }),
        ...c,
      }),
    );
  else if (values.markdown) io.out(renderMarkdown(s, c));
  else for (const line of renderChat(s, c, p, columns, at)) io.out(line);
  return 0;
}
