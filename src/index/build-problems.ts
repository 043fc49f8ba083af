/**
 * The problems a build finds in its files (bad lines, oversized lines, counts that do not add up, an
 * unfinished last line, a window lookup that failed) and in its sessions (models without a price),
 * listed alike by a full build, a patch and a run answering from the index.
 *
 * Not here: the problems of reading (`refresh.ts`) or of the index itself (`session-index.ts`).
 */
import type { FileFacts } from '../model/facts.js';
import { BAD_LINE_REASON } from '../model/json.js';
import { untimedRequests } from '../model/ledger.js';
import type { Problem, ProblemLog } from '../model/problems.js';
import { sessionWindow } from '../providers/fence.js';
import { placeById } from '../providers/places.js';
import type { ParsedFile } from './group.js';

/** A problem the build found; `after` set means it only counts once the clock passes it (a partial line). */
export interface KeptProblem {
  problem: Problem;
  after: number | null;
}

/** Where a build's problems go: the log of what is due now, and every problem found (to keep). */
export interface ProblemSink {
  nowMs: number;
  problems: ProblemLog;
  found?: KeptProblem[];
}

/** A last line still without its newline this long after the file was written is a truncated file. */
const PARTIAL_LINE_GRACE_MS = 60_000;

/** Add `problem` now or, with `after`, once the clock passes it; tell `found` either way. */
export function addProblem(
  problem: Problem,
  after: number | null,
  nowMs: number,
  problems: ProblemLog,
  found: KeptProblem[] | undefined,
): void {
  found?.push({ problem, after });
  if (after === null || nowMs > after) problems.add(problem);
}

/**
 * What `cctop doctor` says of a file's bad lines: how many, and where the first is and why. Never
 * what it says: the file may be a link to anything, and problems are printed and served.
 */
function badLinesDetail(f: FileFacts): string {
  const lines = `${f.badLines} of ${f.lines} line${f.lines === 1 ? '' : 's'} could not be read`;
  const first = f.firstBad;
  if (first === null) return lines;
  const where = first.file === null ? `line ${first.line}` : `line ${first.line} of ${first.file}`;
  return `${lines}; the first, ${where}, ${BAD_LINE_REASON[first.reason]}`;
}

function fileProblems(p: ParsedFile, o: ProblemSink): void {
  const f = p.result.facts;
  const path = p.file.path;
  const add = (problem: Problem, after: number | null = null) =>
    addProblem(problem, after, o.nowMs, o.problems, o.found);
  if (f.badLines > 0) {
    add({
      kind: 'bad-lines',
      path,
      count: f.badLines,
      detail: badLinesDetail(f),
    });
  }
  if (f.oversizedLines > 0) {
    add({
      kind: 'oversized-lines',
      path,
      count: f.oversizedLines,
      detail: 'lines over the line bound were skipped',
    });
  }
  if (f.inconsistentUsage > 0) {
    add({
      kind: 'inconsistent-usage',
      path,
      count: f.inconsistentUsage,
      detail: 'token counts that do not add up (cached more than input); clamped',
    });
  }
  const untimed = untimedRequests(p.result.ledger);
  if (untimed > 0) {
    add({
      kind: 'untimed-requests',
      path,
      count: untimed,
      detail: `${untimed} request${untimed === 1 ? '' : 's'} without a timestamp: counted in the session, left out of daily, weekly, monthly and blocks`,
    });
  }
  if (p.file.role === 'main') {
    // Sizing the session reads the project's settings (Claude), found by the `cwd` the transcript
    // names: one no file can have (a NUL, a 300-character name) or may not be entered makes that
    // throw. Asked here, with the file's other problems, so that a full build, a patch and a run
    // answering from the index all list it alike; the session is sized without the settings.
    const w = sessionWindow(
      placeById(p.file.provider),
      {
        model: f.mainModel,
        used: f.context?.prompt ?? null,
        reportedWindow: f.reportedWindow,
        catalogueWindow: null,
        cwd: f.cwd,
        root: p.file.root,
      },
      path,
    );
    if (w.kind === 'failed') add(w.problem);
  }
  if (p.result.pendingBytes > 0) {
    add(
      {
        kind: 'partial-line',
        path,
        count: p.result.pendingBytes,
        detail: `the last ${p.result.pendingBytes} bytes are an unfinished line (a truncated file?)`,
      },
      p.result.mtimeMs + PARTIAL_LINE_GRACE_MS,
    );
  }
}

/** How `costOf` (`sessions.ts`) names a model's fast-mode requests when they have no price. */
export const FAST_SUFFIX = ' fast';

/** The unpriced-model problems of a whole document, from its sessions' unpriced tokens. */
export function unpricedProblems(entries: Iterable<{ unpriced: [string, number][] }>, o: ProblemSink): void {
  const unpriced = new Map<string, number>();
  for (const e of entries)
    for (const [model, tokens] of e.unpriced) unpriced.set(model, (unpriced.get(model) ?? 0) + tokens);
  for (const [model, tokens] of [...unpriced].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    addProblem(
      {
        kind: 'unpriced-model',
        path: model,
        count: tokens,
        detail: model.endsWith(FAST_SUFFIX)
          ? `${tokens.toLocaleString('en-US')} tokens in fast mode on a model whose fast-mode price cctop does not know (model/pricing-speed.ts): shown as no price`
          : `${tokens.toLocaleString('en-US')} tokens on a model the price catalogue does not know: shown as no price`,
      },
      null,
      o.nowMs,
      o.problems,
      o.found,
    );
  }
}

/** Problems of one file's own (bad lines, oversized lines, a partial last line). */
export function problemsOfFile(p: ParsedFile, o: ProblemSink): void {
  if (!p.deleted) fileProblems(p, o);
}
