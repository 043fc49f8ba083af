/**
 * `cctop hooks install|remove|status`: put `cctop hook <agent> <event>` into the agents' settings,
 * take it out again, and say how it stands (with the last event each agent sent). Also the "Hooks"
 * lines of `cctop doctor`.
 *
 * Without `--agent` it acts on the agents used on this machine (their settings directory is there)
 * and names the others it skipped. A file it cannot read is reported, and left as it is; the other
 * agents go on.
 *
 * Not here: the edits (`hooks/install/`), or what `cctop hook` does (`hooks/run.ts`).
 */

import { loadConfig } from '../../config/index.js';
import { DECIDING_EVENTS } from '../../hooks/deciders.js';
import {
  type AgentSetup,
  type AgentState,
  type Attempt,
  agentState,
  cctopProgram,
  chooseAgents,
  eachPart,
  type PartDone,
  type PartStatus,
  type Scope,
  type Skipped,
} from '../../hooks/install/index.js';
import { journalProblem, newestByAgent, readJournal } from '../../hooks/journal.js';
import { HOOK_AGENTS, type HookAgent, type HookEvent, isHookAgent } from '../../hooks/types.js';
import { InstallError } from '../../install/settings-file.js';
import { pidRuns } from '../../pid.js';
import { home } from '../../providers/fsutil.js';
import type { Env } from '../../providers/types.js';
import { runtimeDirPath } from '../../runtime/dir.js';
import { peerSockets } from '../../runtime/peers.js';
import { safeLine } from '../terminal-text.js';
import { type Paint, paint } from './color.js';
import { ago, counted, tildify } from './format.js';
import type { Io } from './main.js';
import { parse, UsageError } from './options.js';
import { closest } from './typo.js';

export const HOOKS_HELP = `cctop hooks: let your agents tell cctop what each session is doing

Usage:
  cctop hooks install [--agent LIST] [--scope user|project] [--approvals]
                                                            put cctop's hooks in their settings
  cctop hooks remove  [--agent LIST] [--scope user|project]   take them out, each file as it was
  cctop hooks status  [--agent LIST] [--scope user|project]   what is installed, and the last event

Each agent runs \`cctop hook <agent> <event>\` at the events that tell a session's state (a prompt,
a tool call, a permission dialog, the end of a turn), and cctop shows working, waiting or idle
from those instead of guessing from the transcript. Agents: ${HOOK_AGENTS.join(', ')}.
Only cctop's entries are added or taken out: comments, layout and the rest of each file stay, and
the file as it was is kept beside it (<name>.cctop.bak). See docs/hooks.md.

Options:
  --agent LIST        only these agents, separated by commas (default: those used here,
                      whose settings directory exists)
  --scope user|project
                      the user's settings (default), or this project's (.claude/settings.json
                      in the current directory; Claude Code only)
  --approvals         (install) also let cctop answer permission requests: the agent's own dialog
                      shows as always, and whichever answers first decides, it or cctop approve,
                      the live table, the dashboard or a notification (Claude Code; docs/act.md).
                      Each request is held for [approvals] hold seconds (default 600). Without it,
                      a new install makes the hooks watch only again.
  -j, --json          the outcome as JSON
  -h, --help          this help
`;

const FLAGS = {
  agent: { type: 'string' },
  scope: { type: 'string' },
  approvals: { type: 'boolean' },
  json: { type: 'boolean', short: 'j' },
  help: { type: 'boolean', short: 'h' },
} as const;

const ACTIONS = ['install', 'remove', 'status'] as const;
type Action = (typeof ACTIONS)[number];

/** Run `cctop hooks …` (`args` are the words after `hooks`); exits 1 when a file was refused. */
export async function hooksCommand(args: string[], io: Io, cwd: string = process.cwd()): Promise<number> {
  const { values, positionals } = parse(args, FLAGS, 'hooks');
  if (values.help === true) {
    io.out(HOOKS_HELP);
    return 0;
  }
  const [word, ...more] = positionals;
  if (word === undefined || more.length > 0)
    throw new UsageError(`hooks takes one of ${ACTIONS.join(', ')} (try cctop hooks --help)`);
  const action = ACTIONS.find((a) => a === word);
  if (action === undefined) {
    const near = closest(word, ACTIONS);
    throw new UsageError(
      `hooks ${word}: expected ${ACTIONS.join(', ')}${near ? `; did you mean ${near}?` : ''}`,
    );
  }
  const scope = scopeOf(values.scope);
  const named = agentsOf(values.agent);
  if (values.approvals === true && action !== 'install')
    throw new UsageError('--approvals goes with hooks install (remove takes every hook of cctop out)');
  const holdSeconds = values.approvals === true ? loadConfig(io.env).config.approvals.holdSeconds : null;
  const { setups, skipped } = chooseAgents(io.env, scope, cwd, named, holdSeconds);
  const program = cctopProgram();
  const refused = (err: unknown) => (err instanceof InstallError ? err.message : null);
  const h = home(io.env);
  const p = paint(io.isTty, io.env);

  if (action === 'status') {
    const journal = readJournal(io.env);
    const last = newestByAgent(journal);
    const rows = setups.map((s) => ({
      setup: s,
      parts: eachPart(s, (part) => part.status(program), refused),
    }));
    if (values.json === true) {
      io.out(
        JSON.stringify({
          action,
          scope,
          agents: rows.map((r) => ({
            agent: r.setup.agent,
            name: r.setup.name,
            state: agentState(statuses(r.parts)),
            parts: r.parts.map(partJson),
            lastEvent: last[r.setup.agent] ?? null,
          })),
          skipped,
          journalProblem: journalProblem(io.env),
        }),
      );
      return 0;
    }
    for (const r of rows)
      for (const line of statusLines(r.setup, r.parts, last[r.setup.agent], h, p)) io.out(line);
    const problem = journalProblem(io.env);
    if (problem !== null) io.out(p.amber(`The hook journal: ${safeLine(problem)}`));
    sayskipped(io, skipped, named === null, h, p);
    return 0;
  }

  const rows = setups.map((s) => ({
    setup: s,
    parts: eachPart(
      s,
      (part) => (action === 'install' ? part.install(program) : part.remove(program)),
      refused,
    ),
  }));
  const failed = rows.some((r) => r.parts.some((a) => a.kind === 'refused'));
  if (values.json === true) {
    io.out(
      JSON.stringify({
        action,
        scope,
        agents: rows.map((r) => ({ agent: r.setup.agent, name: r.setup.name, parts: r.parts.map(partJson) })),
        skipped,
      }),
    );
    return failed ? 1 : 0;
  }
  for (const r of rows) {
    io.out(p.bold(r.setup.name));
    for (const a of r.parts) {
      if (a.kind === 'refused') {
        io.err(`cctop: ${safeLine(a.why)}`);
        continue;
      }
      io.out(`  ${doneLine(action, a.result, h)}`);
      for (const note of a.result.notes) io.out(`  ${p.amber(safeLine(note))}`);
    }
    if (holdSeconds !== null) io.out(`  ${approvalsLine(r.setup.agent, holdSeconds)}`);
  }
  if (rows.length === 0 && skipped.length === 0) io.out('No agent to act on.');
  sayskipped(io, skipped, named === null, h, p);
  return failed ? 1 : 0;
}

/** What `--approvals` did for an agent: its requests held, or why they cannot be. */
function approvalsLine(agent: HookAgent, seconds: number): string {
  if (DECIDING_EVENTS[agent] !== undefined)
    return `permission requests wait up to ${seconds} s for an answer from cctop (cctop approve, the table, the dashboard); its own dialog answers too`;
  return 'its hooks cannot answer a permission request from cctop: they only watch (docs/act.md says why)';
}

function scopeOf(v: unknown): Scope {
  if (v === undefined) return 'user';
  if (v === 'user' || v === 'project') return v;
  throw new UsageError(`--scope ${String(v)}: expected user or project`);
}

function agentsOf(v: unknown): HookAgent[] | null {
  if (typeof v !== 'string') return null;
  const out: HookAgent[] = [];
  for (const word of v
    .split(',')
    .map((w) => w.trim().toLowerCase())
    .filter((w) => w.length > 0)) {
    if (!isHookAgent(word)) {
      const near = closest(word, HOOK_AGENTS);
      throw new UsageError(
        `--agent ${safeLine(word)}: not an agent cctop installs hooks into${near ? `, did you mean ${near}?` : ''} (${HOOK_AGENTS.join(', ')})`,
      );
    }
    if (!out.includes(word)) out.push(word);
  }
  if (out.length === 0) throw new UsageError(`--agent: name at least one of ${HOOK_AGENTS.join(', ')}`);
  return out;
}

function sayskipped(io: Io, skipped: readonly Skipped[], guessed: boolean, h: string, p: Paint): void {
  if (skipped.length === 0) return;
  const why = (s: Skipped) => (s.missing !== null ? `no ${tildify(s.missing, h)}` : safeLine(s.why));
  io.out(p.dim(`Skipped: ${skipped.map((s) => `${s.name} (${why(s)})`).join('; ')}.`));
  if (guessed) io.out(p.dim('Name an agent with --agent to act on it anyway.'));
}

const statuses = (parts: readonly Attempt<PartStatus>[]): PartStatus[] =>
  parts.flatMap((a) => (a.kind === 'done' ? [a.result] : []));

function partJson(a: Attempt<PartDone | PartStatus>): unknown {
  return a.kind === 'done' ? a.result : { refused: a.why };
}

/** A list of events, shortened past a few: they are many, and the file has them all. */
function some(events: readonly string[]): string {
  const SHOWN = 4;
  return events.length <= SHOWN
    ? events.join(', ')
    : `${events.slice(0, SHOWN).join(', ')} and ${events.length - SHOWN} more`;
}

function doneLine(action: Exclude<Action, 'status'>, d: PartDone, h: string): string {
  const file = tildify(d.file, h);
  const said: string[] = [];
  if (d.added.length > 0) said.push(`added ${counted(d.added.length, 'hook')} (${some(d.added)})`);
  if (d.repointed.length > 0) said.push(`repointed ${counted(d.repointed.length, 'hook')} to this cctop`);
  if (d.removed.length > 0)
    said.push(
      `${action === 'install' ? 'took out ' : 'removed '}${counted(d.removed.length, 'hook')}${action === 'install' ? ' cctop no longer installs' : ''}`,
    );
  if (said.length === 0)
    return `${file}: ${action === 'install' ? 'already in place' : 'no hook of cctop’s, nothing to remove'}`;
  const backup = d.backup !== null ? `; the file as it was is ${tildify(d.backup, h)}` : '';
  return `${file}: ${said.join(', ')}${backup}`;
}

const STATE_WORDS: Record<AgentState, string> = {
  installed: 'installed',
  stale: 'installed, running another cctop (cctop hooks install repoints it)',
  partial: 'partly installed (cctop hooks install adds the rest)',
  absent: 'not installed (cctop hooks install)',
  unreadable: 'a settings file cannot be read',
};

function lastEventWords(e: HookEvent | undefined): string {
  if (e === undefined) return 'no event has arrived yet';
  const session = e.session !== null ? `, session ${safeLine(e.session.slice(0, 8))}` : '';
  return `last event ${safeLine(e.event)} ${ago(e.at, Date.now())} ago${session}`;
}

function statusLines(
  setup: AgentSetup,
  parts: readonly Attempt<PartStatus>[],
  last: HookEvent | undefined,
  h: string,
  p: Paint,
): string[] {
  const state = agentState(statuses(parts));
  const word =
    state === 'installed'
      ? p.green(STATE_WORDS[state])
      : state === 'absent'
        ? STATE_WORDS[state]
        : p.amber(STATE_WORDS[state]);
  const lines = [`${p.bold(setup.name)}: ${word}; ${lastEventWords(last)}`];
  for (const a of parts) {
    if (a.kind === 'refused') {
      lines.push(`  ${p.amber(safeLine(a.why))}`);
      continue;
    }
    lines.push(`  ${partLine(a.result, h, p)}`);
    for (const note of a.result.notes) lines.push(`    ${p.dim(safeLine(note))}`);
  }
  return lines;
}

function partLine(s: PartStatus, h: string, p: Paint): string {
  const file = tildify(s.file, h);
  if (s.error !== null) return `${file}: ${p.amber(`cannot be read: ${safeLine(s.error)}`)}`;
  const total = s.current.length + s.stale.length + s.missing.length;
  const have = s.current.length + s.stale.length;
  const said = [have === 0 ? 'no hook of cctop’s' : `${have} of ${total} events`];
  if (have > 0 && s.missing.length > 0) said.push(`missing ${some(s.missing)}`);
  if (s.stale.length > 0)
    said.push(
      s.gone.length > 0
        ? `${counted(s.stale.length, 'hook')} run ${s.gone.map(safeLine).join(' and ')}, which is gone`
        : `${counted(s.stale.length, 'hook')} run another cctop`,
    );
  if (s.extra.length > 0) said.push(`also ${some(s.extra)} (an older cctop’s)`);
  return `${file}: ${said.join('; ')}`;
}

/** The "Hooks" section of `cctop doctor`: per agent used here, installed, absent or stale, and its last event. */
export function hookDoctorLines(env: Env, p: Paint): string[] {
  const h = home(env);
  const lines = [p.bold('Hooks')];
  let last: Partial<Record<HookAgent, HookEvent>> = {};
  try {
    last = newestByAgent(readJournal(env));
  } catch {
    // The journal is read best-effort; its problem is said below.
  }
  const { setups } = chooseAgents(env, 'user', process.cwd(), null);
  const program = cctopProgram();
  for (const s of setups) {
    const parts = eachPart(
      s,
      (part) => part.status(program),
      (err) => (err instanceof Error ? err.message : null),
    );
    const state = agentState(statuses(parts));
    const files = statuses(parts)
      .map((x) => tildify(x.file, h))
      .join(', ');
    lines.push(`  ${s.name}: ${STATE_WORDS[state]}; ${lastEventWords(last[s.agent])} ${p.dim(`(${files})`)}`);
  }
  if (setups.length === 0) lines.push(`  ${p.dim('no agent cctop installs hooks into is used here')}`);
  const problem = journalProblem(env);
  if (problem !== null) lines.push(`  ${p.amber(`hook journal: ${safeLine(problem)}`)}`);
  // Where hooks hand their events over, and who listens there now (each live table, dashboard, watch).
  const dir = runtimeDirPath(env);
  const listening = peerSockets(dir).filter((s) => pidRuns(s.pid)).length;
  lines.push(
    `  ${p.dim(`runtime ${tildify(dir, h)}: ${listening === 0 ? 'no cctop running listens' : `${counted(listening, 'running cctop')} listening`}`)}`,
  );
  return lines;
}
