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
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
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

/** The lab's agents whose recorded homes merge into one `$HOME` without two runs writing one file. */
export const MERGEABLE_LAB_AGENTS = ['claude', 'codex', 'gemini', 'qwen', 'pi', 'copilot'] as const;

function touchAll(dir: string, mtimeMs: number): void {
  for (const p of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, p);
    if (statSync(path).isFile()) utimesSync(path, mtimeMs / 1000, mtimeMs / 1000);
  }
}

/**
 * Every recorded run of `agents` merged into `home`, as if one person had run them all there; and
 * opencode's `text` run (its runs share one database file, so only one fits in a home). Every file's
 * mtime is `mtimeMs`, so the sessions read as ended.
 */
export function addLabRuns(
  home: string,
  agents: ReadonlyArray<(typeof MERGEABLE_LAB_AGENTS)[number]> = MERGEABLE_LAB_AGENTS,
  mtimeMs = ENDED_MTIME_MS,
): void {
  for (const agent of agents)
    for (const run of LAB_CASES) cpSync(join(LAB_FIXTURES, agent, run, 'home'), home, { recursive: true });
  cpSync(join(LAB_FIXTURES, 'opencode', 'text', 'home'), home, { recursive: true });
  touchAll(home, mtimeMs);
}

/**
 * A Codex rollout of `turns` prompts, each answered after one shell call, written by the test in
 * codex-cli 0.58's shape (as the demo's rollouts are): a long session, longer than one window of the
 * conversation (`MAX_TURNS`), that no recording holds. Every request is priced usage on gpt-5-codex.
 * Returns the rollout's path.
 */
export function writeLongCodex(
  home: string,
  id: string,
  turns: number,
  startMs = Date.parse('2026-11-20T09:00:00Z'),
): string {
  const day = new Date(startMs).toISOString().slice(0, 10).replaceAll('-', '/');
  const stamp = new Date(startMs).toISOString().slice(0, 19).replaceAll(':', '-');
  const path = join(home, '.codex', 'sessions', day, `rollout-${stamp}-${id}.jsonl`);
  const cwd = '/home/sam/src/long';
  const lines: unknown[] = [];
  const at = (ms: number) => new Date(ms).toISOString();
  const rec = (ms: number, type: string, payload: unknown) =>
    lines.push({ timestamp: at(ms), type, payload });
  rec(startMs, 'session_meta', {
    id,
    timestamp: at(startMs),
    cwd,
    originator: 'codex_cli_rs',
    cli_version: '0.58.0',
  });
  const total = {
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    reasoning_output_tokens: 0,
    total_tokens: 0,
  };
  for (let n = 0; n < turns; n++) {
    const t = startMs + 60_000 * (n + 1);
    rec(t, 'turn_context', {
      cwd,
      approval_policy: 'on-request',
      sandbox_policy: { mode: 'workspace-write' },
      model: 'gpt-5-codex',
      effort: 'medium',
      summary: 'auto',
    });
    rec(t, 'event_msg', { type: 'task_started', model_context_window: 272_000 });
    const ask = `Step ${n + 1}: run the check again and say what it printed.`;
    rec(t, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: ask }] });
    rec(t, 'event_msg', { type: 'user_message', message: ask });
    const call = `call_long_${n}`;
    rec(t + 2000, 'response_item', {
      type: 'function_call',
      name: 'shell',
      arguments: JSON.stringify({ command: ['bash', '-lc', `echo step-${n + 1}`], workdir: cwd }),
      call_id: call,
    });
    rec(t + 2500, 'response_item', {
      type: 'function_call_output',
      call_id: call,
      output: JSON.stringify({
        output: `step-${n + 1}\n`,
        metadata: { exit_code: 0, duration_seconds: 0.1 },
      }),
    });
    const last = {
      input_tokens: 9000 + 40 * n,
      cached_input_tokens: 8000 + 40 * n,
      output_tokens: 30,
      reasoning_output_tokens: 10,
      total_tokens: 9030 + 40 * n,
    };
    total.input_tokens += last.input_tokens;
    total.cached_input_tokens += last.cached_input_tokens;
    total.output_tokens += last.output_tokens;
    total.reasoning_output_tokens += last.reasoning_output_tokens;
    total.total_tokens += last.total_tokens;
    rec(t + 3000, 'event_msg', {
      type: 'token_count',
      info: { total_token_usage: { ...total }, last_token_usage: last, model_context_window: 272_000 },
    });
    const answer = `Step ${n + 1} printed step-${n + 1}.`;
    rec(t + 3000, 'response_item', {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: answer }],
    });
    rec(t + 3000, 'event_msg', { type: 'agent_message', message: answer });
    rec(t + 3000, 'event_msg', { type: 'task_complete', last_agent_message: answer });
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  utimesSync(path, ENDED_MTIME_MS / 1000, ENDED_MTIME_MS / 1000);
  return path;
}

/** One of the demo's Claude Code sessions, by its project folder and id. */
export const demoClaude = (slug: string, id: string): string =>
  join(DEMO_HOME, '.claude', 'projects', slug, `${id}.jsonl`);

/** One of the demo's Codex rollouts, by its session id. */
export function demoCodex(id: string): string {
  const found = DEMO_CODEX.find((f) => f.endsWith(`-${id}.jsonl`));
  if (found === undefined) throw new Error(`the demo has no Codex session ${id}`);
  return found;
}

/**
 * A path inside the shared corpus beside the repository (`../shared/corpus`), or null where there is
 * none (a user's clone). A test may add cases from it when present; it registers none without it.
 */
export function optionalCorpus(...parts: string[]): string | null {
  const path = join(REPO, '..', 'shared', 'corpus', ...parts);
  return existsSync(path) ? path : null;
}
