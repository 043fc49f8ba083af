/**
 * `cctop explain <id>`: why a session's state reads as it does. It prints each source of evidence,
 * strongest first (the agent's hooks, the agent's own registry, what cctop infers from the
 * transcript and the process table), and which one decided, with the rule that let it.
 *
 * It reads what a one-shot `--json` reads (the index, the process table, the hook journal, the
 * registries) and decides with the same function (`decide` in `live/hook-state.ts`), so what it
 * explains is what the other views show.
 *
 * Not here: deciding anything (`live/hook-state.ts`, `model/state.ts`).
 */

import { approvalsDir, type JournalLine, openRequests, readApprovalJournal } from '../../approvals/store.js';
import { type ApprovalRequest, settledWords, verdictWords } from '../../approvals/types.js';
import { type HookEvent, isHookAgent } from '../../hooks/types.js';
import { AgentStates } from '../../live/agent-state.js';
import {
  type Claim,
  decide,
  meaningOf,
  PERMISSION_HOLD_MS,
  type RegistryClaim,
  registryIndex,
} from '../../live/hook-state.js';
import type { SessionDoc } from '../../model/document.js';
import { type SessionState, type StateSource, WORKING_TTL_MS } from '../../model/state.js';
import type { Env } from '../../providers/types.js';
import { runtimeDir } from '../../runtime/dir.js';
import { printable, safeLine, terminalJson } from '../terminal-text.js';
import { type Paint, PLAIN, paint } from './color.js';
import { demoEnv } from './demo.js';
import { ago } from './format.js';
import { label } from './list.js';
import type { Io } from './main.js';
import { type CommonOptions, UsageError } from './options.js';
import { snapshot } from './snapshots.js';

/** Hook events printed; the journal keeps more, the newest are what decided. */
const SHOWN_EVENTS = 12;
/** Answers printed (`docs/act.md`): the newest; the journal of answers keeps more. */
const SHOWN_ANSWERS = 12;

/** Everything that bears on one session's state now. */
interface Evidence {
  s: SessionDoc;
  nowMs: number;
  trail: readonly HookEvent[];
  hook: Claim | null;
  registry: RegistryClaim | null;
  decided: { state: SessionState; source: StateSource; detail: string | null };
  /** Held requests of the session: how each ended and every answer refused (`docs/act.md`), and those open. */
  answers: JournalLine[];
  open: ApprovalRequest[];
}

/** The session's lines of the journal of answers, and its requests still open. */
function answersOf(
  s: SessionDoc,
  env: Env,
  nowMs: number,
): { answers: JournalLine[]; open: ApprovalRequest[] } {
  const rt = runtimeDir(env);
  if (rt.kind !== 'ok') return { answers: [], open: [] };
  const mine = (r: ApprovalRequest) => r.agent === s.provider && r.session === s.id;
  const dir = approvalsDir(rt.path);
  return {
    answers: readApprovalJournal(rt.path).filter((j) => mine(j.request)),
    open: dir === null ? [] : openRequests(dir, nowMs).filter(mine),
  };
}

function evidenceOf(s: SessionDoc, env: Env, nowMs: number): Evidence {
  const agents = AgentStates.fromJournal(env);
  const registry = agents.registryClaim(s.provider, s.id, nowMs);
  const claim = decide(
    { provider: s.provider, id: s.id, running: s.running, inferred: s.state, pendingTool: s.pendingTool },
    agents.hooks,
    registry === null ? null : registryIndex([registry]),
    nowMs,
  );
  return {
    s,
    nowMs,
    trail: agents.hooks.trail(s.provider, s.id),
    hook: agents.hooks.claim(s.provider, s.id, s.running, nowMs),
    registry,
    decided: claim ?? { state: s.state, source: 'inferred', detail: s.stateDetail },
    ...answersOf(s, env, nowMs),
  };
}

function evidenceJson(ev: Evidence): unknown {
  const { s } = ev;
  return {
    provider: s.provider,
    id: s.id,
    state: ev.decided.state,
    stateSource: ev.decided.source,
    stateDetail: ev.decided.detail,
    hooks: {
      claim: ev.hook,
      events: ev.trail.slice(-SHOWN_EVENTS).map((e) => ({ ...e, meaning: meaningOf(e) })),
    },
    registry: ev.registry,
    inferred: {
      state: s.state,
      detail: s.stateDetail,
      pendingTool: s.pendingTool,
      probablyWaiting: s.inferred === 'probably-waiting',
      lastActiveAt: s.lastActiveAt,
    },
    process: { running: s.running, pids: s.process?.pids ?? [], cpu: s.process?.cpu ?? null },
    answers: ev.answers.slice(-SHOWN_ANSWERS),
    openRequests: ev.open,
  };
}

/** Each held request's end, each refused answer (who, from where, when), and those still open. */
function answerLines(ev: Evidence, when: (ms: number | null) => string): string[] {
  if (ev.answers.length === 0 && ev.open.length === 0)
    return ['  no request of this session was held (cctop hooks install --approvals holds them)'];
  const asked = (r: ApprovalRequest) =>
    `${safeLine(r.tool ?? 'a request')}${r.input ? ` ${safeLine(r.input)}` : ''}`;
  const line = (j: JournalLine): string => {
    switch (j.kind) {
      case 'settled':
        return `  ${when(j.settlement.at).padStart(4)} ago  ${asked(j.request)}  → ${safeLine(settledWords(j.settlement))}, ${Math.round((j.settlement.at - j.request.at) / 1000)} s after it was asked`;
      case 'refused':
        return `  ${when(j.answer.at).padStart(4)} ago  ${asked(j.request)}  → refused ${safeLine(verdictWords(j.answer.verdict))} from ${safeLine(j.answer.by.who)} via ${j.answer.by.via} from ${safeLine(j.answer.by.from)}: ${safeLine(j.why)}`;
      case 'typed':
        return `  ${when(j.answer.at).padStart(4)} ago  ${asked(j.request)}  → ${safeLine(verdictWords(j.answer.verdict))} by ${safeLine(j.answer.by.who)} via ${j.answer.by.via} from ${safeLine(j.answer.by.from)}: pressed ${safeLine(j.key)} in ${safeLine(j.where)}${j.closed ? '' : ' (its prompt was still up when cctop stopped looking)'}`;
    }
  };
  const lines: string[] = [];
  for (const j of ev.answers.slice(-SHOWN_ANSWERS)) lines.push(line(j));
  for (const r of ev.open)
    lines.push(
      `  open: ${asked(r)}, asked ${when(r.at)} ago (cctop approve ${safeLine(r.session)} allow|deny)`,
    );
  return lines;
}

const SOURCE_SENTENCE: Record<StateSource, string> = {
  hook: "from the agent's hooks",
  registry: "from the agent's own list of running sessions",
  driven: 'from the program driving it through cctop/drive',
  inferred: 'inferred by cctop (no hook or registry says otherwise)',
};

function hookLines(ev: Evidence, when: (ms: number | null) => string): string[] {
  if (ev.trail.length === 0)
    return [
      `  no event for this session in the journal${
        isHookAgent(ev.s.provider)
          ? ' (cctop hooks status says whether they are installed)'
          : ' (cctop has no hooks for this harness)'
      }`,
    ];
  const lines = ev.trail
    .slice(-SHOWN_EVENTS)
    .map(
      (e) =>
        `  ${when(e.at).padStart(4)} ago  ${safeLine(e.event)}${e.tool ? ` ${safeLine(e.tool)}` : ''}${
          e.notification ? ` [${safeLine(e.notification)}]` : ''
        }  → ${meaningOf(e)}`,
    );
  lines.push(
    ev.hook === null
      ? `  say nothing now: the newest event is over ${WORKING_TTL_MS / 60_000} minutes old and no process is seen running the session`
      : `  say ${ev.hook.state} (a permission request shows as waiting once unanswered for ${PERMISSION_HOLD_MS} ms; this holds while the process runs, else for ${WORKING_TTL_MS / 60_000} minutes)`,
  );
  return lines;
}

function evidenceLines(ev: Evidence, p: Paint): string[] {
  const { s, decided, registry } = ev;
  const when = (ms: number | null) => ago(ms, ev.nowMs).trim() || 'now';
  const lastWritten = when(s.lastActiveAt ? Date.parse(s.lastActiveAt) : null);
  return [
    `${s.provider} ${safeLine(s.id)}  ${label(s)}`,
    `${p.bold(decided.state)}${decided.detail ? ` (${safeLine(decided.detail)})` : ''}, ${SOURCE_SENTENCE[decided.source]}`,
    '',
    p.bold('hooks'),
    ...hookLines(ev, when),
    p.bold('answers'),
    ...answerLines(ev, when),
    p.bold('registry'),
    registry === null
      ? s.provider === 'claude'
        ? '  Claude Code lists no running session with this id'
        : '  this agent keeps no registry cctop reads'
      : `  says ${registry.state}${registry.detail ? ` (${safeLine(registry.detail)})` : ''}, updated ${when(registry.atMs)} ago`,
    p.bold('files and process'),
    `  the transcript says ${s.state}${s.stateDetail ? ` (${safeLine(s.stateDetail)})` : ''}${
      s.pendingTool ? `, ${safeLine(s.pendingTool)} pending` : ''
    }; last written ${lastWritten} ago${
      s.inferred === 'probably-waiting' ? '; probably waiting (a call pending, file quiet, process idle)' : ''
    }`,
    s.running === true
      ? `  a process runs it: pid ${s.process?.pids[0] ?? '?'}, ${s.process?.cpu ?? '─'}% cpu`
      : s.running === false
        ? '  no process runs it'
        : '  cctop cannot see processes for this harness',
  ];
}

/** What decided a session's state, as data (`--json`) or as lines. */
export async function explainCommand(
  io: Io,
  positionals: readonly string[],
  o: CommonOptions,
  json: boolean,
): Promise<number> {
  if (positionals.length > 1)
    throw new UsageError(`explain takes one session id or prefix (got ${positionals.join(' ')})`);
  const query = positionals[0] ?? null;
  const env = o.demo ? demoEnv(io.env) : io.env;
  const snap = await snapshot(o, io.env, false, undefined, true);
  // As `chat` and `report` find theirs: an ambiguous prefix is refused naming the sessions it matches.
  const { chosenSession } = await import('./session.js');
  const session = await chosenSession(
    io,
    query,
    snap,
    async () => 'no sessions found (cctop doctor says where cctop looked)',
  );
  if (session === null) return 2;
  const ev = evidenceOf(session, env, Date.now());
  if (json) {
    io.out(terminalJson(evidenceJson(ev)));
    return 0;
  }
  const p = paint(io.isTty, io.env);
  for (const line of evidenceLines(ev, p)) io.out(printable(line, io.isTty ? p : PLAIN));
  return 0;
}
