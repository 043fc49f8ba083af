/**
 * Claude Code: `projects/<slug>/<session>.jsonl` under each config directory, with subagent
 * transcripts in `<session>/subagents/` (and the older `agent-*.jsonl` beside the main file) counted
 * toward their parent.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type Conversation, TurnSink, unsupported } from '../../model/conversation.js';
import type { ProblemLog } from '../../model/problems.js';
import { eachObject } from '../conversation-util.js';
import { dirList, home, isDir, isFile, list, sourceFile } from '../fsutil.js';
import { extracting, readJsonl } from '../read.js';
import type {
  ConversationOptions,
  Env,
  ParseResult,
  Provider,
  Root,
  SourceFile,
  WindowQuery,
} from '../types.js';
import { lineFromBytes } from './bytes.js';
import { claudeRecord } from './conversation.js';
import { type ClaudeCarry, ClaudeParser, emptyClaudeCarry } from './parser.js';
import { lineFromJson } from './record.js';

/** Claude Code compacts at 83.5% of its window unless told otherwise. */
export const DEFAULT_COMPACT_RATIO = 0.835;

export function claudeRoots(env: Env): Root[] {
  const configured = dirList(env.CLAUDE_CONFIG_DIR);
  if (configured.length > 0) return configured.map((path) => ({ path, origin: '$CLAUDE_CONFIG_DIR' }));
  const h = home(env);
  return [
    { path: join(h, '.claude'), origin: 'default' },
    { path: join(h, '.config', 'claude'), origin: 'default' },
  ];
}

function discover(roots: Root[], problems: ProblemLog): SourceFile[] {
  const out: SourceFile[] = [];
  for (const root of roots) {
    const projects = join(root.path, 'projects');
    for (const slug of list(projects, problems) ?? []) {
      if (!isDir(projects, slug)) continue;
      const dir = join(projects, slug.name);
      for (const e of list(dir, problems) ?? []) {
        if (e.name.endsWith('.jsonl') && isFile(dir, e)) {
          const stem = basename(e.name, '.jsonl');
          // `agent-<id>.jsonl` beside a main file is an older subagent; its records name the parent.
          const sub = stem.startsWith('agent-');
          const f = sourceFile(
            {
              provider: 'claude',
              path: join(dir, e.name),
              root: root.path,
              sessionHint: sub ? null : stem,
              role: sub ? 'subagent' : 'main',
            },
            problems,
          );
          if (f) out.push(f);
        } else if (isDir(dir, e)) {
          const subDir = join(dir, e.name, 'subagents');
          for (const s of list(subDir, problems) ?? []) {
            if (!s.name.endsWith('.jsonl') || !isFile(subDir, s)) continue;
            const path = join(subDir, s.name);
            const f = sourceFile(
              { provider: 'claude', path, root: root.path, sessionHint: e.name, role: 'subagent' },
              problems,
            );
            if (f) out.push(f);
          }
        }
      }
    }
  }
  return out;
}

function parse(file: SourceFile, previous: ParseResult | null): ParseResult {
  return readJsonl(file, previous, (facts, carry, ledger) => {
    const parser = new ClaudeParser(
      facts,
      (carry as ClaudeCarry | null) ?? emptyClaudeCarry(),
      ledger,
      file.role === 'subagent',
    );
    const line = extracting(lineFromBytes, lineFromJson, (l) => parser.line(l));
    return { line, carry: () => parser.carry() };
  });
}

/** The window every current Claude model has unless a 1M-token variant is pinned. */
export const DEFAULT_WINDOW = 200_000;
export const LONG_WINDOW = 1_000_000;

const pinCache = new Map<string, boolean>();

/** Whether a settings file pins a `[1m]` model. */
function settingsPin(path: string): boolean {
  let pinned = pinCache.get(path);
  if (pinned === undefined) {
    pinned = false;
    // Most projects have no such file: a stat that cannot throw is much cheaper than a failed read.
    if (statSync(path, { throwIfNoEntry: false })?.isFile()) {
      try {
        const model = (JSON.parse(readFileSync(path, 'utf8')) as { model?: unknown }).model;
        pinned = typeof model === 'string' && model.includes('[1m]');
      } catch {
        pinned = false;
      }
    }
    pinCache.set(path, pinned);
  }
  return pinned;
}

const projectPins = new Map<string, boolean>();

/** Whether a project's own settings pin a 1M-token model (looked up once per project). */
function projectPin(cwd: string): boolean {
  let pinned = projectPins.get(cwd);
  if (pinned === undefined) {
    pinned =
      settingsPin(join(cwd, '.claude', 'settings.local.json')) ||
      settingsPin(join(cwd, '.claude', 'settings.json'));
    projectPins.set(cwd, pinned);
  }
  return pinned;
}

function contextWindow(q: WindowQuery): number | null {
  const pinned =
    (q.model?.includes('[1m]') ?? false) ||
    (q.cwd !== null && projectPin(q.cwd)) ||
    settingsPin(join(q.root, 'settings.json'));
  const window = pinned ? LONG_WINDOW : (q.catalogueWindow ?? DEFAULT_WINDOW);
  // A window is never shown smaller than what it already held.
  return q.used !== null && q.used > window ? Math.max(LONG_WINDOW, q.used) : window;
}

/** An agent id names a file: anything but a plain token is refused rather than resolved. */
export const AGENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The transcripts of a session's subagents: `<session>/subagents/agent-<id>.jsonl`, or beside it. */
export function subagentFiles(mainPath: string): { agent: string; path: string }[] {
  const dir = dirname(mainPath);
  const id = basename(mainPath, '.jsonl');
  const out: { agent: string; path: string }[] = [];
  for (const where of [join(dir, id, 'subagents')]) {
    try {
      for (const name of readdirSync(where)) {
        const m = /^agent-(.+)\.jsonl$/.exec(name);
        if (m && AGENT_ID.test(m[1]!)) out.push({ agent: m[1]!, path: join(where, name) });
      }
    } catch {
      // no subagents directory
    }
  }
  return out;
}

function conversation(path: string, o: ConversationOptions): Conversation {
  let file = path;
  if (o.agent !== null) {
    if (!AGENT_ID.test(o.agent)) return unsupported(`"${o.agent.slice(0, 40)}" is not an agent id`);
    const found = subagentFiles(path).find((s) => s.agent === o.agent) ?? null;
    const beside = join(dirname(path), `agent-${o.agent}.jsonl`);
    file = found?.path ?? (statSync(beside, { throwIfNoEntry: false })?.isFile() ? beside : '');
    if (file === '') return unsupported(`this session has no subagent ${o.agent}`);
  }
  const sink = new TurnSink(o.before);
  try {
    // A subagent's own transcript is all sidechain records: those are its conversation.
    eachObject(file, (r) => claudeRecord(sink, r, o.agent !== null));
  } catch (err) {
    return unsupported(`could not read the transcript: ${(err as Error).message}`);
  }
  return sink.finish();
}

export const claude: Provider = {
  id: 'claude',
  label: 'Claude Code',
  vendor: 'anthropic',
  appendOnly: true,
  bundledUnderMax: true,
  roots: claudeRoots,
  discover,
  parse,
  compactRatio(env) {
    const override = Number(env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE);
    if (Number.isFinite(override) && override > 0 && override <= 100) return override / 100;
    return DEFAULT_COMPACT_RATIO;
  },
  contextWindow,
  conversation,
};
