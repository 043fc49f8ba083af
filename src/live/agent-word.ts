/**
 * Whether the agents may have anything to say about their sessions' states on this machine: a hook
 * journal in the runtime directory, or a record in Claude Code's registry of running sessions. A
 * one-shot command asks this first and loads what reads them (`agent-state.ts`, the agents' tables)
 * only when there is something to read; on a machine without hooks, `cctop --json` pays two stats.
 *
 * Not here: reading either (`hooks/journal.ts`, `providers/claude/registry.ts`).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { claudeRoots } from '../providers/claude/place.js';
import type { Env } from '../providers/types.js';
import { JOURNAL_FILE, runtimeDirPath } from '../runtime/dir.js';

/** Where the agents would say something: the hook journal, and Claude Code's registries of running sessions. */
export function agentWordPlaces(env: Env): { journal: string; registries: string[] } {
  return {
    journal: join(runtimeDirPath(env), JOURNAL_FILE),
    registries: claudeRoots(env).map(({ path }) => join(path, 'sessions')),
  };
}

export function agentsMaySpeak(env: Env): boolean {
  const { journal, registries } = agentWordPlaces(env);
  try {
    if (statSync(journal).size > 0) return true;
  } catch {
    // No journal: no hook has run since the runtime directory was made.
  }
  for (const dir of registries) {
    try {
      if (readdirSync(dir).some((n) => n.endsWith('.json'))) return true;
    } catch {
      // No registry folder there.
    }
  }
  return false;
}
