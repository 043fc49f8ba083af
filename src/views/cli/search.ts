/**
 * `cctop search QUERY`: every conversation of every harness on this machine, ranked for the words
 * asked, each result a highlighted line of the transcript, the session and the turn, and the command
 * that opens the conversation there (`cctop chat <id> --at <seq>`).
 *
 * Transcript text is hostile: every snippet, title and path is made safe to print
 * (`../terminal-text.ts`) before cctop's own colours go on, and the JSON is `terminalJson`. What a
 * query means, and why one is refused, is `search/query.ts`; this module only reads flags and prints.
 */
import { LocalTime } from '../../model/time.js';
import { home } from '../../providers/fsutil.js';
import type { Behind } from '../../search/catch-up.js';
import {
  DEFAULT_RESULTS,
  MAX_CATCH_UP_MS,
  MAX_RESULTS,
  type SearchHit,
  type SearchRole,
  search,
} from '../../search/search.js';
import { printable, safeLine, terminalJson } from '../terminal-text.js';
import { type Paint, paint } from './color.js';
import { demoEnv } from './demo.js';
import { counted, tildify } from './format.js';
import type { Io } from './main.js';
import { parse, parseDay, parseProviders, parseTimeZone, UsageError } from './options.js';

const FLAGS = {
  provider: { type: 'string' },
  project: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  timezone: { type: 'string' },
  role: { type: 'string' },
  limit: { type: 'string', short: 'n' },
  json: { type: 'boolean', short: 'j' },
  wait: { type: 'boolean' },
  demo: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const SEARCH_HELP = `cctop search: find words in every conversation, every harness

Usage: cctop search QUERY [options]

Every word must match; "a phrase" matches its words in that order; prefix* matches any word that
starts so. Other punctuation is part of a word (src/index.ts, lab-call-ok). Searched: what you
typed, what the agent answered (and its thinking), the calls it made (their names, the paths and
commands they were given) and session titles. Results are ranked best first, each with the turn
and the command that opens it: cctop chat ID --at SEQ.

Before answering, search reads what changed since the last search, for up to ${MAX_CATCH_UP_MS / 1000} s; when
transcripts are left unread it says so, and the next search reads on (--wait reads them all first).
The index lives beside cctop's session index (docs/search.md).

Options:
  --provider claude,codex          only these harnesses
  --project TEXT                   only sessions whose project path contains TEXT
  --since DATE, --until DATE       only turns on these local days (YYYY-MM-DD)
  --timezone ZONE                  days in this zone (default: the system's)
  --role user|assistant|tool       only what you typed, what the agent said, or its calls
  -n, --limit N                    at most N results (default ${DEFAULT_RESULTS}, at most ${MAX_RESULTS})
  --wait                           read every changed transcript before answering, however long
  -j, --json                       the results as JSON
  --demo                           search the sample history that ships with cctop
  -h, --help                       this help
`;

const ROLES: readonly SearchRole[] = ['user', 'assistant', 'tool'];

function roleOf(v: unknown): SearchRole | null {
  if (typeof v !== 'string') return null;
  const role = ROLES.find((r) => r === v);
  if (role === undefined) throw new UsageError(`--role ${v}: expected user, assistant or tool`);
  return role;
}

function limitOf(v: unknown): number {
  if (typeof v !== 'string') return DEFAULT_RESULTS;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > MAX_RESULTS)
    throw new UsageError(`--limit ${v}: expected a whole number from 1 to ${MAX_RESULTS}`);
  return n;
}

const WHO: Record<SearchHit['role'], string> = {
  user: 'you',
  assistant: 'agent',
  tool: 'call',
  title: 'title',
};

/** The snippet, made safe, with its matches picked out (bold and amber, or «» without colour). */
function marked(h: SearchHit, p: Paint): string {
  let out = '';
  let at = 0;
  for (const [a, b] of h.marks) {
    out += safeLine(h.snippet.slice(at, a));
    const word = safeLine(h.snippet.slice(a, b));
    out += p.enabled ? p.bold(p.amber(word)) : `«${word}»`;
    at = b;
  }
  return out + safeLine(h.snippet.slice(at));
}

function when(iso: string | null): string {
  return iso === null ? '' : iso.replace('T', ' ').slice(0, 16);
}

/** Three lines a result: where it is, what it says, how to open it. */
export function renderHit(h: SearchHit, p: Paint, homeDir: string): string[] {
  const where = [h.provider, h.project === null ? null : tildify(h.project, homeDir), when(h.at)]
    .filter((x) => x !== null && x.length > 0)
    .join('  ');
  const title = h.title === null ? safeLine(h.session) : safeLine(h.title);
  return [
    `${p.bold(title.length > 100 ? `${title.slice(0, 99)}…` : title)}  ${p.dim(where)}`,
    `  ${p.dim(h.seq === null ? `${WHO[h.role]}:` : `#${h.seq} ${WHO[h.role]}:`)} ${marked(h, p)}`,
    `  ${p.dim(safeLine(h.open))}`,
  ];
}

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;

/** What to say when the budget ran out before every changed transcript was read. */
export function behindLine(b: Behind): string {
  return `results may be behind: ${counted(b.files, 'transcript')} (${mb(b.bytes)}) not read yet; search again to read on, or add --wait`;
}

export async function searchCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, FLAGS, 'search');
  if (values.help) {
    io.out(SEARCH_HELP);
    return 0;
  }
  const query = positionals.join(' ');
  if (query.trim().length === 0)
    throw new UsageError('search needs a query: words, "a phrase" or a prefix* (try cctop search --help)');
  const zone = parseTimeZone(values.timezone as string | undefined);
  // Only for a day range: the system's zone is looked up once it is needed.
  const time = values.since === undefined && values.until === undefined ? null : new LocalTime(zone);
  const sinceMs = time && parseDay('since', values.since as string | undefined, time, false);
  const untilMs = time && parseDay('until', values.until as string | undefined, time, true);
  if (sinceMs !== null && untilMs !== null && untilMs <= sinceMs)
    throw new UsageError('--until is before --since');
  const env = values.demo ? demoEnv(io.env) : io.env;
  const a = await search({
    env,
    query,
    providers: parseProviders(values.provider as string | undefined),
    project: typeof values.project === 'string' ? values.project : null,
    sinceMs,
    untilMs,
    role: roleOf(values.role),
    limit: limitOf(values.limit),
    budgetMs: values.wait ? Number.POSITIVE_INFINITY : MAX_CATCH_UP_MS,
  });
  switch (a.kind) {
    case 'malformed':
      throw new UsageError(`${a.why} (try cctop search --help)`);
    case 'unavailable':
      io.err(`cctop: ${a.why}`);
      return 1;
    case 'results':
      break;
  }
  if (a.notice !== null) io.err(`cctop: ${a.notice}`);
  if (values.json) {
    io.out(terminalJson({ query, results: a.results, behind: a.behind }));
    return 0;
  }
  const p = paint(io.isTty, io.env);
  const h = home(env);
  const lines: string[] = [];
  for (const hit of a.results) lines.push(...renderHit(hit, p, h), '');
  if (a.results.length === 0) lines.push(`No conversation matches ${safeLine(query)}.`);
  if (a.behind !== null) lines.push(p.amber(behindLine(a.behind)));
  for (const line of lines) io.out(printable(line, p));
  return 0;
}
