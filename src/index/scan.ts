/**
 * The scan without an index: find every transcript of the chosen providers and read each one whole.
 * The persistent index builds on this (same discovery, same parsers) and falls back to it.
 *
 * Discovery takes the providers' places (`../providers/places.ts`), not the providers: a run that
 * answers from the index finds and stats files but reads none, and so should not load the parsers.
 * Only `parseAll` needs them, and its caller passes them in.
 */
import type { ProviderId } from '../model/facts.js';
import type { ProblemLog } from '../model/problems.js';
import { discoverSources, readSource } from '../providers/fence.js';
import { PLACE_LIST } from '../providers/places.js';
import type { Env, Provider, ProviderPlace, SourceFile } from '../providers/types.js';
import type { ParsedFile } from './sessions.js';

export interface RootReport {
  provider: ProviderId;
  path: string;
  origin: string;
  files: number;
}

export interface Discovery {
  roots: RootReport[];
  files: SourceFile[];
}

export function chosenProviders(only: readonly ProviderId[] | null): ProviderPlace[] {
  return PLACE_LIST.filter((p) => only === null || only.includes(p.id));
}

export function discoverAll(env: Env, providers: readonly ProviderPlace[], problems: ProblemLog): Discovery {
  const roots: RootReport[] = [];
  const files: SourceFile[] = [];
  for (const p of providers) {
    // A harness whose discovery throws loses its own files, and says so; the others are found.
    const { roots: rs, files: found } = discoverSources(p, env, problems);
    const counts = new Map<string, number>();
    for (const f of found) counts.set(f.root, (counts.get(f.root) ?? 0) + 1);
    for (const r of rs) {
      roots.push({
        provider: p.id,
        path: r.path,
        origin: r.origin,
        files: counts.get(r.path) ?? 0,
      });
    }
    files.push(...found);
  }
  return { roots, files };
}

/** Parse every file whole, on this thread. A file that fails to read is a problem, not an exception. */
export function parseAll(
  files: readonly SourceFile[],
  providers: readonly Provider[],
  problems: ProblemLog,
): ParsedFile[] {
  const byId = new Map(providers.map((p) => [p.id, p]));
  const out: ParsedFile[] = [];
  for (const file of files) {
    const provider = byId.get(file.provider);
    if (!provider) continue;
    const read = readSource(provider, file, null);
    if (read.kind === 'answered') out.push({ file, result: read.value });
    else problems.add(read.problem);
  }
  return out;
}
