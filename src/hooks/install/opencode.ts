/**
 * OpenCode has no hook settings: it loads every `.js` in `plugin/` or `plugins/` of its config
 * directory (1.18.33 globs `{plugin,plugins}/*.{ts,js}`). cctop installs a plugin of its own,
 * `~/.config/opencode/plugins/cctop.js`, a file it owns whole: install writes it, remove deletes it,
 * and only when it is cctop's (its first line says so), never a file of the user's by that name.
 *
 * The plugin runs `cctop hook opencode <event>` for the events `providers/opencode/hooks.ts` names,
 * with a small JSON payload on stdin (`session_id`, `cwd`, `tool_name`, `notification_type`, and
 * `event_at_ms`, when OpenCode sent it). It never throws and OpenCode never waits on it: each run
 * starts at once in a process group of its own, so the last events of an `opencode run` are not lost
 * when OpenCode exits; runs started together finish in any order (the lab showed it), so each
 * carries its time and cctop orders the events by it (`hooks/reduce.ts`). Runs at once are bounded,
 * and any error (cctop missing, a pipe closed early) is swallowed, so OpenCode carries on whatever
 * happens to cctop.
 *
 * Not here: what the events mean (`providers/opencode/hooks.ts`).
 */
import { mkdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeAtomically } from '../../install/atomic.js';
import { assertMayChange } from '../../install/permission.js';
import { InstallError, MAX_SETTINGS_BYTES } from '../../install/settings-file.js';
import { home } from '../../providers/fsutil.js';
import type { Env } from '../../providers/types.js';
import { readRegularText } from '../../regular-file.js';
import { HOOK_WORD, missingPrograms } from './command.js';
import { emptyDone, emptyStatus, type PartDone, type PartStatus } from './types.js';

/** The first line of cctop's plugin: how cctop knows the file is its own. */
export const PLUGIN_MARK =
  "// cctop's OpenCode plugin: written by `cctop hooks install`, deleted by `cctop hooks remove`.";

const LABEL = 'OpenCode plugin';

/** OpenCode's global config directory: `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`. */
export function opencodeConfigDir(env: Env): string {
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg && xdg.length > 0 ? xdg : join(home(env), '.config'), 'opencode');
}

export const opencodePluginPath = (env: Env): string => join(opencodeConfigDir(env), 'plugins', 'cctop.js');

/**
 * The most runs of cctop the plugin has going at once. OpenCode sends a few events a second at most
 * (statuses are sent only when they change) and each run ends within a quarter of a second; past 64,
 * cctop is stuck and events are dropped rather than processes piled up.
 */
const MAX_RUNNING = 64;

/**
 * How long a run counts against `MAX_RUNNING` at most: `cctop hook` ends itself within a quarter of a
 * second (`hooks/run.ts`); two seconds allows a loaded machine's slow start.
 */
const RUN_DEADLINE_MS = 2000;

/** The plugin's text, running `program` (the words that run cctop) for `events`. */
export function pluginText(program: readonly string[], events: readonly string[]): string {
  const bus = events.filter((e) => !e.startsWith('tool.'));
  return `${PLUGIN_MARK}
// It tells cctop what each session is doing; edits here are lost at the next install.
import { spawn } from 'node:child_process';

const CCTOP = ${JSON.stringify(program)};
const EVENTS = new Set(${JSON.stringify(bus)});

// Each run starts at once, in a process group of its own (so it finishes even when OpenCode exits
// right after its last event), and carries the time OpenCode sent the event: runs started together
// finish in any order, and cctop orders them by that time. At most MAX_RUNNING run at once: a stuck
// cctop costs events, never processes; and none is waited for past RUN_DEADLINE_MS.
const MAX_RUNNING = ${MAX_RUNNING};
const RUN_DEADLINE_MS = ${RUN_DEADLINE_MS};
let running = 0;
let lastAt = 0;

// Start \`cctop ${HOOK_WORD} opencode <event>\` with the payload on stdin. Never awaited by a hook,
// never thrown from.
function send(event, payload) {
  if (running >= MAX_RUNNING) return;
  // Strictly increasing, so two events of one millisecond keep their order.
  lastAt = Math.max(Date.now(), lastAt + 1);
  running++;
  let over = false;
  const finish = () => {
    if (over) return;
    over = true;
    clearTimeout(timer);
    running--;
  };
  const timer = setTimeout(finish, RUN_DEADLINE_MS);
  timer.unref?.();
  try {
    const child = spawn(CCTOP[0], [...CCTOP.slice(1), '${HOOK_WORD}', 'opencode', event], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    });
    child.on('error', finish);
    child.on('exit', finish);
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify({ ...payload, event_at_ms: lastAt }));
    child.unref();
  } catch {
    finish();
  }
}

// The last status sent per session: OpenCode repeats \`busy\` at every step, cctop needs it once.
const STATUS_KEPT = 256;
const lastStatus = new Map();
function changed(session, status) {
  if (lastStatus.get(session) === status) return false;
  if (lastStatus.size >= STATUS_KEPT) lastStatus.clear();
  lastStatus.set(session, status);
  return true;
}

const text = (v) => (typeof v === 'string' && v.length > 0 ? v : undefined);

export const CctopHooks = async ({ directory } = {}) => {
  const cwd = text(directory);
  const tool = (name) => async (input) => {
    try {
      send(name, { session_id: text(input?.sessionID), cwd, tool_name: text(input?.tool) });
    } catch {}
  };
  return {
    event: async ({ event } = {}) => {
      try {
        if (!event || !EVENTS.has(event.type)) return;
        const p = event.properties ?? {};
        const session = text(p.sessionID) ?? text(p.info?.id);
        const status = text(p.status?.type);
        if (event.type === 'session.status' && !changed(session, status)) return;
        send(event.type, {
          session_id: session,
          cwd: text(p.info?.directory) ?? cwd,
          tool_name: text(p.permission),
          notification_type: status ?? text(p.error?.name),
        });
      } catch {}
    },
    'tool.execute.before': tool('tool.execute.before'),
    'tool.execute.after': tool('tool.execute.after'),
  };
};
`;
}

/** The file's text, null when there is none; refused when it cannot be read or is not a file. */
function readPlugin(path: string): string | null {
  // Without waiting, and only a regular file: a named pipe at the path would hold the installer.
  const r = readRegularText(path, MAX_SETTINGS_BYTES);
  switch (r.kind) {
    case 'missing':
      return null;
    case 'read':
      return r.text;
    case 'not-file':
    case 'too-large':
      throw new InstallError(`${path} is not a plugin file cctop can read; nothing was changed`);
    case 'failed':
      throw new InstallError(`${path} could not be read (${r.code ?? r.reason}); nothing was changed`);
  }
}

const isOurs = (text: string): boolean => text.startsWith(PLUGIN_MARK);

/** The program a plugin of cctop's runs (its `CCTOP` line), for telling where it points. */
function programIn(text: string): string[] {
  const m = /^const CCTOP = (\[.*\]);$/m.exec(text);
  try {
    const v: unknown = m ? JSON.parse(m[1]!) : [];
    return Array.isArray(v) ? v.filter((w): w is string => typeof w === 'string') : [];
  } catch {
    return [];
  }
}

const done = (path: string): PartDone => emptyDone(path, LABEL);

/** Write cctop's plugin (again, when it runs another cctop); refuses a file of the user's by its name. */
export function installOpencodePlugin(
  path: string,
  program: readonly string[],
  events: readonly string[],
): PartDone {
  const out = done(path);
  const now = readPlugin(path);
  const want = pluginText(program, events);
  if (now === want) return out;
  if (now !== null && !isOurs(now))
    throw new InstallError(
      `${path} is not cctop's plugin (it was not written by cctop); nothing was changed`,
    );
  assertMayChange(path, path);
  mkdirSync(dirname(path), { recursive: true });
  writeAtomically(path, want, null);
  if (now === null) out.added.push(...events);
  else out.repointed.push(...events);
  return { ...out, wrote: true };
}

/** Delete cctop's plugin; a file of the user's by that name is left alone. */
export function removeOpencodePlugin(path: string, events: readonly string[]): PartDone {
  const out = done(path);
  const now = readPlugin(path);
  if (now === null) return out;
  if (!isOurs(now)) {
    out.notes.push('the file there is not cctop’s; left as it is');
    return out;
  }
  assertMayChange(path, path);
  unlinkSync(path);
  out.removed.push(...events);
  return { ...out, wrote: true };
}

export function opencodePluginStatus(
  path: string,
  program: readonly string[],
  events: readonly string[],
): PartStatus {
  const status = emptyStatus(path, LABEL, []);
  let now: string | null;
  try {
    now = readPlugin(path);
  } catch (err) {
    if (!(err instanceof InstallError)) throw err;
    return { ...status, exists: true, missing: [...events], error: err.message };
  }
  status.exists = now !== null;
  if (now === null) return { ...status, missing: [...events] };
  if (!isOurs(now))
    return { ...status, missing: [...events], notes: ['a file that is not cctop’s has its name'] };
  if (now === pluginText(program, events)) return { ...status, current: [...events] };
  return { ...status, stale: [...events], gone: missingPrograms(programIn(now)) };
}
