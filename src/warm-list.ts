/**
 * A bare `cctop --list` from the warm document (`warm-answer.ts` proves it fresh): the rows kept
 * packed in its list part, the states that can still change worked out now, laid out for the width
 * asked (`views/cli/list-packed.ts`). Loaded, like `warm-answer.ts`, before the rest of cctop: it
 * imports nothing that reads transcripts.
 *
 * Not here: proving the document fresh (`warm-answer.ts`), or writing its list part
 * (`index/warm-doc-list.ts`).
 */
import { readdirSync, statSync } from 'node:fs';
import { unrunLive } from './index/live-text.js';
import type { DocHeader } from './index/warm-doc-layout.js';
import { paint } from './views/cli/color.js';
import { layoutPacked, type PackedList, packedUntil, unpackList } from './views/cli/list-packed.js';
import { declined, proved, type WarmJson, type WarmJsonOptions } from './warm-answer.js';

export interface WarmListOptions extends WarmJsonOptions {
  /** Whether stdout is a terminal (colour, and the width from it), and its width when it is one. */
  isTty: boolean;
  columns: number | undefined;
}

/**
 * `cctop --list` with the default options at `o.nowMs`, from the warm document: its rows printed but
 * for the states that can still change and the ages, laid out for the width as the list's own code
 * lays them out (`views/cli/list-packed.ts`). Declined besides while a run is announced
 * (`cctop/drive`'s runs, `cctop run`'s list: the full route marks their sessions), or once a quota
 * figure in the headings may have turned stale or its files changed.
 */
export async function warmList(o: WarmListOptions): Promise<WarmJson> {
  const p = await proved(o, true, false);
  if (p.kind === 'declined') return p;
  const { h } = p;
  if (h.listBytes === 0) return declined('no session is listed');
  const listAt = p.holesAt + h.holes * 8;
  const list = unpackList(p.b.subarray(listAt, listAt + h.listBytes));
  if (list === null) return declined('the warm document is of another version');
  const why = listMoved(h, list, o.nowMs);
  if (why !== null) return declined(why);
  const stateOf = (ref: number) => {
    const entry = h.live[ref];
    if (entry === undefined) throw new Error('a listed row has no live entry');
    const [signal, mtime, lastMs, lastActiveAt, running] = entry;
    return unrunLive(signal, mtime, lastMs, lastActiveAt, running, o.nowMs).state;
  };
  // As the full route reads the width: the terminal's, else $COLUMNS, else 80.
  const columns = o.isTty ? (o.columns ?? 80) : Number(o.env.COLUMNS) || 80;
  return { kind: 'answered', parts: [layoutPacked(list, columns, paint(o.isTty, o.env), o.nowMs, stateOf)] };
}

/** What `--list` reads besides the document's proof that is not as it was, or null. */
function listMoved(h: DocHeader, list: PackedList, nowMs: number): string | null {
  const until = packedUntil(list);
  if (until !== null && nowMs >= until) return 'a quota figure in the headings may have turned stale';
  for (const [path, size, mtimeMs] of h.key.list.quota) {
    const st = statSync(path, { throwIfNoEntry: false });
    if ((st?.size ?? null) !== size || (st?.mtimeMs ?? null) !== mtimeMs) return `${path} changed`;
  }
  const [runs, ptyRuns] = h.key.list.runs;
  // Any run file, even one whose driver has gone: telling them apart is the full route's (`runtime/run-files.ts`).
  if (runs !== undefined) {
    let names: string[] = [];
    try {
      names = readdirSync(runs);
    } catch {
      // No driver has announced a run here.
    }
    if (names.some((n) => n.endsWith('.json'))) return 'a driver announced a run';
  }
  if (ptyRuns !== undefined && statSync(ptyRuns, { throwIfNoEntry: false }) !== undefined)
    return '`cctop run` keeps a list of runs';
  return null;
}
