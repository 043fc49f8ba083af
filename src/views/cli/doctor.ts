/**
 * `cctop doctor`: where cctop looked, what it found there, and everything it could not read, so a
 * missing session or a `─` has an explanation.
 */
import { existsSync } from 'node:fs';
import { checkCatalogue } from '../../index/catalogue.js';
import type { Snapshot } from '../../index/snapshot.js';
import type { Problem, ProblemKind } from '../../model/problems.js';
import { home } from '../../providers/fsutil.js';
import { PROVIDER_LIST } from '../../providers/index.js';
import type { Env } from '../../providers/types.js';
import { paint } from './color.js';
import { tildify } from './format.js';
import type { Io } from './main.js';
import { version } from './version.js';

const KIND_TITLE: Record<ProblemKind, string> = {
  unreadable: 'Could not read',
  vanished: 'Disappeared while reading',
  'bad-lines': 'Lines that are not JSON',
  'oversized-lines': 'Lines over the line bound (skipped)',
  'partial-line': 'Unfinished last lines',
  'inconsistent-usage': 'Token counts that do not add up',
  'unpriced-model': 'Models without a price (shown as no price, never $0)',
  cache: 'Index',
};

export function doctor(io: Io, s: Snapshot, env: Env): number {
  const p = paint(io.isTty, io.env);
  const h = home(env);
  io.out(p.bold(`cctop ${version()}`) + p.dim(` on node ${process.version}, ${process.platform}`));
  io.out('');
  io.out(p.bold('Where cctop looked'));
  for (const provider of PROVIDER_LIST) {
    const roots = s.discovery.roots.filter((r) => r.provider === provider.id);
    if (roots.length === 0) continue;
    const sessions = s.document.sessions.filter((x) => x.provider === provider.id).length;
    io.out(`  ${provider.label}: ${sessions} session${sessions === 1 ? '' : 's'}`);
    for (const r of roots) {
      const held = s.document.sessions.filter(
        (x) => x.provider === provider.id && x.file.startsWith(`${r.path}/`),
      ).length;
      const state = existsSync(r.path)
        ? `${r.files} file${r.files === 1 ? '' : 's'}, ${held} session${held === 1 ? '' : 's'}`
        : p.dim('not present');
      io.out(`    ${tildify(r.path, h)} ${p.dim(`(${r.origin})`)}  ${state}`);
    }
  }
  io.out('');
  const c = s.catalogue;
  io.out(
    `${p.bold('Prices')}  ${c.source === 'updated' ? `updated catalogue from ${c.fetchedAt} (${c.path})` : 'bundled @pydantic/genai-prices catalogue (run `cctop pricing update` for newer prices)'}`,
  );
  const broken = checkCatalogue(c);
  if (broken) io.out(`  ${p.amber('a broken saved catalogue is ignored:')} ${broken}`);

  const problems = s.document.problems;
  const byKind = new Map<ProblemKind, Problem[]>();
  for (const x of problems) byKind.set(x.kind, [...(byKind.get(x.kind) ?? []), x]);
  io.out('');
  if (problems.length === 0) {
    io.out(p.green('No problems: every file read cleanly and every model has a price.'));
  } else {
    io.out(p.bold('Problems'));
    for (const [kind, list] of byKind) {
      io.out(`  ${p.amber(KIND_TITLE[kind])} (${list.length})`);
      for (const x of list.slice(0, 20)) io.out(`    ${tildify(x.path, h)}: ${x.detail}`);
      if (list.length > 20) io.out(p.dim(`    … and ${list.length - 20} more`));
    }
    if (s.problemsDropped > 0) io.out(p.dim(`  … and ${s.problemsDropped} more problems not listed`));
  }
  return problems.some((x) => x.kind === 'unreadable') ? 1 : 0;
}
