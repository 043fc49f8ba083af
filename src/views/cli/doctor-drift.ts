/**
 * `cctop doctor`'s drift section: per harness and per CLI version seen in the files, the record types
 * and fields its reader does not know (counted as files were read, `providers/drift.ts`, and kept in
 * the index with the rest of a file's facts: doctor builds from every file, read now or kept), so a
 * release that adds records is seen the day it is installed. Names come from the
 * files: each is made safe to print by the caller's `printable`, and cut here to one short line.
 * Not here: counting (the readers do), or judging whether a new name matters (a person does).
 */
import type { ParsedFile } from '../../index/sessions.js';
import type { ProviderId } from '../../model/facts.js';
import { driftOf, MORE, NO_VERSION } from '../../providers/drift.js';
import { placeById } from '../../providers/places.js';
import { safeLine } from '../terminal-text.js';
import type { Paint } from './color.js';
import { counted, tildify } from './format.js';

/** Names listed per version and kind: the count says how many more there are. */
export const MAX_NAMES_SHOWN = 8;

interface Named {
  count: number;
  /** The first file and line it was seen at. */
  where: string;
}

interface Group {
  provider: ProviderId;
  version: string;
  types: Map<string, Named>;
  fields: Map<string, Named>;
}

/** The unknowns of every file, summed per harness and version. */
export function driftGroups(files: readonly ParsedFile[] | null, h: string): Group[] {
  const groups = new Map<string, Group>();
  for (const { file: src, result } of files ?? []) {
    for (const [version, d] of Object.entries(driftOf(result.facts.drift) ?? {})) {
      const key = `${src.provider}\u0000${version}`;
      let g = groups.get(key);
      if (g === undefined) {
        g = { provider: src.provider, version, types: new Map(), fields: new Map() };
        groups.set(key, g);
      }
      for (const [table, into] of [
        [d.types, g.types],
        [d.fields, g.fields],
      ] as const) {
        for (const [name, seen] of Object.entries(table)) {
          const was = into.get(name);
          if (was) was.count += seen.count;
          else into.set(name, { count: seen.count, where: `${tildify(src.path, h)}:${seen.line}` });
        }
      }
    }
  }
  return [...groups.values()].filter((g) => g.types.size + g.fields.size > 0);
}

function listed(names: Map<string, Named>, what: string, p: Paint): string[] {
  const sorted = [...names].sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]));
  const lines = sorted
    .slice(0, MAX_NAMES_SHOWN)
    .map(
      ([name, n]) =>
        `    ${what} ${name === MORE ? p.dim('(others past the bound)') : safeLine(name)} ${p.dim(`×${n.count}, first at ${safeLine(n.where)}`)}`,
    );
  if (sorted.length > MAX_NAMES_SHOWN) lines.push(p.dim(`    … and ${sorted.length - MAX_NAMES_SHOWN} more`));
  return lines;
}

/** The section's lines; empty when every reader knew everything it read. */
export function driftLines(groups: readonly Group[], p: Paint): string[] {
  if (groups.length === 0) return [];
  const lines = [p.bold('Records cctop does not read (a newer CLI wrote them)')];
  const order = [...groups].sort(
    (a, b) =>
      a.provider.localeCompare(b.provider) || a.version.localeCompare(b.version, 'en', { numeric: true }),
  );
  for (const g of order) {
    const label = placeById(g.provider).label;
    const version = g.version === NO_VERSION ? 'version not named' : safeLine(g.version);
    const parts: string[] = [];
    if (g.types.size > 0) parts.push(`${counted(g.types.size, 'record type')} cctop does not read`);
    if (g.fields.size > 0) parts.push(`${counted(g.fields.size, 'field')} it does not know`);
    lines.push(`  ${p.amber(`${label} ${version}`)}: ${parts.join(', ')}`);
    lines.push(...listed(g.types, 'type', p), ...listed(g.fields, 'field', p));
  }
  return lines;
}
