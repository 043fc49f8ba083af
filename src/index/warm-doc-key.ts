/**
 * The warm document's key (`warm-doc.ts` writes it, `../warm-answer.ts` checks it): everything the
 * answer depends on besides the transcripts, recorded when the document is written. The environment
 * variables read while the scope is worked out again (through a proxy that notes each one read), the
 * settings and price files, the config file's bytes when it names nothing these answers read, the
 * hook journal as it was and when its word lapses, the code, the zone and the day, the agents whose
 * processes could run a session, and what `--list` reads besides.
 *
 * Not here: the document's bytes (`warm-doc.ts`), or the layout the key is part of (`warm-doc-layout.ts`).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { configPath } from '../config/path.js';
import { readJournal } from '../hooks/journal.js';
import { installedPackage } from '../installed-package.js';
import { agentWordPlaces } from '../live/agent-word.js';
import { START_SLACK_MS } from '../live/processes.js';
import type { ProviderId } from '../model/facts.js';
import { WORKING_TTL_MS } from '../model/state.js';
import { zoneKey } from '../model/zone.js';
import { cacheDir } from '../paths.js';
import { claudeConfigFile } from '../providers/claude/quota.js';
import type { Env } from '../providers/types.js';
import { readRegular } from '../regular-file.js';
import { runtimeDirPath } from '../runtime/dir.js';
import { PTY_RUNS_FILE } from '../runtime/pty-wire.js';
import { RUNS_FOLDER } from '../runtime/run-files.js';
import { NOTE_FILE } from '../statusline/quota-note.js';
import { cataloguePath } from './catalogue.js';
import { rootPaths, scopeOf } from './scope.js';
import { buildVersion } from './version.js';
import type { DocAnswer } from './warm-doc.js';
import type { DocKey } from './warm-doc-layout.js';

/**
 * The config file's reader, loaded only for a user who has a config file: the TOML parser and what
 * checks a file reach far (`config/load.ts`), and the full route has loaded them already for such a
 * user (its hosts are read before the index refreshes).
 */
let configReader: Pick<typeof import('../config/config.js'), 'parseConfig' | 'MAX_CONFIG_BYTES'> | null =
  null;

/** Whether the config reader must be loaded before a document can be keyed for `env`: a config file is there. */
export const needsConfigReader = (env: Env): boolean =>
  configReader === null && statSync(configPath(env), { throwIfNoEntry: false }) !== undefined;

/** Load the config reader (the TOML parser and the checks). */
export async function loadConfigReader(): Promise<void> {
  configReader ??= await import('../config/config.js');
}

/**
 * What the answer depends on besides the transcripts, or null when the reader could not serve it
 * (another machine may be named: `CCTOP_HOSTS`, a config file naming hosts) or the scope does not
 * come out the same.
 */
export function keyOf(a: DocAnswer): DocKey | null {
  const read = new Set<string>();
  let all = false;
  const env: Env = new Proxy(a.env, {
    get(t, k) {
      if (typeof k === 'string') read.add(k);
      return Reflect.get(t, k);
    },
    has(t, k) {
      if (typeof k === 'string') read.add(k);
      return Reflect.has(t, k);
    },
    ownKeys(t) {
      // Something walked the whole environment: all of it is then part of the key.
      all = true;
      return Reflect.ownKeys(t);
    },
  });
  const roots = rootPaths(env, a.places);
  const scope = scopeOf({ ...a.options, env }, a.places, roots, a.catalogue, a.time, a.nowMs);
  if (scope !== a.scope) return null;
  if (env.CCTOP_HOSTS !== undefined) return null;
  const config = configPath(env);
  const configKey = configKeyOf(config, env);
  if (configKey === undefined) return null;
  const { journal, registries } = agentWordPlaces(env);
  // Its identity first, then what it says: an event appended between the two moves the identity.
  const journalSeen = statSync(journal, { throwIfNoEntry: false });
  const journalQuietAt = (journalSeen?.size ?? 0) > 0 ? quietAfter(readJournal(env)) : null;
  cacheDir(env);
  const statted = [...roots.map((r) => join(r, 'settings.json')), cataloguePath(env), bundledCatalogue()];
  const quotaFiles = [claudeConfigFile(env), join(cacheDir(env), NOTE_FILE)];
  const runtime = runtimeDirPath(env);
  const names = all ? Object.keys(a.env) : [...read];
  names.sort();
  const day = a.time.dayNumber(a.nowMs);
  // The newest last activity of each harness's sessions that a process could be matched to.
  const newest = new Map<ProviderId, number>();
  for (const h of a.held) {
    if (h.deleted) continue;
    const ms = h.lastActiveAt === null ? 0 : Date.parse(h.lastActiveAt);
    if (Number.isFinite(ms)) newest.set(h.provider, Math.max(newest.get(h.provider) ?? ms, ms));
  }
  const agents: DocKey['agents'] = [];
  for (const p of a.places) {
    if (p.processes === undefined) continue;
    const last = newest.get(p.id);
    agents.push([[...p.processes.words], last === undefined ? null : last + START_SLACK_MS]);
  }
  let problemsUntil: number | null = null;
  for (const k of a.problems)
    if (k.after !== null && k.after >= a.nowMs) problemsUntil = Math.min(problemsUntil ?? k.after, k.after);
  const stat = (p: string): [string, number | null, number | null] => {
    const st = statSync(p, { throwIfNoEntry: false });
    return [p, st?.size ?? null, st?.mtimeMs ?? null];
  };
  return {
    env: names.map((n) => [n, a.env[n] ?? null]),
    stats: statted.map(stat),
    config: configKey,
    absent: configKey === null ? [config] : [],
    journal: [journal, journalSeen?.size ?? null, journalSeen?.mtimeMs ?? null, journalSeen?.ino ?? null],
    journalQuietAt,
    registries,
    build: buildVersion(),
    zoneKey: zoneKey(),
    zone: a.time.timeZone,
    day: [a.time.dayStartMs(day), a.time.dayStartMs(day + 1)],
    agents,
    problemsUntil,
    list: { quota: quotaFiles.map(stat), runs: [join(runtime, RUNS_FOLDER), join(runtime, PTY_RUNS_FILE)] },
  };
}

/**
 * The config file's part of the key: null when there is none, its length and CRC-32 when what it
 * says changes nothing a bare `--json`, `--list` or `daily --json` prints (no other machine to read,
 * no budget under the list, no zone for the reports, and nothing to warn of on stderr), else
 * undefined: then no document is kept, and those answers are the full route's. Its bytes are read
 * once, and both judged and keyed from them.
 */
function configKeyOf(path: string, env: Env): DocKey['config'] | undefined {
  if (configReader === null)
    return statSync(path, { throwIfNoEntry: false }) === undefined ? null : undefined;
  const r = readRegular(path, configReader.MAX_CONFIG_BYTES);
  if (r.kind === 'missing') return null;
  if (r.kind !== 'read') return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(r.bytes);
  } catch {
    // Not UTF-8: the full route says so on stderr.
    return undefined;
  }
  const { config, warnings, error } = configReader.parseConfig(text, path, env);
  if (error !== null || warnings.length > 0) return undefined;
  if (config.hosts.length > 0 || config.budgets.length > 0 || config.reports.timeZone !== null)
    return undefined;
  return [path, r.bytes.length, crc32(r.bytes) >>> 0];
}

/**
 * The instant after which none of `events` has a say in a session's state, or null when there is
 * none: a hook's claim on a session no process runs lapses `WORKING_TTL_MS` after its newest event
 * (`live/hook-state.ts` `claim`), and the warm answer serves only sessions no process runs. Every
 * event counts, whatever it means and whichever session it names: the newest of all is the bound.
 */
function quietAfter(events: readonly { at: number }[]): number | null {
  let newest: number | null = null;
  for (const e of events) newest = Math.max(newest ?? e.at, e.at);
  return newest === null ? null : newest + WORKING_TTL_MS;
}

/** The bundled price catalogue's package file: a reinstall that changes it changes the prices. */
function bundledCatalogue(): string {
  // Not installed where this module looks: the catalogue digest says `unknown`, and the key stats nothing.
  return installedPackage(import.meta.url, '@pydantic/genai-prices')?.file ?? '';
}
