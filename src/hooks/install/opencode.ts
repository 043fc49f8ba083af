/**
 * OpenCode has no hook settings: it loads every `.js` in `plugin/` or `plugins/` of its config
 * directory (1.18.33 globs `{plugin,plugins}/*.{ts,js}`). cctop installs a plugin of its own,
 * `~/.config/opencode/plugins/cctop.js`, a file it owns whole: install writes it, remove deletes it,
 * and only when it is cctop's (its first line says so), never a file of the user's by that name.
 *
 * The plugin runs `cctop hook opencode <event>` for the events `providers/opencode/hooks.ts` names,
 * with a small JSON payload on stdin (`session_id`, `cwd`, `tool_name`, `notification_type`). It
 * never throws and OpenCode never waits on it: runs go into a queue of the plugin's own, one after
 * another (so cctop hears the events in order; runs started together finish in any order, as the
 * lab showed), bounded in length and in how long each is waited for, and any error (cctop missing,
 * a pipe closed early) is swallowed, so OpenCode carries on whatever happens to cctop.
 *
 * Not here: what the events mean (`providers/opencode/hooks.ts`).
 */
import { mkdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeAtomically } from '../../install/atomic.js';
import { InstallError, MAX_SETTINGS_BYTES } from '../../install/settings-file.js';
import { home } from '../../providers/fsutil.js';
import type { Env } from '../../providers/types.js';
import { HOOK_WORD, missingPrograms } from './command.js';
import type { PartDone, PartStatus } from './types.js';

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
 * The most runs of cctop the plugin keeps waiting when cctop is slow. OpenCode sends a few events a
 * second at most (statuses are sent only when they change); 64 is a minute of a stuck cctop, after
 * which events are dropped rather than kept.
 */
const MAX_WAITING = 64;

/**
 * How long the plugin waits for one run before starting the next: `cctop hook` ends itself within a
 * quarter of a second (`hooks/run.ts`); two seconds allows a loaded machine's slow start.
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

// Runs go one after another, so that cctop hears the events in the order OpenCode sent them (runs
// started at once finish in any order). At most MAX_WAITING wait: a stuck cctop costs events, never
// memory; and none is waited for past RUN_DEADLINE_MS.
const MAX_WAITING = ${MAX_WAITING};
const RUN_DEADLINE_MS = ${RUN_DEADLINE_MS};
let waiting = 0;
let queue = Promise.resolve();

// Start \`cctop ${HOOK_WORD} opencode <event>\` with the payload on stdin. Never awaited by a hook,
// never thrown from.
function send(event, payload) {
  if (waiting >= MAX_WAITING) return;
  waiting++;
  queue = queue.then(
    () =>
      new Promise((done) => {
        let over = false;
        const finish = () => {
          if (over) return;
          over = true;
          clearTimeout(timer);
          waiting--;
          done();
        };
        const timer = setTimeout(finish, RUN_DEADLINE_MS);
        try {
          const child = spawn(CCTOP[0], [...CCTOP.slice(1), '${HOOK_WORD}', 'opencode', event], {
            stdio: ['pipe', 'ignore', 'ignore'],
          });
          child.on('error', finish);
          child.on('exit', finish);
          child.stdin.on('error', () => {});
          child.stdin.end(JSON.stringify(payload));
          child.unref();
        } catch {
          finish();
        }
      }),
  );
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
  try {
    const st = statSync(path);
    if (!st.isFile() || st.size > MAX_SETTINGS_BYTES)
      throw new InstallError(`${path} is not a plugin file cctop can read; nothing was changed`);
    return readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof InstallError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new InstallError(
      `${path} could not be read (${(err as NodeJS.ErrnoException).code}); nothing was changed`,
    );
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

const done = (path: string): PartDone => ({
  file: path,
  label: LABEL,
  added: [],
  repointed: [],
  removed: [],
  wrote: false,
  backup: null,
  notes: [],
});

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
  unlinkSync(path);
  out.removed.push(...events);
  return { ...out, wrote: true };
}

export function opencodePluginStatus(
  path: string,
  program: readonly string[],
  events: readonly string[],
): PartStatus {
  const status: PartStatus = {
    file: path,
    label: LABEL,
    exists: false,
    current: [],
    stale: [],
    missing: [],
    extra: [],
    gone: [],
    notes: [],
    error: null,
  };
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
