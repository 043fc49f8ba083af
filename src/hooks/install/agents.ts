/**
 * Where each agent's hooks go, and in what shape: the settings files and elements of the six agents
 * cctop installs hooks into, each as one or more parts (Codex has two: `notify` in config.toml and
 * its hooks file). Paths follow the same environment as the providers (`CLAUDE_CONFIG_DIR`,
 * `CODEX_HOME`, `GEMINI_CLI_HOME`, `QWEN_HOME`, `CURSOR_HOME`, `XDG_CONFIG_HOME`, and `HOME`), never
 * the process's own home.
 *
 * What each agent reads was taken from the versions the lab pins (`docs/hooks.md` says which):
 * - Claude Code 2.1.328: `hooks.<Event>` groups in settings.json, plain JSON, timeout in seconds.
 * - Codex 0.169.0: `notify` in config.toml; groups in `hooks.json` beside it (plain JSON, timeout in
 *   seconds), which Codex runs only once the user trusts them.
 * - Gemini CLI 0.61.0: groups in settings.json (comments allowed), timeout in milliseconds; on
 *   unless `hooksConfig.enabled` is false.
 * - Qwen Code 0.24.4: groups in settings.json (comments allowed), timeout in seconds; on unless
 *   `disableAllHooks`.
 * - Cursor: `{ "command": … }` items in `hooks.json`, which starts `"version": 1`.
 * - OpenCode 1.18.33: a plugin file (`opencode.ts`).
 *
 * Not here: the edits themselves (`json-hooks.ts`, `codex-notify.ts`, `opencode.ts`).
 */
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { readSettings, readSettingsRaw } from '../../install/settings-file.js';
import { claudeSettings } from '../../install/targets.js';
import { arr, type JsonObject, obj } from '../../model/json.js';
import { claudeRoots } from '../../providers/claude/place.js';
import { CODEX_HOOK_FILE_EVENTS } from '../../providers/codex/hooks.js';
import { codexRoots } from '../../providers/codex/place.js';
import { cursorRoots } from '../../providers/cursor/place.js';
import { home } from '../../providers/fsutil.js';
import { geminiRoots } from '../../providers/gemini/place.js';
import type { Env } from '../../providers/types.js';
import { agentHooks } from '../agents.js';
import { DECIDING_EVENTS } from '../deciders.js';
import type { HookAgent } from '../types.js';
import { codexNotifyStatus, installCodexNotify, removeCodexNotify } from './codex-notify.js';
import { readHookCommand } from './command.js';
import { HOLD_ARG, type JsonHooksSpec } from './json-hook-list.js';
import { installJsonHooks, jsonHooksStatus, removeJsonHooks } from './json-hooks.js';
import {
  installOpencodePlugin,
  opencodeConfigDir,
  opencodePluginPath,
  opencodePluginStatus,
  removeOpencodePlugin,
} from './opencode.js';
import type { PartDone, PartStatus } from './types.js';

/** One file cctop's hooks for an agent live in. */
export interface HookPart {
  install(program: readonly string[]): PartDone;
  remove(program: readonly string[]): PartDone;
  status(program: readonly string[]): PartStatus;
}

export interface AgentSetup {
  agent: HookAgent;
  /** The agent's name for people. */
  name: string;
  /** Its settings directory: there when the agent is used on this machine. */
  home: string;
  parts: readonly HookPart[];
}

export type Scope = 'user' | 'project';

export type Setup =
  | { kind: 'ok'; setup: AgentSetup }
  /** The agent has no settings cctop installs into at this scope. */
  | { kind: 'unsupported'; agent: HookAgent; name: string; why: string };

export const AGENT_NAMES: Readonly<Record<HookAgent, string>> = {
  claude: 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
  qwen: 'Qwen Code',
  cursor: 'Cursor',
  opencode: 'OpenCode',
};

/**
 * How long an agent lets cctop's hook run before giving up on it. `cctop hook` ends itself within a
 * quarter of a second (`hooks/run.ts`); this is the agent's own guard, for a machine so loaded that
 * node takes seconds to start, and short so that such a machine never holds a tool call for the
 * agents' defaults of one to ten minutes.
 */
const HOOK_TIMEOUT_SECONDS = 10;

/** A group as Claude Code, Codex, Gemini CLI and Qwen Code read it, with the timeout in their unit. */
const group =
  (timeout: number) =>
  (command: string): JsonObject => ({ hooks: [{ type: 'command', command, timeout }] });

/** Where a group's commands are. */
function groupCommands(element: unknown): (string | number)[][] {
  const hooks = arr(obj(element)?.hooks) ?? [];
  return hooks.flatMap((h, i) => (typeof obj(h)?.command === 'string' ? [['hooks', i, 'command']] : []));
}

const offNote = (on: boolean, what: string): string[] => (on ? [] : [what]);

function jsonPart(spec: JsonHooksSpec, installNotes: (d: PartDone) => string[] = () => []): HookPart {
  return {
    install: (program) => {
      const d = installJsonHooks(spec, program);
      return { ...d, notes: [...d.notes, ...installNotes(d)] };
    },
    remove: (program) => removeJsonHooks(spec, program),
    status: (program) => jsonHooksStatus(spec, program),
  };
}

const first = (v: string | undefined): string | null => (v && v.length > 0 ? v : null);

/** Qwen Code's settings directory: `$QWEN_HOME`, else `~/.qwen` (where 0.24.4 reads settings.json). */
const qwenDir = (env: Env): string => first(env.QWEN_HOME) ?? join(home(env), '.qwen');

/** Codex's settings directory, `$CODEX_HOME` (the first, when several) else `~/.codex`. */
const codexDir = (env: Env): string => codexRoots(env)[0]!.path;

/**
 * How much longer than its hold the agent lets a deciding hook run: the hook releases at the end of
 * its hold and exits within a quarter of a second, so half a minute more is for a loaded machine,
 * and the agent's own kill never comes first.
 */
const HOLD_TIMEOUT_MARGIN_SECONDS = 30;

/** The deciding hooks for `seconds` of hold (`--approvals`), as the spec's `held`; null: only watch. */
const heldSpec = (events: readonly string[], seconds: number | null): JsonHooksSpec['held'] | undefined =>
  seconds === null
    ? undefined
    : { events, args: [HOLD_ARG, String(seconds)], element: group(seconds + HOLD_TIMEOUT_MARGIN_SECONDS) };

/**
 * How the agent's setup is found, for `scope` (`cwd` for a project's settings); `holdSeconds`: install
 * deciding hooks that hold requests that long (`--approvals`), where the agent has one.
 */
export function agentSetup(
  agent: HookAgent,
  env: Env,
  scope: Scope,
  cwd: string,
  holdSeconds: number | null = null,
): Setup {
  if (scope === 'project' && agent !== 'claude') {
    const name = AGENT_NAMES[agent];
    return {
      kind: 'unsupported',
      agent,
      name,
      why: `cctop installs ${name}'s hooks for the user only (--scope user)`,
    };
  }
  return SETUPS[agent](env, scope, cwd, holdSeconds);
}

type SetupOf = (env: Env, scope: Scope, cwd: string, holdSeconds: number | null) => Setup;

const SETUPS: Readonly<Record<HookAgent, SetupOf>> = {
  claude: (env, scope, cwd, holdSeconds) => {
    const target =
      scope === 'project'
        ? {
            path: join(cwd, '.claude', 'settings.json'),
            syntax: 'json' as const,
            label: 'Claude Code project settings',
          }
        : claudeSettings(env);
    return ok('claude', scope === 'project' ? cwd : claudeRoots(env)[0]!.path, [
      jsonPart({
        agent: 'claude',
        target,
        events: agentHooks('claude').events,
        element: group(HOOK_TIMEOUT_SECONDS),
        commandPaths: groupCommands,
        newFile: {},
        held: heldSpec(DECIDING_EVENTS.claude ?? [], holdSeconds),
        notes: (doc) =>
          offNote(
            doc.disableAllHooks !== true,
            "disableAllHooks is on: Claude Code runs no hook, cctop's included",
          ),
      }),
    ]);
  },
  codex: (env) => {
    const dir = codexDir(env);
    const config = join(dir, 'config.toml');
    const hooksFile = join(dir, 'hooks.json');
    const spec: JsonHooksSpec = {
      agent: 'codex',
      target: { path: hooksFile, syntax: 'json', label: 'Codex hooks' },
      events: CODEX_HOOK_FILE_EVENTS,
      element: group(HOOK_TIMEOUT_SECONDS),
      commandPaths: groupCommands,
      newFile: {},
      notes: () => [],
    };
    const trustNote = (d: PartDone) => (d.added.length + d.repointed.length > 0 ? [CODEX_TRUST] : []);
    return ok('codex', dir, [
      {
        install: (program) => installCodexNotify(config, program),
        remove: (program) => removeCodexNotify(config, program),
        status: (program) => codexNotifyStatus(config, program),
      },
      {
        ...jsonPart(spec, trustNote),
        status: (program) => withCodexTrust(jsonHooksStatus(spec, program), config, hooksFile, program),
      },
    ]);
  },
  gemini: (env) => {
    const dir = geminiRoots(env)[0]!.path;
    return ok('gemini', dir, [
      jsonPart({
        agent: 'gemini',
        target: { path: join(dir, 'settings.json'), syntax: 'jsonc', label: 'Gemini CLI settings' },
        events: agentHooks('gemini').events,
        element: group(HOOK_TIMEOUT_SECONDS * 1000),
        commandPaths: groupCommands,
        newFile: {},
        notes: (doc) =>
          offNote(
            obj(doc.hooksConfig)?.enabled !== false,
            "hooksConfig.enabled is false: Gemini CLI runs no hook, cctop's included",
          ),
      }),
    ]);
  },
  qwen: (env) => {
    const dir = qwenDir(env);
    return ok('qwen', dir, [
      jsonPart({
        agent: 'qwen',
        target: { path: join(dir, 'settings.json'), syntax: 'jsonc', label: 'Qwen Code settings' },
        events: agentHooks('qwen').events,
        element: group(HOOK_TIMEOUT_SECONDS),
        commandPaths: groupCommands,
        newFile: {},
        notes: (doc) =>
          offNote(
            doc.disableAllHooks !== true,
            "disableAllHooks is on: Qwen Code runs no hook, cctop's included",
          ),
      }),
    ]);
  },
  cursor: (env) => {
    const dir = cursorRoots(env)[0]!.path;
    return ok('cursor', dir, [
      jsonPart({
        agent: 'cursor',
        target: { path: join(dir, 'hooks.json'), syntax: 'json', label: 'Cursor hooks' },
        events: agentHooks('cursor').events,
        element: (command) => ({ command }),
        commandPaths: (el) => (typeof obj(el)?.command === 'string' ? [['command']] : []),
        newFile: { version: 1 },
        notes: () => [],
      }),
    ]);
  },
  opencode: (env) => {
    const path = opencodePluginPath(env);
    const events = agentHooks('opencode').events;
    return ok('opencode', opencodeConfigDir(env), [
      {
        install: (program) => installOpencodePlugin(path, program, events),
        remove: () => removeOpencodePlugin(path, events),
        status: (program) => opencodePluginStatus(path, program, events),
      },
    ]);
  },
};

/** What Codex needs of the user before it runs the hooks in its hooks file. */
const CODEX_TRUST =
  'Codex runs these hooks only once you trust them: start codex and choose to trust them when it says "Hooks need review" (or review them with /hooks)';

function ok(agent: HookAgent, dir: string, parts: HookPart[]): Setup {
  return { kind: 'ok', setup: { agent, name: AGENT_NAMES[agent], home: dir, parts } };
}

/** `PreToolUse` → `pre_tool_use`: how Codex names an event in its hook keys. */
const snake = (event: string): string =>
  event.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? '' : '_') + c.toLowerCase());

/**
 * The hooks-file status with a note on trust: Codex runs a hook of the user's files only once they
 * trusted it, and records that as `hooks.state."<file>:<event>:<group>:<handler>".trusted_hash` in
 * config.toml. A recorded hash is taken as trusted (whether it still matches is Codex's to say).
 */
function withCodexTrust(
  s: PartStatus,
  config: string,
  hooksFile: string,
  program: readonly string[],
): PartStatus {
  if (s.current.length + s.stale.length === 0) return s;
  let state: JsonObject | null = null;
  let lists: JsonObject | null = null;
  try {
    const text = readSettingsRaw(config).text;
    const doc = text === null ? {} : (parse(text) as JsonObject);
    state = obj(obj(doc.hooks)?.state);
    lists = obj(readSettings(hooksFile, 'json').value.hooks);
  } catch {
    return s;
  }
  const untrusted = [...s.current, ...s.stale].filter((event) => {
    const list = arr(lists?.[event]) ?? [];
    const at = list.findIndex((el) =>
      (arr(obj(el)?.hooks) ?? []).some((h) => {
        const cmd = obj(h)?.command;
        return typeof cmd === 'string' && readHookCommand(cmd, program)?.agent === 'codex';
      }),
    );
    const entry = obj(state?.[`${hooksFile}:${snake(event)}:${at}:0`]);
    return at === -1 || typeof entry?.trusted_hash !== 'string';
  });
  if (untrusted.length === 0) return s;
  return {
    ...s,
    notes: [
      ...s.notes,
      `${untrusted.length} of them not trusted yet: Codex runs them once you trust them (start codex, or use /hooks)`,
    ],
  };
}
