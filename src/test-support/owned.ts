/**
 * Transcripts the repository owns, for tests that need real-shaped sessions: the lab's recordings of
 * the real agent CLIs (`lab/fixtures/<agent>/<case>/home/`, one session per case, made against the
 * stand-in model server) and the bundled demo history (`demo/home/`, several projects, a subagent,
 * Claude Code and Codex). A user's clone has both, so a test built on them runs everywhere; the shared
 * corpus beside the repository may add cases on top, never be needed.
 *
 * Not here: the throw-away homes they are copied into (`FakeHome` in `corpus.ts`), or what a session
 * must read as (each test says, from the files named here).
 */
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const LAB_FIXTURES = join(REPO, 'lab', 'fixtures');
export const DEMO_HOME = join(REPO, 'demo', 'home');

/** The five cases every lab agent was recorded in (`test/lab/conformance.ts`). */
export const LAB_CASES = ['text', 'call', 'parallel', 'fail', 'resume'] as const;
export type LabCase = (typeof LAB_CASES)[number];

/** When a copied transcript was last written unless a test says otherwise: long ago, so it reads as ended. */
export const ENDED_MTIME_MS = Date.parse('2026-12-02T00:00:00Z');

function jsonlUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => p.endsWith('.jsonl') && statSync(join(dir, p)).isFile())
    .sort()
    .map((p) => join(dir, p));
}

/** The one transcript (Claude Code) or rollout (Codex) a lab case recorded. */
export function labTranscript(agent: 'claude' | 'codex', run: LabCase): string {
  const files = jsonlUnder(join(LAB_FIXTURES, agent, run, 'home'));
  if (files.length !== 1)
    throw new Error(`lab/fixtures/${agent}/${run} holds ${files.length} transcripts, not 1`);
  return files[0]!;
}

/** A transcript's session id: its file name (Claude Code) or the uuid that ends it (Codex rollouts). */
export function sessionIdOf(path: string): string {
  const name = basename(path, '.jsonl');
  const uuid = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(name);
  return uuid?.[1] ?? name;
}

/** The demo history's Claude Code sessions (top-level transcripts, not subagents), by file. */
export const DEMO_CLAUDE: readonly string[] = jsonlUnder(join(DEMO_HOME, '.claude', 'projects')).filter(
  (p) => !p.includes('/subagents/'),
);
/** The demo history's Codex rollouts. */
export const DEMO_CODEX: readonly string[] = jsonlUnder(join(DEMO_HOME, '.codex', 'sessions'));

/** Every Claude Code transcript the repository owns: the lab's five, then the demo's. */
export const OWNED_CLAUDE: readonly string[] = [
  ...LAB_CASES.map((c) => labTranscript('claude', c)),
  ...DEMO_CLAUDE,
];
/** Every Codex rollout the repository owns: the lab's five, then the demo's. */
export const OWNED_CODEX: readonly string[] = [
  ...LAB_CASES.map((c) => labTranscript('codex', c)),
  ...DEMO_CODEX,
];

/** The demo's Claude Code session that ran a subagent (`<id>.jsonl` beside `<id>/subagents/`). */
export const DEMO_WITH_SUBAGENT = join(
  DEMO_HOME,
  '.claude',
  'projects',
  '-home-sam-src-billing',
  'a0d12928-daca-4076-a4ae-776fe074bc1e.jsonl',
);

function place(from: string, to: string, mtimeMs: number): string {
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
  utimesSync(to, mtimeMs / 1000, mtimeMs / 1000);
  return to;
}

/**
 * Copy a Claude Code transcript into `home` (a `$HOME`) under project `slug`, as session `id` (its own
 * id when not given), with its subagents beside it when it has any. Returns the copied transcript.
 */
export function addClaude(
  home: string,
  from: string,
  slug = '-work-demo',
  id = sessionIdOf(from),
  mtimeMs = ENDED_MTIME_MS,
): string {
  const to = place(from, join(home, '.claude', 'projects', slug, `${id}.jsonl`), mtimeMs);
  const beside = join(dirname(from), sessionIdOf(from));
  // Most sessions ran no subagent: nothing beside them to copy.
  if (existsSync(beside)) {
    cpSync(beside, join(dirname(to), id), { recursive: true });
    for (const f of jsonlUnder(join(dirname(to), id))) utimesSync(f, mtimeMs / 1000, mtimeMs / 1000);
  }
  return to;
}

/** Copy a Codex rollout into `home` on the day folder it was recorded under. Returns the copy. */
export function addCodex(home: string, from: string, mtimeMs = ENDED_MTIME_MS): string {
  const sessions = from.indexOf('/.codex/sessions/');
  const rel =
    sessions >= 0 ? from.slice(sessions + 1) : join('.codex', 'sessions', '2026', '12', '01', basename(from));
  return place(from, join(home, rel), mtimeMs);
}

/** The demo history copied whole into `home` (its layout kept), with every file's mtime `mtimeMs`. */
export function addDemo(home: string, mtimeMs = ENDED_MTIME_MS): string[] {
  const out: string[] = [];
  for (const f of jsonlUnder(DEMO_HOME)) out.push(place(f, join(home, relative(DEMO_HOME, f)), mtimeMs));
  return out;
}
