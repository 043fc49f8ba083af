/**
 * `cctop secrets`: where credentials were found in the transcripts (session, turn, kind, the first
 * and last few characters, how long ago), so the person can rotate them. `--reveal ID:TURN` prints
 * that turn's secrets in full, on a terminal only: a pipe or a file would keep the value, which is
 * what cctop promises not to do (docs/security.md). Neither serve nor MCP offers a reveal.
 *
 * Not here: finding or keeping them (`secrets/`).
 */

import { home } from '../../providers/fsutil.js';
import type { FoundSecret } from '../../search/rows.js';
import { MAX_CATCH_UP_MS } from '../../search/search.js';
import { listSecrets, revealTurn } from '../../secrets/list.js';
import { ago, counted, UNKNOWN } from '../format.js';
import { safeLine, safeText, terminalJson } from '../terminal-text.js';
import { paint } from './color.js';
import { tildify } from './format.js';
import type { Io } from './main.js';
import { parse, UsageError } from './options.js';
import { behindLine } from './search.js';

const FLAGS = {
  json: { type: 'boolean', short: 'j' },
  wait: { type: 'boolean' },
  reveal: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const SECRETS_HELP = `cctop secrets: credentials found in your agents' transcripts

Usage: cctop secrets [--json] [--wait]
       cctop secrets --reveal ID:TURN

Agents read .env files, print tokens and paste connection strings, and their transcripts keep them.
cctop finds them with secretlint's recommended rules (AWS, GitHub, OpenAI, Anthropic, Slack,
SendGrid, Shopify, npm, Linear, 1Password, private keys, database and URL passwords) and high-entropy
values assigned to secret-looking names (API_KEY=..., "password": "..."), and never shows one in full:
chat, export, handoff, search, the dashboard and MCP show sk-p…[redacted: OpenAI key] instead.

This lists each one: session, turn, kind, first and last characters, age. Rotate what it finds.
It reads through the search index (docs/search.md), for up to ${MAX_CATCH_UP_MS / 1000} s unless --wait.

Options:
  -j, --json                       the list as JSON (first and last characters only)
  --wait                           read every changed transcript first, however long
  --reveal ID:TURN                 print that turn's secrets in full; only on a terminal
  -h, --help                       this help
`;

/** First and last characters, as the list shows a secret. */
const ends = (s: FoundSecret): string => `${s.head}…${s.tail}`;

function parseReveal(v: string): { session: string; seq: number } {
  const m = /^(.+):(\d+)$/.exec(v);
  if (m === null) throw new UsageError(`--reveal ${v}: expected ID:TURN, as cctop secrets lists them`);
  return { session: m[1]!, seq: Number(m[2]) };
}

export async function secretsCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, FLAGS, 'secrets');
  if (values.help) {
    io.out(SECRETS_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`secrets takes no arguments (got ${positionals[0]})`);
  const reveal = typeof values.reveal === 'string' ? parseReveal(values.reveal) : null;
  // Refused before anything is read: the full value must not reach a pipe, a file or a log.
  if (reveal !== null && !io.isTty) {
    io.err(
      'cctop: --reveal prints a secret in full, so only to a terminal (stdout is not one); nothing was printed',
    );
    return 2;
  }
  const listed = await listSecrets(io.env, values.wait === true ? Number.POSITIVE_INFINITY : MAX_CATCH_UP_MS);
  if (listed.kind === 'unavailable') {
    io.err(`cctop: ${listed.why}`);
    return 1;
  }
  if (listed.notice !== null) io.err(`cctop: ${listed.notice}`);
  if (reveal !== null) return revealCommand(io, listed.secrets, reveal);
  const nowMs = Date.now();
  if (values.json === true) {
    io.out(
      terminalJson({
        secrets: listed.secrets.map((s) => ({
          harness: s.provider,
          session: s.session,
          project: s.project,
          turn: s.seq,
          kind: s.kind,
          first: s.head,
          last: s.tail,
          at: s.tsMs === null ? null : new Date(s.tsMs).toISOString(),
        })),
        behind: listed.behind,
      }),
    );
    return 0;
  }
  const p = paint(io.isTty, io.env);
  if (listed.secrets.length === 0) io.out('No secrets found in the transcripts read.');
  else {
    const rows = listed.secrets.map((s) => [
      s.session.slice(0, 8),
      `#${s.seq}`,
      s.kind,
      ends(s),
      ago(s.tsMs, nowMs),
      s.project === null ? UNKNOWN : tildify(s.project, home(io.env)),
    ]);
    const head = ['SESSION', 'TURN', 'KIND', 'SECRET', 'AGE', 'PROJECT'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (r: string[]) =>
      r
        .map((c, i) => (i === r.length - 1 ? safeLine(c) : safeLine(c).padEnd(widths[i]!)))
        .join('  ')
        .trimEnd();
    io.out(p.bold(line(head)));
    for (const r of rows) io.out(line(r));
    io.out('');
    io.out(
      `${counted(listed.secrets.length, 'secret')} found. Rotate them; cctop secrets --reveal ID:TURN shows one in full.`,
    );
  }
  if (listed.behind !== null)
    io.err(behindLine(listed.behind).replace('results may be behind', 'this list may be short'));
  return 0;
}

async function revealCommand(
  io: Io,
  secrets: readonly FoundSecret[],
  want: { session: string; seq: number },
): Promise<number> {
  const sessions = [
    ...new Set(secrets.filter((s) => s.session.startsWith(want.session)).map((s) => s.session)),
  ];
  if (sessions.length > 1)
    throw new UsageError(`--reveal ${want.session}: names ${sessions.length} sessions; give more of the id`);
  const found = secrets.find((s) => s.session === sessions[0] && s.seq === want.seq);
  if (found === undefined) {
    io.err(`cctop: no secret listed at ${want.session}:${want.seq} (cctop secrets lists them)`);
    return 1;
  }
  const full = await revealTurn(found, want.seq);
  if (full.length === 0) {
    io.err(`cctop: turn #${want.seq} of ${found.session} no longer holds a secret`);
    return 1;
  }
  for (const s of full) io.out(`${s.kind}: ${safeText(s.value)}`);
  return 0;
}
