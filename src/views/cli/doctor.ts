/**
 * `cctop doctor`: where cctop looked, what it found there, and everything it could not read, so a
 * missing session or a `─` has an explanation. Paths and problem details come from the files it
 * read (a file name can hold an escape sequence): each is made safe to print, and so is every line.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../config/index.js';
import { checkCatalogue } from '../../index/catalogue.js';
import { type RowDamage, recordedRowDamage } from '../../index/row-damage.js';
import type { Snapshot } from '../../index/snapshot.js';
import { INDEX_FILE } from '../../index/store.js';
import { claudeSettings, entryStatus } from '../../install/index.js';
import type { Problem, ProblemKind } from '../../model/problems.js';
import { notificationLines } from '../../notify/doctor.js';
import { cacheDir } from '../../paths.js';
import { privacyOf } from '../../private.js';
import { home } from '../../providers/fsutil.js';
import { PROVIDER_LIST } from '../../providers/index.js';
import type { Env } from '../../providers/types.js';
import { SEARCH_FILE } from '../../search/store.js';
import { ourCommand, statuslineEntry } from '../../statusline/install.js';
import { printable, safeLine } from '../terminal-text.js';
import { type Paint, paint } from './color.js';
import { driftGroups, driftLines } from './doctor-drift.js';
import { counted, tildify } from './format.js';
import { hookDoctorLines } from './hooks.js';
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
  'untimed-requests': 'Requests without a timestamp (in their session, in no day or block)',
  cache: 'Index',
  'session-note': 'Notes on sessions that were read (a lookup beside them failed; the figure fell back)',
};

/** The config file (its budgets, what is wrong in it) and whether cctop is Claude Code's status line. */
function settingsLines(env: Env, h: string, p: Paint): string[] {
  const loaded = loadConfig(env);
  const where = tildify(loaded.path, h);
  const config = !loaded.found
    ? `${p.bold('Config')}  ${where} ${p.dim('(none: no budgets)')}`
    : `${p.bold('Config')}  ${where}, ${counted(loaded.config.budgets.length, 'budget')}`;
  const lines = [config];
  for (const w of [loaded.error ?? [], ...loaded.warnings].flat()) lines.push(`  ${p.amber(safeLine(w))}`);
  let status: string;
  try {
    const st = entryStatus(claudeSettings(env), statuslineEntry(ourCommand()));
    status =
      st.kind === 'absent'
        ? 'not set (cctop statusline install)'
        : st.kind === 'foreign'
          ? 'another program’s (cctop statusline install --replace)'
          : st.current
            ? 'cctop’s'
            : 'cctop’s, pointing at another cctop (cctop statusline install repoints it)';
  } catch (err) {
    status = p.amber(`cannot be read: ${safeLine((err as Error).message)}`);
  }
  lines.push(`${p.bold('Claude Code status line')}  ${status}`);
  return lines;
}

/**
 * Whether cctop's cache (the index and the search index hold every session's words) is private to
 * this user: its directory and its two databases, and any that were found wider and narrowed.
 */
function privacyLines(env: Env, h: string, p: Paint): string[] {
  const dir = cacheDir(env);
  const lines: string[] = [];
  for (const path of [dir, join(dir, INDEX_FILE), join(dir, SEARCH_FILE)]) {
    const seen = privacyOf(path);
    if (seen === null) continue;
    const said = seen.private ? seen.said : p.amber(seen.said);
    lines.push(
      path === dir ? `${p.bold('Cache')}  ${tildify(path, h)} ${said}` : `  ${tildify(path, h)} ${said}`,
    );
  }
  return lines;
}

/**
 * The index's rows that did not decode and what the builds did with them, as the index recorded it
 * (`index/row-damage.ts`): the build that healed them may have been a plain `cctop --json`. An index
 * with no record (none yet, or made before the count) gets no line: nothing was counted to report.
 */
function rowDamageLines(env: Env, p: Paint): string[] {
  const d = recordedRowDamage(join(cacheDir(env), INDEX_FILE));
  return d === null ? [] : [`${p.bold('Index rows')}  ${rowDamageText(d, p)}`];
}

function rowDamageText(d: RowDamage, p: Paint): string {
  const since =
    d.since === 'made'
      ? 'since the index was made'
      : `since ${new Date(d.since).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const found = d.dropped + d.readAgain;
  if (found === 0) return `none found damaged ${since}`;
  const done: string[] = [];
  if (d.dropped > 0)
    done.push(
      `${d.dropped} dropped (${d.dropped === 1 ? 'its transcript was' : 'their transcripts were'} gone)`,
    );
  if (d.readAgain > 0)
    done.push(`${d.readAgain} read again from ${d.readAgain === 1 ? 'its transcript' : 'their transcripts'}`);
  return `${p.amber(`${counted(found, 'row')} found damaged ${since}`)} (a torn write or a bad disk): ${done.join(', ')}`;
}

/**
 * The secrets found so far (as the search index has read the transcripts; nothing more is read
 * here) and whether the rules that find them load at all.
 */
async function secretLines(env: Env, p: Paint): Promise<string[]> {
  const { rulesProblem } = await import('../../secrets/detect.js');
  const problem = rulesProblem();
  if (problem !== null) return [`${p.bold('Secrets')}  ${p.amber(safeLine(problem))}`];
  if (!existsSync(join(cacheDir(env), SEARCH_FILE)))
    return [`${p.bold('Secrets')}  not looked for yet (cctop secrets reads the transcripts and lists them)`];
  const n = (await import('../../secrets/list.js')).countSecrets(env);
  if (n === null)
    return [
      `${p.bold('Secrets')}  ${p.amber('the search index cannot be read (cctop search starts it again)')}`,
    ];
  return [
    n === 0
      ? `${p.bold('Secrets')}  none found in the transcripts read so far`
      : `${p.bold('Secrets')}  ${p.amber(`${counted(n, 'secret')} found in transcripts`)} (cctop secrets lists them; rotate them)`,
  ];
}

export async function doctor(io: Io, s: Snapshot, env: Env): Promise<number> {
  const p = paint(io.isTty, io.env);
  const h = home(env);
  const out = (line: string) => io.out(printable(line, p));
  out(p.bold(`cctop ${version()}`) + p.dim(` on node ${process.version}, ${process.platform}`));
  out('');
  out(p.bold('Where cctop looked'));
  for (const provider of PROVIDER_LIST) {
    const roots = s.discovery.roots.filter((r) => r.provider === provider.id);
    if (roots.length === 0) continue;
    const sessions = s.document.sessions.filter((x) => x.provider === provider.id).length;
    out(`  ${provider.label}: ${counted(sessions, 'session')}`);
    for (const r of roots) {
      const held = s.document.sessions.filter(
        // Under a folder, or a member of a file that is a root itself (Copilot's export by its path).
        (x) =>
          x.provider === provider.id && (x.file.startsWith(`${r.path}/`) || x.file.startsWith(`${r.path}#`)),
      ).length;
      const state = existsSync(r.path)
        ? `${counted(r.files, 'file')}, ${counted(held, 'session')}`
        : p.dim('not present');
      out(`    ${tildify(r.path, h)} ${p.dim(`(${r.origin})`)}  ${state}`);
    }
  }
  out('');
  const c = s.catalogue;
  out(
    `${p.bold('Prices')}  ${c.source === 'updated' ? `updated catalogue from ${safeLine(String(c.fetchedAt))} (${safeLine(String(c.path))})` : 'bundled @pydantic/genai-prices catalogue (run `cctop pricing update` for newer prices)'}`,
  );
  const broken = checkCatalogue(c);
  if (broken) out(`  ${p.amber('a broken saved catalogue is ignored:')} ${safeLine(broken)}`);
  for (const line of settingsLines(env, h, p)) out(line);
  for (const line of privacyLines(env, h, p)) out(line);
  for (const line of rowDamageLines(env, p)) out(line);
  for (const line of await secretLines(env, p)) out(line);
  out('');
  for (const line of notificationLines(env, p)) out(line);
  out('');
  for (const line of hookDoctorLines(env, p)) out(line);
  // The team store, when one is configured (docs/team.md): reachable, schema, last push, queue.
  const store = await (await import('./store.js')).storeDoctorLines(env);
  if (store !== null) {
    out('');
    out(p.bold('Team store'));
    for (const line of store) out(`  ${line}`);
  }

  const drift = driftLines(driftGroups(s.files, h), p);
  if (drift.length > 0) out('');
  for (const line of drift) out(line);

  const problems = s.document.problems;
  const byKind = new Map<ProblemKind, Problem[]>();
  for (const x of problems) byKind.set(x.kind, [...(byKind.get(x.kind) ?? []), x]);
  out('');
  if (problems.length === 0) {
    out(p.green('No problems: every file read cleanly and every model has a price.'));
  } else {
    out(p.bold('Problems'));
    for (const [kind, list] of byKind) {
      out(`  ${p.amber(KIND_TITLE[kind])} (${list.length})`);
      for (const x of list.slice(0, 20)) out(`    ${tildify(x.path, h)}: ${safeLine(x.detail)}`);
      if (list.length > 20) out(p.dim(`    … and ${list.length - 20} more`));
    }
    if (s.problemsDropped > 0) out(p.dim(`  … and ${s.problemsDropped} more problems not listed`));
  }
  return problems.some((x) => x.kind === 'unreadable') ? 1 : 0;
}
