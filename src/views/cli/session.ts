/**
 * The commands about one session (`chat`, `report`): find it from an id or a unique prefix, then
 * read what was asked. An unknown or ambiguous id lists candidates and exits 2.
 *
 * What it prints is made safe by the renderers; the candidates' ids and labels here, and the JSON
 * (whose strings may hold C1 and bidi controls that `JSON.stringify` leaves raw), are made safe here.
 */
import { findSession } from '../../index/find.js';
import type { Snapshot } from '../../index/snapshot.js';
import type { Conversation } from '../../model/conversation.js';
import { unsupported } from '../../model/conversation.js';
import { conversationOf, providerById } from '../../providers/index.js';
import { buildReport } from '../../report/build.js';
import { printable, safeLine, terminalJson } from '../terminal-text.js';
import { renderChat, renderMarkdown } from './chat.js';
import { PLAIN, paint } from './color.js';
import { ago } from './format.js';
import { label } from './list.js';
import type { Io } from './main.js';
import { UsageError } from './options.js';
import { renderReport } from './report.js';

export async function sessionCommand(
  io: Io,
  command: 'chat' | 'report',
  query: string | null,
  values: Record<string, unknown>,
  snap: Snapshot,
  /** A snapshot read in full, for when `snap` came from kept sessions and cannot give a session's files. */
  whole: () => Promise<Snapshot>,
  /** Why there is no session to show: the filters matched none (and how many exist), or where cctop looked. */
  nothing: () => Promise<string>,
): Promise<number> {
  const found = findSession(snap.document, query);
  if (found.kind === 'none') {
    io.err(
      query === null
        ? `cctop: ${await nothing()}`
        : `cctop: no session matches "${safeLine(query)}" (cctop --list shows them)`,
    );
    return 2;
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
    return 2;
  }
  const s = found.session;
  const p = paint(io.isTty, io.env);
  const columns = io.isTty ? (io.columns ?? 100) : Number(io.env.COLUMNS) || 100;
  if (command === 'report') {
    // The session's own files from the index; a snapshot that cannot say reads them all again.
    let mine = snap.filesOf(s);
    let from = snap;
    if (mine === null) {
      from = await whole();
      mine = from.filesOf(s);
    }
    const report = buildReport({
      session: s,
      files: mine?.files ?? [],
      ...(mine?.masks ? { masks: mine.masks } : {}),
      book: from.book,
      time: from.time,
      nowMs: Date.now(),
    });
    if (values.json) io.out(terminalJson(report));
    else for (const line of renderReport(report, p, columns)) io.out(line);
    return 0;
  }
  let before: number | null = null;
  if (typeof values.before === 'string') {
    before = Number(values.before);
    if (!Number.isInteger(before) || before < 0)
      throw new UsageError(`--before ${values.before}: expected a turn number`);
  }
  const agent = typeof values.agent === 'string' ? values.agent : null;
  const provider = providerById(s.provider);
  let c: Conversation;
  if (s.deleted)
    c = unsupported(
      'the transcript of this session has been deleted; its numbers live on in the index, its words do not',
    );
  else c = conversationOf(provider, s.file, { before, agent });
  if (values.json) io.out(terminalJson({ session: s.id, provider: s.provider, ...c }));
  else if (values.markdown) io.out(renderMarkdown(s, c));
  else for (const line of renderChat(s, c, p, columns)) io.out(line);
  return 0;
}
