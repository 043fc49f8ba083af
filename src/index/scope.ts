/**
 * The scope of a build: everything a session's record depends on besides the transcripts (the
 * options, the price catalogue, the code that reads and builds, the harnesses' settings, the day).
 * Records are kept per scope; a run in another scope neither uses nor overwrites them.
 *
 * Not here: the clock's hour. Records do not depend on it (spend windows are cut when shown).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Digest } from '../model/digest.js';
import { DOCUMENT_VERSION, type Plan } from '../model/document.js';
import type { ProviderId } from '../model/facts.js';
import type { LocalTime } from '../model/time.js';
import { rootsOf } from '../providers/fence.js';
import type { Env, ProviderPlace } from '../providers/types.js';
import { buildVersion } from './version.js';

export interface ScopeInputs {
  version: number;
  plan: Plan;
  providers: readonly ProviderId[];
  /** Where they were looked for (another HOME, `CLAUDE_CONFIG_DIR`, `--demo`: another history). */
  roots: readonly string[];
  sinceMs: number | null;
  untilMs: number | null;
  timeZone: string;
  catalogue: string;
  /** Digest of the code that reads and builds (parser versions, build version). */
  code: string;
  /**
   * Settings read while building that live outside the transcripts: each provider's compaction rule
   * (an auto-compact override) and the size and time of each root's `settings.json`.
   */
  settings: string;
  /**
   * The local day: a project's own settings (which can pin a session's context window) are not
   * watched; they are read again when its transcript changes and at least once a day.
   */
  day: number;
}

export function scopeKey(s: ScopeInputs): string {
  return new Digest().text(JSON.stringify(s)).hex();
}

export interface ScopeOptions {
  env: Env;
  plan: Plan;
  sinceMs: number | null;
  untilMs: number | null;
}

/** The scope key of a build over `roots` (where the providers looked) now. */
export function scopeOf(
  o: ScopeOptions,
  providers: readonly ProviderPlace[],
  roots: readonly string[],
  catalogue: string,
  time: LocalTime,
  nowMs: number,
): string {
  return scopeKey({
    version: DOCUMENT_VERSION,
    plan: o.plan,
    providers: providers.map((p) => p.id),
    roots,
    sinceMs: o.sinceMs,
    untilMs: o.untilMs,
    timeZone: time.timeZone,
    catalogue,
    code: buildVersion(),
    settings: JSON.stringify([
      providers.map((p) => p.compactRatio(o.env)),
      // A harness-wide settings file can change a window rule (Claude pins a 1M window there).
      roots.map((r) => {
        const st = settingsStat(r);
        return st ? [st.size, st.mtimeMs] : null;
      }),
    ]),
    day: time.dayNumber(nowMs),
  });
}

/** The settings file beside a root, if there is one to stat. */
function settingsStat(root: string): ReturnType<typeof statSync> {
  try {
    return statSync(join(root, 'settings.json'), { throwIfNoEntry: false });
  } catch {
    // A root that is a file (Copilot CLI's export, named by its path) or a folder that cannot be
    // entered has no settings beside it to read: none, as for a root without one.
    return undefined;
  }
}

/**
 * Where the providers look, without looking: the roots discovery would report, in its order. A
 * provider whose roots cannot be worked out has none here (discovery then says why).
 */
export function rootPaths(env: Env, providers: readonly ProviderPlace[]): string[] {
  // A provider whose roots throw has none here: discovery reports it when a refresh runs, and a peek
  // simply finds no kept build for this scope.
  return providers.flatMap((p) => rootsOf(p, env).map((r) => r.path));
}
