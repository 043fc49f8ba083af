/**
 * Finding an agent's executable the way the agent's own shell would: a path is taken as given, a
 * bare name is looked up on the PATH the agent will get (not ours, which the environment policy may
 * have trimmed).
 *
 * It only answers where the file is. Whether the agent is logged in, or the version it is, stays
 * unknown until it runs: asking would mean starting it.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { spec } from './agents/index.js';
import type { Env } from './env.js';
import type { NamedAgent } from './events.js';

/** The extensions Windows tries when PATHEXT is unset, as its own shell does. */
const DEFAULT_PATHEXT = '.EXE;.CMD;.BAT';

function executable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The agent's executable: `bin` as a path, or its name looked up on the PATH the agent will get. */
export function locate(bin: string, env: Readonly<Record<string, string | undefined>>): string | null {
  if (bin.includes('/') || (process.platform === 'win32' && bin.includes('\\'))) {
    const p = isAbsolute(bin) ? bin : resolve(bin);
    return executable(p) ? p : null;
  }
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? DEFAULT_PATHEXT).split(';') : [''];
  for (const dir of (env.PATH ?? env.Path ?? '').split(delimiter)) {
    if (dir === '') continue;
    for (const ext of exts) {
      const p = join(dir, bin + ext);
      if (executable(p)) return p;
    }
  }
  return null;
}

/** Whether an agent is installed where `env`'s PATH would find it. */
export const installed = (agent: NamedAgent, env: Env = process.env): boolean =>
  locate(spec(agent).bin, env) !== null;
